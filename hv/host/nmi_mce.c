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

static __noreturn void machine_check(const char *where, u64 rip)
{
	u64 cap = 0, status = 0, v, addr;
	unsigned i, banks;

	rdmsr_safe(MSR_IA32_MCG_CAP, &cap);
	rdmsr_safe(MSR_IA32_MCG_STATUS, &status);
	banks = cap & 0xff;
	console_printf("\nmhv: %s at rip 0x%llx: MCG_STATUS 0x%llx (%s), %u banks\n", where, rip,
		       status, status & MCG_STATUS_RIPV ? "RIP valid" : "RIP not valid", banks);
	for (i = 0; i < banks; i++) {
		if (rdmsr_safe(MSR_IA32_MC_STATUS(i), &v) || !(v & MCI_STATUS_VAL))
			continue;
		addr = 0;
		if (v & MCI_STATUS_ADDRV)
			rdmsr_safe(MSR_IA32_MC_ADDR(i), &addr);
		console_printf("mhv:   bank %u: MCi_STATUS 0x%llx, MCi_ADDR 0x%llx\n", i, v, addr);
	}
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
