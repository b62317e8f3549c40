// SPDX-License-Identifier: MIT
/* #VMEXIT decoding into struct vm_exit (exit codes: APM Vol 2 Appendix C). */
#include "svm_exit.h"
#include "core/vm.h"
#include "arch/segment.h"

static void svm_decode_msr(const struct vmcb *vmcb, const struct guest_regs *regs,
			   struct vm_exit *exit)
{
	/* EXITINFO1: 0 = RDMSR, 1 = WRMSR (APM Vol 2 §15.11) */
	bool write = vmcb->control.exit_info_1 & 1;

	exit->kind = write ? EXIT_MSR_WRITE : EXIT_MSR_READ;
	exit->insn = write ? INSN_WRMSR : INSN_RDMSR;
	exit->msr.index = (u32)regs->gpr[GPR_RCX];
}

static void decode_ioio(const struct vmcb *vmcb, const struct guest_regs *regs,
			struct vm_exit *exit)
{
	/* EXITINFO1 layout: APM Vol 2 §15.10.2, Figure 15-2 */
	u64 info = vmcb->control.exit_info_1;

	exit->io.in = info & BIT(0);
	exit->io.string = info & BIT(2);
	exit->io.rep = info & BIT(3);
	exit->io.size = info & BIT(4) ? 1 : info & BIT(5) ? 2 : 4;
	exit->io.port = info >> 16;
	/* A16/A32/A64 (bits 7-9): QEMU 7.2 sets none of them.  SEG (bits
	 * 12:10) is left 0 by QEMU and Bochs alike: the core decodes the
	 * prefixes for it. */
	if (unlikely(exit->io.string)) { /* only INS/OUTS read them: IN/OUT pay nothing */
		exit->io.addr_bits = info & BIT(7)   ? 16
				     : info & BIT(8) ? 32
				     : info & BIT(9) ? 64
						     : 0;
		exit->io.seg = SEG_REG_COUNT;
	}
	/* EXITINFO2 holds the next RIP for IOIO even without NRIP save */
	exit->next_rip = vmcb->control.exit_info_2;
}

void svm_decode_npf(const struct vmcb *vmcb, struct vm_exit *exit)
{
	/* EXITINFO1 is a #PF-style error code, EXITINFO2 the GPA (APM Vol 2 §15.25.6) */
	u64 err = vmcb->control.exit_info_1;

	exit->npf.gpa = vmcb->control.exit_info_2;
	exit->npf.present = err & BIT(0);
	exit->npf.write = err & BIT(1);
	exit->npf.fetch = err & BIT(4);
}

static void decode_exception(const struct vmcb *vmcb, const struct guest_regs *regs,
			     struct vm_exit *exit)
{
	u8 vector = vmcb->control.exit_code - SVM_EXIT_EXCP_BASE;

	exit->exc.vector = vector;
	/* Vectors with an error code: SDM Vol 3 §6.15 */
	exit->exc.has_error = vector == 8 || (vector >= 10 && vector <= 14) || vector == 17;
	exit->exc.error_code = vmcb->control.exit_info_1;
}

/* EXITINFO1 bit 63 with decode assists: bits 3:0 are the MOV's GPR (APM
 * Vol 2 §15.33.1); without them the core decodes the instruction. */
static void decode_cr_write(const struct vmcb *vmcb, const struct guest_regs *regs,
			    struct vm_exit *exit)
{
	u64 info = vmcb->control.exit_info_1;

	exit->cr.cr = vmcb->control.exit_code - SVM_EXIT_CR0_WRITE;
	exit->cr.op = CR_WRITE_MOV;
	exit->cr.gpr = info & BIT(63) ? info & 15 : CR_GPR_DECODE;
	exit->info1 = info;
}

static void decode_raw(const struct vmcb *vmcb, const struct guest_regs *regs, struct vm_exit *exit)
{
	exit->info1 = vmcb->control.exit_info_1;
	exit->info2 = vmcb->control.exit_info_2;
}

struct svm_exit_desc svm_exit_table[SVM_EXIT_TABLE_SIZE];

static const struct {
	u16 code;
	struct svm_exit_desc desc;
} exit_codes[] = {
	{ SVM_EXIT_VMMCALL, { EXIT_HYPERCALL, INSN_VMMCALL, NULL } },
	{ SVM_EXIT_CPUID, { EXIT_CPUID, INSN_CPUID, NULL } },
	{ SVM_EXIT_RDPMC, { EXIT_RDPMC, INSN_RDPMC, NULL } },
	{ SVM_EXIT_MSR, { EXIT_MSR_READ, INSN_RDMSR, svm_decode_msr } },
	{ SVM_EXIT_IOIO, { EXIT_IO, INSN_OP_COUNT, decode_ioio } },
	{ SVM_EXIT_HLT, { EXIT_HLT, INSN_HLT, NULL } },
	{ SVM_EXIT_PAUSE, { EXIT_PAUSE, INSN_PAUSE, NULL } },
	{ SVM_EXIT_WBINVD, { EXIT_CACHE_FLUSH, INSN_WBINVD, NULL } },
	{ SVM_EXIT_XSETBV, { EXIT_XSETBV, INSN_XSETBV, NULL } },
	{ SVM_EXIT_CR4_WRITE, { EXIT_CR_WRITE, INSN_MOV_CR, decode_cr_write } },
	{ SVM_EXIT_INVD, { EXIT_CACHE_FLUSH, INSN_INVD, NULL } },
	{ SVM_EXIT_INTR, { EXIT_INTR, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_NMI, { EXIT_NMI, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_SMI, { EXIT_SMI, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_VINTR, { EXIT_INTERRUPT_WINDOW, INSN_OP_COUNT, NULL } },
	/* intercepted only while an NMI handler runs: NMIs are re-evaluated */
	{ SVM_EXIT_IRET, { EXIT_INTERRUPT_WINDOW, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_SHUTDOWN, { EXIT_SHUTDOWN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_VMRUN, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_VMLOAD, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_VMSAVE, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_STGI, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_CLGI, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_SKINIT, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
	{ SVM_EXIT_INVLPGA, { EXIT_VIRT_INSN, INSN_OP_COUNT, NULL } },
};

void svm_exit_table_init(void)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(svm_exit_table); i++)
		svm_exit_table[i] =
		    (struct svm_exit_desc){ EXIT_UNHANDLED, INSN_OP_COUNT, decode_raw };
	for (i = 0; i < 32; i++)
		svm_exit_table[SVM_EXIT_EXCP_BASE + i] =
		    (struct svm_exit_desc){ EXIT_EXCEPTION, INSN_OP_COUNT, decode_exception };
	for (i = 0; i < ARRAY_SIZE(exit_codes); i++)
		svm_exit_table[exit_codes[i].code] = exit_codes[i].desc;
}

static const struct {
	u32 code;
	const char *name;
} exit_names[] = {
	{ SVM_EXIT_INTR, "INTR" },
	{ SVM_EXIT_NMI, "NMI" },
	{ SVM_EXIT_SMI, "SMI" }, /* firmware SMM, taken in the host */
	{ SVM_EXIT_VINTR, "VINTR" },
	{ SVM_EXIT_CPUID, "CPUID" },
	{ SVM_EXIT_IRET, "IRET" },
	{ SVM_EXIT_INVD, "INVD" },
	{ SVM_EXIT_HLT, "HLT" },
	{ SVM_EXIT_PAUSE, "PAUSE" },
	{ SVM_EXIT_INVLPGA, "INVLPGA" },
	{ SVM_EXIT_IOIO, "IOIO" },
	{ SVM_EXIT_MSR, "MSR" },
	{ SVM_EXIT_SHUTDOWN, "SHUTDOWN" },
	{ SVM_EXIT_VMRUN, "VMRUN" },
	{ SVM_EXIT_VMMCALL, "VMMCALL" },
	{ SVM_EXIT_WBINVD, "WBINVD" },
	{ SVM_EXIT_NPF, "NPF" },
	{ SVM_EXIT_INVALID, "VMEXIT_INVALID" },
};

const char *svm_exit_name(u64 code)
{
	unsigned i;

	if (code >= SVM_EXIT_EXCP_BASE && code < SVM_EXIT_EXCP_BASE + 32)
		return "exception";
	if (code < 0x20)
		return "CR access";
	if (code < 0x40)
		return "DR access";
	for (i = 0; i < ARRAY_SIZE(exit_names); i++)
		if (exit_names[i].code == (u32)code)
			return exit_names[i].name;
	/* VMRUN's other failures (APM Vol 2 Table C-1): SEV-ES's, and PMC
	 * virtualization's when the host PerfCntrGlobalCtl is not 0 (§15.39) */
	switch ((u32)code) {
	case SVM_EXIT_BUSY:
		return "VMEXIT_BUSY";
	case SVM_EXIT_IDLE_REQUIRED:
		return "VMEXIT_IDLE_REQUIRED";
	case SVM_EXIT_INVALID_PMC:
		return "VMEXIT_INVALID_PMC";
	}
	return "see APM Vol 2 Appendix C";
}
