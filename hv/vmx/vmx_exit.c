// SPDX-License-Identifier: MIT
/* The VMX exit-reason table and the decoders of exit qualifications. */
#include "vmx_exit.h"
#include "arch/segment.h"

struct vmx_exit_desc vmx_exit_table[VMX_EXIT_TABLE_SIZE];
_Static_assert(VMX_EXIT_REASONS <= VMX_EXIT_TABLE_SIZE, "every reason has its entry");

void vmx_decode_raw(const struct vmx_exit_fields *f, const struct guest_regs *regs,
		    struct vm_exit *exit)
{
	exit->info1 = f->qual;
	exit->info2 = f->gpa;
}

static void vmx_decode_msr(const struct vmx_exit_fields *f, const struct guest_regs *regs,
			   struct vm_exit *exit)
{
	exit->msr.index = (u32)regs->gpr[GPR_RCX];
}

/* Exit qualification for I/O instructions: SDM Vol 3 Table 28-5; for
 * INS/OUTS the instruction information, Table 28-8 (§28.2.5). */
static void decode_io(const struct vmx_exit_fields *f, const struct guest_regs *regs,
		      struct vm_exit *exit)
{
	exit->io.size = (f->qual & 7) + 1;
	exit->io.in = f->qual & BIT(3);
	exit->io.string = f->qual & IO_QUAL_STRING;
	exit->io.rep = f->qual & BIT(5);
	exit->io.port = f->qual >> 16;
	if (likely(!exit->io.string)) /* only INS/OUTS read what follows */
		return;
	exit->io.addr_bits = 0;
	exit->io.seg = SEG_REG_COUNT;
	if (f->has_insn_info) {
		unsigned asize = (f->insn_info >> 7) & 7, seg = (f->insn_info >> 15) & 7;

		if (asize <= 2)
			exit->io.addr_bits = 16 << asize;
		/* bits 17:15 are undefined for INS, which always uses ES */
		if (!exit->io.in && seg < SEG_REG_COUNT)
			exit->io.seg = seg;
	}
}

/* Exit qualification for EPT violations: SDM Vol 3 Table 28-7 */
static void decode_ept_violation(const struct vmx_exit_fields *f, const struct guest_regs *regs,
				 struct vm_exit *exit)
{
	exit->npf.gpa = f->gpa;
	exit->npf.write = f->qual & BIT(1);
	exit->npf.fetch = f->qual & BIT(2);
	exit->npf.present = f->qual & (BIT(3) | BIT(4) | BIT(5)); /* readable/writable/executable */
}

/* Exit interruption information: SDM Vol 3 Table 25-19 (§25.9.2) */
static void decode_exception_nmi(const struct vmx_exit_fields *f, const struct guest_regs *regs,
				 struct vm_exit *exit)
{
	if ((f->intr_info & INTR_TYPE_MASK) == INTR_TYPE_NMI) {
		exit->kind = EXIT_NMI;
		return;
	}
	exit->exc.vector = f->intr_info & INTR_INFO_VECTOR_MASK;
	exit->exc.has_error = f->intr_info & INTR_INFO_ERROR_VALID;
	exit->exc.error_code = f->intr_error;
}

/*
 * Exit qualification for control-register accesses: SDM Vol 3 Table 28-3.
 * Only writes to CR0 and CR4 exit (the guest/host masks); anything else
 * is reported as it came.
 */
static void decode_cr_access(const struct vmx_exit_fields *f, const struct guest_regs *regs,
			     struct vm_exit *exit)
{
	static const u8 ops[4] = { CR_WRITE_MOV, 0xff, CR_WRITE_CLTS, CR_WRITE_LMSW };
	unsigned cr = f->qual & 15, op = ops[(f->qual >> 4) & 3];

	exit->info1 = f->qual;
	if ((cr != 0 && cr != 4) || op == 0xff) {
		exit->kind = EXIT_UNHANDLED;
		return;
	}
	exit->cr.cr = cr;
	exit->cr.op = op;
	exit->cr.gpr = (f->qual >> 8) & 15;
	exit->cr.lmsw = f->qual >> 16;
}

static const struct {
	u8 reason;
	struct vmx_exit_desc desc;
} exit_reasons[] = {
	{ EXIT_REASON_VMCALL, { EXIT_HYPERCALL, INSN_VMCALL, 0, NULL } },
	{ EXIT_REASON_CPUID, { EXIT_CPUID, INSN_CPUID, 0, NULL } },
	{ EXIT_REASON_RDPMC, { EXIT_RDPMC, INSN_RDPMC, 0, NULL } },
	{ EXIT_REASON_RDMSR, { EXIT_MSR_READ, INSN_RDMSR, 0, vmx_decode_msr } },
	{ EXIT_REASON_WRMSR, { EXIT_MSR_WRITE, INSN_WRMSR, 0, vmx_decode_msr } },
	{ EXIT_REASON_IO, { EXIT_IO, INSN_OP_COUNT, NEED_QUAL | NEED_STRING_IO_INFO, decode_io } },
	{ EXIT_REASON_HLT, { EXIT_HLT, INSN_HLT, 0, NULL } },
	{ EXIT_REASON_CR_ACCESS,
	  { EXIT_CR_WRITE, INSN_MOV_CR, NEED_QUAL | NEED_RSP, decode_cr_access } },
	{ EXIT_REASON_PAUSE, { EXIT_PAUSE, INSN_PAUSE, 0, NULL } },
	{ EXIT_REASON_INVD, { EXIT_CACHE_FLUSH, INSN_INVD, 0, NULL } },
	{ EXIT_REASON_WBINVD, { EXIT_CACHE_FLUSH, INSN_WBINVD, 0, NULL } },
	{ EXIT_REASON_XSETBV, { EXIT_XSETBV, INSN_XSETBV, 0, NULL } },
	{ EXIT_REASON_EPT_VIOLATION,
	  { EXIT_NPF, INSN_OP_COUNT, NEED_QUAL | NEED_GPA | NEED_RSP, decode_ept_violation } },
	{ EXIT_REASON_EXCEPTION_NMI,
	  { EXIT_EXCEPTION, INSN_OP_COUNT, NEED_INTR_INFO, decode_exception_nmi } },
	{ EXIT_REASON_EXTERNAL_INTERRUPT, { EXIT_INTR, INSN_OP_COUNT, 0, NULL } },
	{ EXIT_REASON_TRIPLE_FAULT, { EXIT_SHUTDOWN, INSN_OP_COUNT, 0, NULL } },
	{ EXIT_REASON_INTERRUPT_WINDOW, { EXIT_INTERRUPT_WINDOW, INSN_OP_COUNT, 0, NULL } },
	{ EXIT_REASON_NMI_WINDOW, { EXIT_INTERRUPT_WINDOW, INSN_OP_COUNT, 0, NULL } },
	{ EXIT_REASON_INVEPT, { EXIT_VIRT_INSN, INSN_OP_COUNT, 0, NULL } },
	{ EXIT_REASON_INVVPID, { EXIT_VIRT_INSN, INSN_OP_COUNT, 0, NULL } },
};

void vmx_exit_table_init(void)
{
	unsigned i;

	for (i = 0; i < VMX_EXIT_TABLE_SIZE; i++)
		vmx_exit_table[i] = (struct vmx_exit_desc){ EXIT_UNHANDLED, INSN_OP_COUNT,
							    NEED_QUAL, vmx_decode_raw };
	/* VMCLEAR .. VMXON: every VMX instruction exits in non-root operation (§26.1.2) */
	for (i = EXIT_REASON_VMCLEAR; i <= EXIT_REASON_VMXON; i++)
		vmx_exit_table[i] =
		    (struct vmx_exit_desc){ EXIT_VIRT_INSN, INSN_OP_COUNT, 0, NULL };
	for (i = 0; i < ARRAY_SIZE(exit_reasons); i++)
		vmx_exit_table[exit_reasons[i].reason] = exit_reasons[i].desc;
}
