// SPDX-License-Identifier: MIT
/* SVM detection and enabling (APM Vol 2 §15.4). */
#include "svm.h"
#include "svm_exit.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "host/page_alloc.h"
#include "host/finish.h"
#include "host/selfcheck.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/x86.h"

#define SVM_FEATURE_LOCK 2 /* CPUID 8000_000A EDX[2] SVML */

bool svm_has_nrips;

/*
 * Per CPU: SVM must not be disabled by firmware on this core, EFER.SVME on,
 * and a host save area of its own (APM Vol 2 §15.4, §15.30.4).
 */
int svm_cpu_enable(const char **why)
{
	const struct cpuid_regs *svm_leaf = &host_cpu.cpuid.ext[0xa];
	void *hsave;

	if (rdmsr(MSR_VM_CR) & VM_CR_SVMDIS) {
		*why = (svm_leaf->edx >> SVM_FEATURE_LOCK) & 1
			   ? "SVM disabled by firmware (VM_CR.SVMDIS=1, locked with a key): "
			     "enable SVM/virtualization in the BIOS setup"
			   : "SVM disabled by firmware (VM_CR.SVMDIS=1): enable SVM/"
			     "virtualization in the BIOS setup";
		return MHV_NO_VIRT;
	}
	hsave = alloc_page_zeroed();
	if (!hsave) {
		*why = "out of memory for the SVM host save area";
		return MHV_FATAL;
	}
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, (u64)(uintptr_t)hsave);
	/* GIF set, IF clear: the host's state outside the VM-run loop (svm.h) */
	svm_gif_release();
	return 0;
}

/*
 * An idle CPU sleeps until an interrupt (GIF is set on the host: svm.h).
 * STI's one-instruction shadow covers the HLT, so a wake-up IPI that is
 * already pending ends the HLT instead of being taken before it.
 */
void svm_idle_wait(void)
{
	asm volatile("sti; hlt; cli" ::: "memory");
}

const struct backend_ops *svm_probe(const char **why, int *status)
{
	*status = MHV_NO_VIRT;
	if (!host_cpu.has.svm) {
		*why = "no SVM: CPUID 8000_0001 ECX[2] is 0";
		return NULL;
	}
	if (!host_cpu.has.npt) {
		*why = "SVM without nested paging (CPUID 8000_000A EDX[0]=0): mhv needs NPT";
		return NULL;
	}
	if (!duty_sets_match(svm_loop_duty_sets)) {
		*why = "the SVM run loops were built for other duty sets than "
		       "core/mitigation_policy.c lists (core/duties.inc)";
		*status = MHV_FATAL;
		return NULL;
	}
	*status = svm_cpu_enable(why);
	if (*status)
		return NULL;
	svm_has_nrips = host_cpu.has.nrips;
	svm_exit_table_init();
	svm_nmi_exits_init();
	svm_fast_exits_init(svm_has_nrips);
	selfcheck_watch("the SVM run loops' table", svm_run_loops, sizeof(svm_run_loops));
	selfcheck_watch("the SVM exit table", svm_exit_table, sizeof(svm_exit_table));
	selfcheck_watch("the SVM fast exit table", svm_fast_exits, sizeof(svm_fast_exits));
	return &svm_backend;
}
