// SPDX-License-Identifier: MIT
/*
 * NMIs, stray debug traps and machine checks on the host.  None may hang
 * mhv silently: an NMI (a watchdog, a BMC's "diagnostic interrupt", a
 * front-panel button) and a #DB mhv did not arm are counted, reported and
 * survived; a machine check is reported with the banks that hold an
 * error, and the run ends with the fatal status.
 */
#include "nmi_mce.h"
#include "platform/console.h"
#include "cpu_features.h"
#include "finish.h"
#include "percpu.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/x86.h"

#define NMI_REPORTS 5 /* lines for the first NMIs; later ones are only counted */

static u64 nmi_count;

void host_nmi(const struct isr_frame *f)
{
	nmi_count++;
	if (nmi_count <= NMI_REPORTS)
		console_printf("mhv: host NMI #%llu at rip 0x%llx: counted, run continues%s\n",
			       nmi_count, f->rip,
			       nmi_count == NMI_REPORTS ? " (further NMIs are only counted)" : "");
}

u64 host_nmi_count(void)
{
	return nmi_count;
}

static u64 stray_db_count;

/*
 * A #DB on the host that mhv did not arm: no breakpoint enabled in DR7,
 * no general detect, TF clear.  It can only be a debug trap the guest's
 * last instruction left pending across #VMEXIT: AMD documents one
 * (Family 10h revision guide, erratum 246: a trap after an instruction
 * with an interrupt shadow, followed by an intercepted one, is taken in
 * the host right after VMRUN), and Bochs' SVM delivers the single-step
 * trap of a guest instruction that exits (its #VMEXIT keeps the pending
 * trap: cpu/svm.cc SvmExitLoadHostState clears no debug_trap, as its VMX
 * exit does in cpu/vmx.cc).  Returning is safe: with nothing enabled in
 * DR7 the #DB is a trap, never a fault (instruction breakpoints and
 * general detect, the faulting kinds, need DR7: SDM Vol 3 §18.3.1 Table
 * 18-2, §17.3.1 in older editions; APM Vol 2 §8.2.2, §13.1), so the
 * saved RIP is the next instruction and nothing runs twice or is skipped.
 * The guest loses nothing: its RFLAGS and DR6 are in the VMCB (the next
 * VMRUN loads them over the trap's DR6 bits), and the single step over
 * an instruction mhv completes is mhv's to deliver (vcpu_insn_completed).
 * Anything armed stays fatal.
 */
bool host_stray_db(const struct isr_frame *f)
{
	u64 dr6 = read_dr6(), dr7 = read_dr7();

	if (debug_armed(dr7, f->rflags))
		return false;
	if (++stray_db_count == 1)
		console_printf(
		    "mhv: host #DB at rip 0x%llx (DR6 0x%llx, DR7 0x%llx) that mhv did not "
		    "arm: a guest's debug trap left pending across #VMEXIT; ignored, "
		    "further ones only counted\n",
		    f->rip, dr6, dr7);
	return true;
}

u64 host_stray_db_count(void)
{
	return stray_db_count;
}

/*
 * Machine checks (SDM Vol 3 §16.1-16.3; APM Vol 2 §9.2-9.3).  CPUID 1
 * EDX[7] (MCE) says the CPU has the #MC exception and CR4.MCE; EDX[14]
 * (MCA) the banks: MCG_CAP[7:0] of them, each an MCi_STATUS whose VAL bit
 * marks a logged error, with MCi_ADDR (ADDRV) and MCi_MISC (MISCV).  Both
 * are decided from CPUID, never by probing MSRs (QEMU reads unknown ones
 * as 0).  With CR4.MCE clear a machine check shuts the CPU down without a
 * word, so every CPU sets it.
 */
static bool has_mce, has_mca, smca;
static unsigned nr_banks;

/* Bank i's register reg: the legacy MSRs (32 banks at most), or AMD's
 * Scalable MCA ones, which reach past 32 banks. */
enum {
	MC_CTL,
	MC_STATUS,
	MC_ADDR,
	MC_MISC
};
static u32 bank_msr(unsigned i, unsigned reg)
{
	if (smca)
		return MSR_AMD64_SMCA_MC0_CTL + MSR_AMD64_SMCA_BANK_STRIDE * i + reg;
	return MSR_IA32_MC_CTL(i) + reg;
}

static void print_bank(const char *indent, unsigned i, u64 st)
{
	u64 addr = 0, misc = 0;

	if (st & MCI_STATUS_ADDRV)
		rdmsr_safe(bank_msr(i, MC_ADDR), &addr);
	if (st & MCI_STATUS_MISCV)
		rdmsr_safe(bank_msr(i, MC_MISC), &misc);
	console_printf("mhv: %sbank %u: MCi_STATUS 0x%llx (%s%s%s%s), MCi_ADDR 0x%llx, "
		       "MCi_MISC 0x%llx\n",
		       indent, i, st, st & MCI_STATUS_UC ? "uncorrected" : "corrected",
		       st & MCI_STATUS_PCC ? ", context corrupt" : "",
		       st & MCI_STATUS_OVER ? ", overflow" : "",
		       st & MCI_STATUS_ADDRV ? ", address valid" : "", addr, misc);
}

/* The banks that hold an error; how many. */
static unsigned print_banks(const char *indent)
{
	unsigned i, n = 0;
	u64 st;

	for (i = 0; i < nr_banks; i++) {
		if (rdmsr_safe(bank_msr(i, MC_STATUS), &st) || !(st & MCI_STATUS_VAL))
			continue;
		print_bank(indent, i, st);
		n++;
	}
	return n;
}

void mce_cpu_enable(void)
{
#ifndef MHV_TEST_NO_CR4_MCE /* test builds: mhv as before it set CR4.MCE */
	if (has_mce)
		write_cr4(read_cr4() | CR4_MCE);
#endif
}

void mce_init(void)
{
	struct cpuid_regs r = { 0, 0, 0, 0 };
	u64 cap = 0, status = 0;
	const char *cr4_mce;
	unsigned logged;

	cpuid_cached(1, 0, &r);
	has_mce = r.edx & BIT(7);
	has_mca = r.edx & BIT(14);
	if (!has_mce) {
		console_printf("mhv: mce: no machine-check exception (CPUID 1 EDX[7]=0)\n");
		return;
	}
#ifdef MHV_TEST_FIRMWARE_CR4_MCE_CLEAR
	/* test builds: start as firmware that leaves CR4.MCE clear does
	 * (OVMF sets it, which hides whether mhv does); the APs copy the BSP */
	write_cr4(read_cr4() & ~CR4_MCE);
#endif
	cr4_mce = read_cr4() & CR4_MCE ? "CR4.MCE set (the firmware had set it)"
				       : "CR4.MCE set (the firmware had left it clear)";
	mce_cpu_enable();
	if (!has_mca || rdmsr_safe(MSR_IA32_MCG_CAP, &cap)) {
		console_printf("mhv: mce: %s; no machine-check banks (CPUID 1 EDX[14]=0)\n",
			       cr4_mce);
		return;
	}
	nr_banks = cap & MCG_CAP_COUNT;
	smca = cpuid_cached(0x80000007, 0, &r) && (r.ebx & BIT(3));
	if (!smca && nr_banks > MCA_LEGACY_BANKS)
		nr_banks = MCA_LEGACY_BANKS;
	rdmsr_safe(MSR_IA32_MCG_STATUS, &status);
	/* Banks keep their contents across a warm reset (SDM Vol 3 §16.3.2.2):
	 * what they hold now may explain how the last boot ended. */
	logged = print_banks("mce: logged before this boot: ");
	if (logged)
		console_printf("mhv: mce: %s; %u of %u banks hold a logged machine check "
			       "(MCG_STATUS 0x%llx)\n",
			       cr4_mce, logged, nr_banks, status);
	else
		console_printf("mhv: mce: %s; no logged machine checks (%u banks%s)\n", cr4_mce,
			       nr_banks, smca ? ", scalable MCA" : "");
}

static u32 mce_reporter = ~0u; /* the CPU that reports: the first one in */

static __noreturn void machine_check(const char *where, u64 rip)
{
	struct cpu *c = this_cpu();
	u32 me = c ? c->index : 0, first = ~0u;
	u64 status = 0;

	/* Without local machine checks (LMCE) one may reach every CPU (SDM
	 * Vol 3 §16.3.1.1, MCG_LMCE_P): one CPU reports and ends the run,
	 * the others stop. */
	if (!__atomic_compare_exchange_n(&mce_reporter, &first, me, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) &&
	    first != me) {
		console_printf("mhv: %s on cpu %u too (cpu %u reports)\n", where, me, first);
		halt_forever();
	}

	if (has_mca)
		rdmsr_safe(MSR_IA32_MCG_STATUS, &status);
	console_printf("\nmhv: %s on cpu %u at rip 0x%llx: MCG_STATUS 0x%llx (%s), %u banks\n",
		       where, me, rip, status,
		       status & MCG_STATUS_RIPV ? "RIP valid" : "RIP not valid", nr_banks);
	if (!print_banks("  "))
		console_printf("mhv:   no bank holds an error\n");
	hv_fatal(MHV_FATAL, "machine check: the hardware reported an error; the run cannot go on");
}

void host_machine_check(const struct isr_frame *f)
{
	machine_check("host machine check", f->rip);
}

void host_machine_check_in_guest(u64 guest_rip)
{
	machine_check("machine check while a guest ran, guest", guest_rip);
}
