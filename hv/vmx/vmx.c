// SPDX-License-Identifier: MIT
/* VMX detection and enabling (SDM Vol 3 §24.6-24.8, Appendix A). */
#include "vmx.h"
#include "pmu/pmu_caps.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "lib/fmt.h"
#include "host/page_alloc.h"
#include "host/finish.h"
#include "host/selfcheck.h"
#include "vmcs.h"
#include "vmx_controls.h"
#include "vmx_exit.h"
#include "vmx_insn.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/x86.h"

struct vmx_caps vmx_caps;

static char why_buf[160];

/* One control field: its capability MSRs and what mhv needs from it. */
struct control_request {
	const char *name;
	u32 plain_msr, true_msr;
	u32 required, optional;
	u32 *out;
};

static const char *compute_controls(void)
{
	bool true_ctls = rdmsr(MSR_IA32_VMX_BASIC) & VMX_BASIC_TRUE_CTLS;
	struct control_request reqs[] = {
		{ "pin-based", MSR_IA32_VMX_PINBASED_CTLS, MSR_IA32_VMX_TRUE_PINBASED_CTLS,
		  PIN_EXTERNAL_INTERRUPT_EXITING | PIN_NMI_EXITING, PIN_VIRTUAL_NMIS,
		  &vmx_caps.pin },
		{ "processor-based", MSR_IA32_VMX_PROCBASED_CTLS, MSR_IA32_VMX_TRUE_PROCBASED_CTLS,
		  /* TPR shadow: guest CR8 accesses stay in the virtual-APIC page (as
		   * V_TPR on SVM) instead of reaching the host's TPR (SDM Vol 3 §30.1);
		   * RDPMC exits: the PMU is off unless a PMU mode says otherwise */
		  PROC_HLT_EXITING | PROC_RDPMC_EXITING | PROC_USE_TPR_SHADOW |
		      PROC_USE_IO_BITMAPS | PROC_USE_MSR_BITMAPS | PROC_SECONDARY_CONTROLS,
		  PROC_INTERRUPT_WINDOW_EXITING | PROC_NMI_WINDOW_EXITING | PROC_USE_TSC_OFFSETTING,
		  &vmx_caps.proc },
		{ "VM-exit", MSR_IA32_VMX_EXIT_CTLS, MSR_IA32_VMX_TRUE_EXIT_CTLS,
		  /* the guest's DR7 and DEBUGCTL survive exits: else an exit
		   * leaves DR7 at 0x400 (SDM Vol 3 §28.3.1, §28.5.1) */
		  EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_EFER | EXIT_LOAD_EFER |
		      EXIT_SAVE_DEBUG_CONTROLS,
		  EXIT_SAVE_PAT | EXIT_LOAD_PAT | EXIT_LOAD_PERF_GLOBAL_CTRL, &vmx_caps.exit },
		{ "VM-entry", MSR_IA32_VMX_ENTRY_CTLS, MSR_IA32_VMX_TRUE_ENTRY_CTLS,
		  ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_EFER | ENTRY_LOAD_DEBUG_CONTROLS,
		  ENTRY_LOAD_PAT | ENTRY_LOAD_PERF_GLOBAL_CTRL, &vmx_caps.entry },
	};
	u64 proc_cap =
	    rdmsr(true_ctls ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS : MSR_IA32_VMX_PROCBASED_CTLS);
	const char *why;
	unsigned i;
	u32 missing;

	/* EPT first: it is what old VMX CPUs lack, and the reason to name. */
	if (!(proc_cap >> 32 & PROC_SECONDARY_CONTROLS) ||
	    !(rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2) >> 32 & PROC2_ENABLE_EPT))
		return "VMX without EPT (secondary control \"enable EPT\" not allowed): "
		       "mhv needs EPT";
	for (i = 0; i < ARRAY_SIZE(reqs); i++) {
		u64 cap = rdmsr(true_ctls ? reqs[i].true_msr : reqs[i].plain_msr);

		if (vmx_adjust_controls(cap, reqs[i].required, reqs[i].optional, reqs[i].out,
					&missing)) {
			fmt_snprintf(why_buf, sizeof(why_buf),
				     "VMX lacks required %s controls 0x%x (capability MSR 0x%llx)",
				     reqs[i].name, missing, cap);
			return why_buf;
		}
	}
	/* Secondary controls have no TRUE MSR (Appendix A.3.3) */
	if (vmx_adjust_controls(
		rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2), PROC2_ENABLE_EPT | PROC2_WBINVD_EXITING,
		PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST | PROC2_ENABLE_RDTSCP |
		    PROC2_PAUSE_LOOP_EXITING | PROC2_ENABLE_INVPCID | PROC2_ENABLE_XSAVES,
		&vmx_caps.proc2, &missing))
		return missing & PROC2_ENABLE_EPT
			   ? "VMX without EPT (secondary control \"enable EPT\" not "
			     "allowed): mhv needs EPT"
			   : "VMX without WBINVD exiting: mhv needs it";
	/* Interrupt-window exiting is switched on only while an interrupt waits */
	vmx_caps.interrupt_window = vmx_caps.proc & PROC_INTERRUPT_WINDOW_EXITING;
	vmx_caps.proc &= ~PROC_INTERRUPT_WINDOW_EXITING;
	/* The guest's NMI blocking is the CPU's to track with virtual NMIs;
	 * NMI-window exiting needs them (SDM Vol 3 §27.2.1.1) and is on only while an NMI waits. */
	vmx_caps.nmi_window =
	    (vmx_caps.pin & PIN_VIRTUAL_NMIS) && (vmx_caps.proc & PROC_NMI_WINDOW_EXITING);
	vmx_caps.proc &= ~PROC_NMI_WINDOW_EXITING;
	/* TSC offsetting too, from a guest's first TSC write (vmx_set_tsc_offset) */
	vmx_caps.tsc_offsetting = vmx_caps.proc & PROC_USE_TSC_OFFSETTING;
	vmx_caps.proc &= ~PROC_USE_TSC_OFFSETTING;
	/* The PERF_GLOBAL_CTRL loads are for VMs with a PMU mode only (vmx_pmu.c). */
	vmx_caps.perf_global_ctrl = (vmx_caps.exit & EXIT_LOAD_PERF_GLOBAL_CTRL) &&
				    (vmx_caps.entry & ENTRY_LOAD_PERF_GLOBAL_CTRL);
	pmu_caps.vm_global_ctrl_switch = vmx_caps.perf_global_ctrl;
	vmx_caps.exit &= ~EXIT_LOAD_PERF_GLOBAL_CTRL;
	vmx_caps.entry &= ~ENTRY_LOAD_PERF_GLOBAL_CTRL;
	vmx_caps.vpid = vmx_caps.proc2 & PROC2_ENABLE_VPID;
	vmx_caps.unrestricted_guest = vmx_caps.proc2 & PROC2_UNRESTRICTED_GUEST;
	/* PAUSE-loop exiting only for VMs whose vCPUs can wait on each other */
	vmx_caps.ple = vmx_caps.proc2 & PROC2_PAUSE_LOOP_EXITING;
	vmx_caps.proc2 &= ~PROC2_PAUSE_LOOP_EXITING;
	/* mhv does not use unrestricted guest yet: its guests start paged. */
	vmx_caps.proc2 &= ~PROC2_UNRESTRICTED_GUEST;
	vmx_caps.ept_vpid_cap = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	if ((vmx_caps.ept_vpid_cap & (EPT_CAP_PAGE_WALK_4 | EPT_CAP_WB)) !=
	    (EPT_CAP_PAGE_WALK_4 | EPT_CAP_WB))
		return "EPT without 4-level walks or write-back paging structures";
	why = vmx_choose_flush(vmx_caps.ept_vpid_cap, vmx_caps.vpid, &vmx_caps.flush);
	if (why)
		return why;
	if (vmx_caps.vpid && !vmx_caps.flush.invvpid_type) {
		console_printf("mhv: vmx: VPID left off: no single- or all-context INVVPID "
			       "(IA32_VMX_EPT_VPID_CAP 0x%llx)\n",
			       vmx_caps.ept_vpid_cap);
		vmx_caps.vpid = false;
		vmx_caps.proc2 &= ~PROC2_ENABLE_VPID;
	}
	return NULL;
}

/*
 * Per CPU: FEATURE_CONTROL allows VMX outside SMX (locked by mhv when the
 * firmware left it open), CR0/CR4 meet the fixed bits, and the CPU enters
 * VMX operation with a VMXON region of its own (SDM Vol 3 §24.7, §24.8).
 */
int vmx_cpu_enable(const char **why)
{
	u64 fc = rdmsr(MSR_IA32_FEATURE_CONTROL);
	void *vmxon_region;

	if (!(fc & FEATURE_CONTROL_LOCK)) {
		/* Unlocked (OVMF under Bochs leaves it so): enable and lock. */
		fc |= FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_OUTSIDE_SMX;
		wrmsr(MSR_IA32_FEATURE_CONTROL, fc);
	} else if (!(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		*why = "VMX disabled by firmware (IA32_FEATURE_CONTROL is locked with "
		       "VMX-outside-SMX=0): enable VT-x in the BIOS setup";
		return MHV_NO_VIRT;
	}
	write_cr0(vmx_fix_cr(read_cr0(), vmx_caps.cr0_fixed0, vmx_caps.cr0_fixed1));
	write_cr4(vmx_fix_cr(read_cr4() | CR4_VMXE, vmx_caps.cr4_fixed0, vmx_caps.cr4_fixed1));
	vmxon_region = alloc_page_zeroed();
	if (!vmxon_region) {
		*why = "out of memory for the VMXON region";
		return MHV_FATAL;
	}
	*(u32 *)vmxon_region = vmx_caps.revision;
	/* CR0/CR4 and FEATURE_CONTROL are right by now (VMXON would #GP, not
	 * fail, on them): a failure is the region or VMX already on (SDM Vol 3
	 * §31.3, VMXON). */
	switch (vmxon((u64)(uintptr_t)vmxon_region)) {
	case VMX_SUCCEED:
		break;
	case VMX_FAIL_VALID:
		*why = "VMXON failed: VM-instruction error 15 (VMXON executed in VMX root "
		       "operation): something left VMX on";
		return MHV_FATAL;
	case VMX_FAIL_INVALID:
		fmt_snprintf(why_buf, sizeof(why_buf),
			     "VMXON failed (VMfailInvalid): the VMXON region at 0x%llx or its "
			     "revision identifier 0x%x was refused",
			     (u64)(uintptr_t)vmxon_region, vmx_caps.revision);
		*why = why_buf;
		return MHV_FATAL;
	}
	/* with single-context INVEPT only, each VM flushes its own EPTP */
	if (vmx_caps.flush.invept_type == INVEPT_ALL_CONTEXT)
		invept(INVEPT_ALL_CONTEXT, 0);
	return 0;
}

void vmx_idle_wait(void)
{
	asm volatile("sti; hlt; cli" ::: "memory");
}

const struct backend_ops *vmx_probe(const char **why, int *status)
{
	u64 fc = rdmsr(MSR_IA32_FEATURE_CONTROL);

	if (!duty_sets_match(vmx_loop_duty_sets)) {
		*why = "the VMX run loops were built for other duty sets than "
		       "core/mitigation_policy.c lists (core/duties.inc)";
		*status = MHV_FATAL;
		return NULL;
	}
	*status = MHV_NO_VIRT;
	if ((fc & FEATURE_CONTROL_LOCK) && !(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		*why = "VMX disabled by firmware (IA32_FEATURE_CONTROL is locked with "
		       "VMX-outside-SMX=0): enable VT-x in the BIOS setup";
		return NULL;
	}
	if (!(fc & FEATURE_CONTROL_LOCK)) {
		/* The capability MSRs need VMX enabled in FEATURE_CONTROL first. */
		wrmsr(MSR_IA32_FEATURE_CONTROL,
		      fc | FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_OUTSIDE_SMX);
	}
	*why = compute_controls();
	if (*why)
		return NULL;
	vmx_caps.revision = rdmsr(MSR_IA32_VMX_BASIC) & 0x7fffffff;
	vmx_caps.ins_outs_info = rdmsr(MSR_IA32_VMX_BASIC) & VMX_BASIC_INS_OUTS_INFO;
	vmx_caps.cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
	vmx_caps.cr0_fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	vmx_caps.cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
	vmx_caps.cr4_fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
	*status = vmx_cpu_enable(why);
	if (*status)
		return NULL;
	vmx_exit_table_init();
	selfcheck_watch("the VMX run loops' table", vmx_run_loops, sizeof(vmx_run_loops));
	selfcheck_watch("the VMX exit table", vmx_exit_table, sizeof(vmx_exit_table));
	vmx_fast_exits_init();
	selfcheck_watch("the VMX fast exit table", vmx_fast_exits, sizeof(vmx_fast_exits));
	return &vmx_backend;
}
