// SPDX-License-Identifier: MIT
/*
 * The CPU state that no VM entry or exit switches, and that mhv leaves
 * loaded while it handles exits (DESIGN §4): reset where a new vCPU
 * starts, to the values after RESET/INIT (SDM Vol 3 §10.1.1 Table 10-1,
 * APM Vol 2 §14.1.3).
 */
#include "cpu_reset.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/x86.h"
#include "xstate/xstate_guest.h"

void cpu_reset_for_new_vcpu(void)
{
	/*
	 * DR0-3 are in neither the VMCB nor the VMCS; DR6 and CR2 are in the
	 * VMCB (APM Vol 2 §15.5.1) but not in the VMCS guest area (SDM Vol 3
	 * §25.4.1), and Bochs' SVM leaves CR2 as the last guest set it.  The
	 * guest reaches all of them without an exit.
	 */
	write_dr0(0);
	write_dr1(0);
	write_dr2(0);
	write_dr3(0);
	write_dr6(DR6_INIT);
	write_cr2(0);
	/*
	 * Passed through to the guest (core/msr.c) and switched by no VM
	 * entry or exit on VMX (SDM Vol 3 §28.3 loads only the VMCS's
	 * FS/GS bases and SYSENTER_*); SVM's VMLOAD loads all but TSC_AUX
	 * again from the VMCB (svm_vcpu_run).  Each vCPU runs once, start to
	 * end, on its CPU (vm_vcpu_run), so starting a vCPU is the only time
	 * the CPU changes hands: its values are the reset ones, 0 (SDM Vol 3
	 * §10.1.1 Table 10-1).  CSTAR (AMD) and TSC_AUX (RDTSCP/RDPID) may be
	 * missing.
	 */
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	wrmsr(MSR_STAR, 0);
	wrmsr(MSR_LSTAR, 0);
	wrmsr(MSR_SFMASK, 0);
	wrmsr_safe(MSR_CSTAR, 0);
	wrmsr_safe(MSR_TSC_AUX, 0);
	xstate_cpu_reset();
}
