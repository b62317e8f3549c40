/* SPDX-License-Identifier: MIT */
/* #VMEXIT decoding into struct vm_exit (exit codes: APM Vol 2 Appendix C). */
#ifndef MHV_SVM_EXIT_H
#define MHV_SVM_EXIT_H

#include "svm.h"
#include "core/vm.h"
#include "lib/nospec.h"

#define SVM_EXIT_TABLE_SIZE 256

/* How to decode one exit code below 256: a table, filled at init. */
struct svm_exit_desc {
	u8 kind; /* enum exit_kind */
	u8 insn; /* enum insn_op, for RIP advance without NRIP save */
	void (*decode)(const struct vmcb *vmcb, const struct guest_regs *regs,
		       struct vm_exit *exit);
};

extern struct svm_exit_desc svm_exit_table[SVM_EXIT_TABLE_SIZE];

/* Per exit code below 256, called by the VM-run loops without a PMU mode:
 * a fast handler or svm_handle_exit (svm_fast.c).  The PMU loops that call
 * through vcpu->exit_table have one more entry, for the codes above 255;
 * svm_fast_exits_pmu is theirs while the PMU needs no hook (svm_pmu.c). */
typedef int svm_fast_fn(struct vcpu *vcpu, struct vmcb *vmcb);
extern svm_fast_fn *svm_fast_exits[SVM_EXIT_TABLE_SIZE];
extern svm_fast_fn *svm_fast_exits_pmu[SVM_EXIT_TABLE_SIZE + 1];
void svm_fast_exits_init(bool nrips);

void svm_exit_table_init(void);
void svm_decode_npf(const struct vmcb *vmcb, struct vm_exit *exit);
const char *svm_exit_name(u64 code);

/* Inline: it runs on every exit.  nrips: the CPU has NRIP save. */
static inline void svm_decode_exit(const struct vmcb *vmcb, const struct guest_regs *regs,
				   struct vm_exit *exit, bool nrips)
{
	u64 code = vmcb->control.exit_code;
	const struct svm_exit_desc *d;

	exit->vendor_code = code;
	/* likely: laid out without a jump (NRIP save is on all but the oldest SVM CPUs) */
	exit->next_rip = likely(nrips) ? vmcb->control.next_rip : 0;
	if (likely(code < SVM_EXIT_TABLE_SIZE)) {
		d = &svm_exit_table[array_index_nospec_pow2(code, SVM_EXIT_TABLE_SIZE)];
		exit->kind = d->kind;
		exit->insn = d->insn;
		if (d->decode)
			d->decode(vmcb, regs, exit);
		return;
	}
	exit->info1 = vmcb->control.exit_info_1;
	exit->info2 = vmcb->control.exit_info_2;
	exit->insn = INSN_OP_COUNT;
	if (code == SVM_EXIT_NPF) {
		exit->kind = EXIT_NPF;
		svm_decode_npf(vmcb, exit);
	} else if ((u32)code == SVM_EXIT_INVALID) {
		exit->kind = EXIT_INVALID;
	} else {
		exit->kind = EXIT_UNHANDLED;
	}
}

#endif
