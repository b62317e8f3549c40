/* SPDX-License-Identifier: MIT */
/* VM-exit decoding into struct vm_exit (SDM Vol 3 §28.2, Appendix C). */
#ifndef MHV_VMX_EXIT_H
#define MHV_VMX_EXIT_H

#include "core/vm.h"
#include "lib/nospec.h"
#include "vmcs.h"

/* Exit qualification of I/O instructions, bit 4: INS/OUTS (SDM Vol 3 Table 28-5) */
#define IO_QUAL_STRING BIT(4)

/* What an exit's decoder needs read from the VMCS beyond reason, length and RIP. */
enum vmx_exit_needs {
	NEED_QUAL = BIT(0),
	NEED_INTR_INFO = BIT(1),
	NEED_GPA = BIT(2),
	NEED_STRING_IO_INFO = BIT(3), /* the instruction information, for INS/OUTS */
	NEED_RSP = BIT(4),	      /* guest RSP: its handler may read or write any GPR */
};

/* The VMCS exit fields, read by vmx_vcpu.c (only those the reason needs). */
struct vmx_exit_fields {
	u32 reason;
	u32 insn_len;
	u64 rip;
	u64 qual;
	u32 intr_info, intr_error;
	u64 gpa;
	u32 insn_info;	    /* SDM Vol 3 §28.2.5 */
	bool has_insn_info; /* read for this exit */
};

struct vmx_exit_desc {
	u8 kind;  /* enum exit_kind */
	u8 insn;  /* enum insn_op */
	u8 needs; /* enum vmx_exit_needs */
	void (*decode)(const struct vmx_exit_fields *f, const struct guest_regs *regs,
		       struct vm_exit *exit);
};

/* VMX_EXIT_REASONS rounded up to a power of two: the index is masked */
#define VMX_EXIT_TABLE_SIZE 128
extern struct vmx_exit_desc vmx_exit_table[VMX_EXIT_TABLE_SIZE];

void vmx_exit_table_init(void);
/* For exits only reported, not handled: the raw qualification and GPA. */
void vmx_decode_raw(const struct vmx_exit_fields *f, const struct guest_regs *regs,
		    struct vm_exit *exit);

static inline const struct vmx_exit_desc *vmx_exit_desc(u32 reason)
{
	static const struct vmx_exit_desc entry_failed = { EXIT_INVALID, INSN_OP_COUNT, NEED_QUAL,
							   vmx_decode_raw };
	static const struct vmx_exit_desc unknown = { EXIT_UNHANDLED, INSN_OP_COUNT, NEED_QUAL,
						      vmx_decode_raw };

	/* one test on the common path: a failed entry's bit 31 is out of range too */
	if (likely(reason < VMX_EXIT_REASONS))
		return &vmx_exit_table[array_index_nospec_pow2(reason, VMX_EXIT_TABLE_SIZE)];
	return reason & EXIT_REASON_ENTRY_FAILURE ? &entry_failed : &unknown;
}

/* Pure: from the fields to the normalised exit. */
static inline void vmx_decode_exit(const struct vmx_exit_desc *d, const struct vmx_exit_fields *f,
				   const struct guest_regs *regs, struct vm_exit *exit)
{
	exit->kind = d->kind;
	exit->insn = d->insn;
	exit->vendor_code = f->reason;
	/* The instruction length is valid for every instruction exit (§28.2.5). */
	exit->next_rip = f->rip + f->insn_len;
	if (d->decode)
		d->decode(f, regs, exit);
}

#endif
