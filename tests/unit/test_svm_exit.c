// SPDX-License-Identifier: MIT
/* The SVM exit decode table: exit codes to normalised exits (APM Vol 2 Appendix C). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "svm/svm_exit.h"
#include "arch/segment.h"

bool svm_has_nrips;

static struct vmcb vmcb;
static struct guest_regs regs;

static struct vm_exit decode(u64 code, u64 info1, u64 info2)
{
	struct vm_exit exit;

	memset(&exit, 0xa5, sizeof(exit));
	vmcb.control.exit_code = code;
	vmcb.control.exit_info_1 = info1;
	vmcb.control.exit_info_2 = info2;
	svm_decode_exit(&vmcb, &regs, &exit, svm_has_nrips);
	return exit;
}

static int setup(void **state)
{
	(void)state;
	memset(&vmcb, 0, sizeof(vmcb));
	memset(&regs, 0, sizeof(regs));
	svm_has_nrips = false;
	svm_exit_table_init();
	return 0;
}

static void simple_exits(void **state)
{
	static const struct {
		u64 code;
		enum exit_kind kind;
		enum insn_op insn;
	} cases[] = {
		{ 0x081, EXIT_HYPERCALL, INSN_VMMCALL },
		{ 0x072, EXIT_CPUID, INSN_CPUID },
		{ 0x078, EXIT_HLT, INSN_HLT },
		{ 0x089, EXIT_CACHE_FLUSH, INSN_WBINVD },
		{ 0x076, EXIT_CACHE_FLUSH, INSN_INVD },
		{ 0x060, EXIT_INTR, INSN_OP_COUNT },
		{ 0x061, EXIT_NMI, INSN_OP_COUNT },
		{ 0x062, EXIT_SMI, INSN_OP_COUNT },
		{ 0x07f, EXIT_SHUTDOWN, INSN_OP_COUNT },
		{ 0x080, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x082, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x083, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x084, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x085, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x086, EXIT_VIRT_INSN, INSN_OP_COUNT },
		{ 0x07a, EXIT_VIRT_INSN, INSN_OP_COUNT },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vm_exit e = decode(cases[i].code, 0, 0);

		assert_int_equal(e.kind, cases[i].kind);
		assert_int_equal(e.insn, cases[i].insn);
		assert_int_equal(e.vendor_code, cases[i].code);
		assert_int_equal(e.next_rip, 0); /* no NRIP save */
	}
}

/* MOV to CR4: the GPR from decode assists (APM Vol 2 §15.33.1), else decoded later */
static void cr4_write(void **state)
{
	struct vm_exit e;

	(void)state;
	e = decode(0x014, BIT(63) | 5, 0);
	assert_int_equal(e.kind, EXIT_CR_WRITE);
	assert_int_equal(e.insn, INSN_MOV_CR);
	assert_int_equal(e.cr.cr, 4);
	assert_int_equal(e.cr.op, CR_WRITE_MOV);
	assert_int_equal(e.cr.gpr, 5);
	e = decode(0x014, 0, 0);
	assert_int_equal(e.cr.gpr, CR_GPR_DECODE);
}

static void next_rip_only_with_nrips(void **state)
{
	(void)state;
	vmcb.control.next_rip = 0x1234;
	assert_int_equal(decode(0x072, 0, 0).next_rip, 0);
	svm_has_nrips = true;
	assert_int_equal(decode(0x072, 0, 0).next_rip, 0x1234);
}

static void msr_read_and_write(void **state)
{
	struct vm_exit e;

	(void)state;
	regs.gpr[GPR_RCX] = 0xffffffffc0000102ull; /* only ECX names the MSR */
	e = decode(0x07c, 0, 0);
	assert_int_equal(e.kind, EXIT_MSR_READ);
	assert_int_equal(e.insn, INSN_RDMSR);
	assert_int_equal(e.msr.index, 0xc0000102);
	e = decode(0x07c, 1, 0);
	assert_int_equal(e.kind, EXIT_MSR_WRITE);
	assert_int_equal(e.insn, INSN_WRMSR);
}

static void ioio(void **state)
{
	struct vm_exit e;

	(void)state;
	/* inb from 0x3fd: TYPE=1, SZ8 (bit 4), port in 31:16; EXITINFO2 = next RIP */
	e = decode(0x07b, (0x3fdull << 16) | (1 << 4) | 1, 0x100005);
	assert_int_equal(e.kind, EXIT_IO);
	assert_true(e.io.in);
	assert_false(e.io.string);
	assert_int_equal(e.io.size, 1);
	assert_int_equal(e.io.port, 0x3fd);
	assert_int_equal(e.next_rip, 0x100005);
	/* rep outsw to 0xe0 */
	e = decode(0x07b, (0xe0ull << 16) | (1 << 5) | (1 << 3) | (1 << 2), 0x200000);
	assert_false(e.io.in);
	assert_true(e.io.string);
	assert_true(e.io.rep);
	assert_int_equal(e.io.size, 2);
	/* no A16/A32/A64 (QEMU): the address size is not known; SEG never is */
	assert_int_equal(e.io.addr_bits, 0);
	assert_int_equal(e.io.seg, SEG_REG_COUNT);
	/* rep insb with A64 (bit 9), A32 (bit 8), A16 (bit 7), as Bochs gives */
	e = decode(0x07b, (0xe0ull << 16) | (1 << 9) | (1 << 4) | (1 << 3) | (1 << 2) | 1,
		   0x200000);
	assert_true(e.io.in);
	assert_int_equal(e.io.addr_bits, 64);
	e = decode(0x07b, (0xe0ull << 16) | (1 << 8) | (1 << 4) | (1 << 2) | 1, 0x200000);
	assert_int_equal(e.io.addr_bits, 32);
	e = decode(0x07b, (0xe0ull << 16) | (1 << 7) | (1 << 4) | (1 << 2) | 1, 0x200000);
	assert_int_equal(e.io.addr_bits, 16);
	/* outl */
	e = decode(0x07b, (0xf4ull << 16) | (1 << 6), 0x300000);
	assert_int_equal(e.io.size, 4);
	assert_int_equal(e.io.port, 0xf4);
}

static void npf(void **state)
{
	struct vm_exit e;

	(void)state;
	/* write to a not-present page, instruction fetch bit clear */
	e = decode(0x400, 0x2, 0xc0000008);
	assert_int_equal(e.kind, EXIT_NPF);
	assert_int_equal(e.npf.gpa, 0xc0000008);
	assert_true(e.npf.write);
	assert_false(e.npf.present);
	assert_false(e.npf.fetch);
	e = decode(0x400, 0x11, 0x80000000);
	assert_true(e.npf.fetch);
	assert_true(e.npf.present);
	assert_false(e.npf.write);
}

static void exceptions(void **state)
{
	struct vm_exit e;

	(void)state;
	e = decode(0x040 + 1, 0, 0);
	assert_int_equal(e.kind, EXIT_EXCEPTION);
	assert_int_equal(e.exc.vector, 1);
	assert_false(e.exc.has_error);
	e = decode(0x040 + 17, 0, 0);
	assert_int_equal(e.exc.vector, 17);
	assert_true(e.exc.has_error);
	e = decode(0x040 + 14, 0x6, 0);
	assert_true(e.exc.has_error);
	assert_int_equal(e.exc.error_code, 0x6);
}

static void invalid_and_unknown(void **state)
{
	struct vm_exit e;

	(void)state;
	/* QEMU reports VMEXIT_INVALID as 0x00000000ffffffff, hardware as -1 */
	assert_int_equal(decode(0xffffffffull, 0, 0).kind, EXIT_INVALID);
	assert_int_equal(decode(~0ull, 0, 0).kind, EXIT_INVALID);
	/* VMRUN's failure codes by name (Table C-1), 64-bit or QEMU's 32 */
	assert_string_equal(svm_exit_name(~0ull), "VMEXIT_INVALID");
	assert_string_equal(svm_exit_name(-4ull), "VMEXIT_INVALID_PMC");
	assert_string_equal(svm_exit_name(0xfffffffeull), "VMEXIT_BUSY");
	assert_string_equal(svm_exit_name(-3ull), "VMEXIT_IDLE_REQUIRED");
	assert_string_equal(svm_exit_name(0x401), "see APM Vol 2 Appendix C");
	e = decode(0x401, 7, 9); /* AVIC incomplete IPI: not handled */
	assert_int_equal(e.kind, EXIT_UNHANDLED);
	assert_int_equal(e.info1, 7);
	assert_int_equal(e.info2, 9);
	e = decode(0x065, 3, 4); /* CR0 selective write: not intercepted, unknown */
	assert_int_equal(e.kind, EXIT_UNHANDLED);
	assert_int_equal(e.info1, 3);
	assert_int_equal(e.insn, INSN_OP_COUNT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(simple_exits, setup),
		cmocka_unit_test_setup(next_rip_only_with_nrips, setup),
		cmocka_unit_test_setup(cr4_write, setup),
		cmocka_unit_test_setup(msr_read_and_write, setup),
		cmocka_unit_test_setup(ioio, setup),
		cmocka_unit_test_setup(npf, setup),
		cmocka_unit_test_setup(exceptions, setup),
		cmocka_unit_test_setup(invalid_and_unknown, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
