/* SPDX-License-Identifier: MIT */
#ifndef MHV_EXIT_H
#define MHV_EXIT_H

#include "arch/insn.h"
#include "lib/types.h"

/* The normalised exit: vendor code decodes into this, hv/ handles it. */
enum exit_kind {
	EXIT_HYPERCALL,
	EXIT_CPUID,
	EXIT_MSR_READ,
	EXIT_MSR_WRITE,
	EXIT_IO,
	EXIT_HLT,
	EXIT_CACHE_FLUSH, /* WBINVD, INVD: never executed for real on the host's caches */
	EXIT_XSETBV,
	EXIT_RDPMC,
	EXIT_CR_WRITE,	/* a write to CR0/CR4 that touches bits mhv holds */
	EXIT_PAUSE,	/* PAUSE filter / PAUSE-loop exiting: a vCPU spins on another */
	EXIT_NPF,	/* nested page fault / EPT violation */
	EXIT_EXCEPTION, /* an intercepted guest exception */
	EXIT_INTR,	/* physical interrupt */
	EXIT_NMI,
	EXIT_SMI,	       /* taken by the firmware's SMM in the host's context (svm.h) */
	EXIT_INTERRUPT_WINDOW, /* the guest can take the interrupt mhv holds for it */
	EXIT_VIRT_INSN,	       /* SVM/VMX instruction in the guest: no nested virtualization */
	EXIT_SHUTDOWN,	       /* triple fault */
	EXIT_INVALID,	       /* the CPU refused the guest state */
	EXIT_UNHANDLED,	       /* an exit the core has no handler for */
	EXIT_KIND_COUNT
};

struct vm_exit {
	enum exit_kind kind;
	enum insn_op insn; /* the intercepted instruction, for length checks */
	u64 next_rip;	   /* 0 when the CPU did not say (no NRIP save) */
	u64 vendor_code;   /* raw exit code, for messages */
	u64 info1, info2;  /* raw exit qualification, for messages */
	union {
		struct {
			u32 index;
		} msr;
		struct {
			u16 port;
			u8 size;
			bool in;
			bool string;
			bool rep;
			/* INS/OUTS, when the exit says: 16/32/64 (else 0), the
			 * segment of OUTS' source (else SEG_REG_COUNT) */
			u8 addr_bits;
			u8 seg;
		} io;
		struct {
			u64 gpa;
			bool write;
			bool fetch;
			bool present;
		} npf;
		struct {
			u8 cr; /* 0 or 4 */
			u8 op; /* enum cr_write_op */
			u8 gpr;
			u16 lmsw;
		} cr;
		struct {
			u8 vector;
			bool has_error;
			u32 error_code;
		} exc;
	};
};

/* How an EXIT_CR_WRITE instruction writes the CR. */
enum cr_write_op {
	CR_WRITE_MOV,  /* MOV to CR from cr.gpr */
	CR_WRITE_CLTS, /* CR0.TS := 0 */
	CR_WRITE_LMSW, /* CR0 bits 3:0 from cr.lmsw; PE is not cleared */
};

/* cr.gpr when the CPU did not say: decode the instruction at RIP. */
#define CR_GPR_DECODE 0xff

enum exit_result {
	EXIT_RESUME,
	EXIT_STOP
};

const char *exit_kind_name(enum exit_kind kind);

#endif
