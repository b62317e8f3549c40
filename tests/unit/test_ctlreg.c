// SPDX-License-Identifier: MIT
/* MOV to CR0/CR4 checks (SDM Vol 2B MOV CR, SDM Vol 3 §2.5; APM Vol 2 §3.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/ctlreg.h"

/* 64-bit mode with 4-level paging, as KUT runs */
static const struct ctlreg_state long_mode = {
	.cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_WP | CR0_PG,
	.cr3 = 0x1000,
	.cr4 = CR4_PAE,
	.efer = EFER_LME | EFER_LMA,
	.code64 = true,
	.cr4_valid = CR4_PAE | CR4_PGE | CR4_PSE | CR4_OSFXSR | CR4_PCE | CR4_LA57 | CR4_CET,
};

static void cr4_valid_from_cpuid(void **state)
{
	u64 v;

	(void)state;
	/* nothing offered: only PCE */
	assert_int_equal(ctlreg_cr4_valid(0, 0, 0, 0, 0, 0), CR4_PCE);
	/* leaf 1 EDX VME (1) gives VME and PVI; ECX PCID (17), VMX (5) */
	v = ctlreg_cr4_valid(BIT(17) | BIT(5), BIT(1), 0, 0, 0, 0);
	assert_int_equal(v, CR4_PCE | CR4_VME | CR4_PVI | CR4_PCIDE | CR4_VMXE);
	/* leaf 7: FSGSBASE EBX[0], SMEP EBX[7], UMIP ECX[2], PKS ECX[31];
	 * CET from either CET_SS ECX[7] or CET_IBT EDX[20]; LAM EAX[26] of 7.1 */
	v = ctlreg_cr4_valid(0, 0, BIT(0) | BIT(7), BIT(2) | BIT(31), 0, BIT(26));
	assert_int_equal(v, CR4_PCE | CR4_FSGSBASE | CR4_SMEP | CR4_UMIP | CR4_PKS | CR4_LAM_SUP);
	assert_true(ctlreg_cr4_valid(0, 0, 0, 0, BIT(20), 0) & CR4_CET);
	assert_true(ctlreg_cr4_valid(0, 0, 0, BIT(7), 0, 0) & CR4_CET);
}

static void cr4_writes(void **state)
{
	struct ctlreg_state s = long_mode;

	(void)state;
	assert_true(ctlreg_cr4_write(&s, CR4_PAE | CR4_PGE));
	/* not offered: PCIDE here, VMXE, bits 63:32 */
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | CR4_PCIDE));
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | CR4_VMXE));
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | BIT(40)));
	/* IA-32e mode keeps PAE and its paging depth */
	assert_false(ctlreg_cr4_write(&s, CR4_PGE));
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | CR4_LA57));
	s.efer = EFER_LME;
	s.code64 = false;
	assert_true(ctlreg_cr4_write(&s, CR4_LA57));
	/* PCIDE: long mode and CR3[11:0] = 0 when it is set */
	s = long_mode;
	s.cr4_valid |= CR4_PCIDE;
	assert_true(ctlreg_cr4_write(&s, CR4_PAE | CR4_PCIDE));
	s.cr3 = 0x1001;
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | CR4_PCIDE));
	s.cr4 |= CR4_PCIDE; /* already set: CR3 holds a PCID */
	assert_true(ctlreg_cr4_write(&s, CR4_PAE | CR4_PCIDE));
	s = long_mode;
	s.cr4_valid |= CR4_PCIDE;
	s.efer = 0;
	s.cr4 = 0;
	assert_false(ctlreg_cr4_write(&s, CR4_PCIDE));
	/* CET needs WP */
	s = long_mode;
	assert_true(ctlreg_cr4_write(&s, CR4_PAE | CR4_CET));
	s.cr0 &= ~CR0_WP;
	assert_false(ctlreg_cr4_write(&s, CR4_PAE | CR4_CET));
}

static void cr0_writes(void **state)
{
	struct ctlreg_state s = long_mode;
	u64 v;

	(void)state;
	/* KUT's: PE|WP|PG without NE, and reserved bits 31:0 dropped, ET set */
	v = CR0_PE | CR0_WP | CR0_PG | BIT(6);
	assert_true(ctlreg_cr0_write(&s, &v));
	assert_int_equal(v, CR0_PE | CR0_ET | CR0_WP | CR0_PG);
	v = s.cr0 | CR0_CD | CR0_NW;
	assert_true(ctlreg_cr0_write(&s, &v));
	v = s.cr0 | CR0_NW;
	assert_false(ctlreg_cr0_write(&s, &v));
	v = s.cr0 | BIT(32);
	assert_false(ctlreg_cr0_write(&s, &v));
	/* paging off in 64-bit mode or with PCIDE */
	v = CR0_PE;
	assert_false(ctlreg_cr0_write(&s, &v));
	s.code64 = false;
	assert_true(ctlreg_cr0_write(&s, &v));
	s.cr4 |= CR4_PCIDE;
	assert_false(ctlreg_cr0_write(&s, &v));
	/* PG without PE */
	s = (struct ctlreg_state){ .cr0 = CR0_ET };
	v = CR0_PG;
	assert_false(ctlreg_cr0_write(&s, &v));
	/* IA-32e mode activation needs PAE */
	s = (struct ctlreg_state){ .cr0 = CR0_PE | CR0_ET, .efer = EFER_LME };
	v = CR0_PE | CR0_PG;
	assert_false(ctlreg_cr0_write(&s, &v));
	s.cr4 = CR4_PAE;
	assert_true(ctlreg_cr0_write(&s, &v));
	/* WP stays on under CET */
	s = long_mode;
	s.cr4 |= CR4_CET;
	v = s.cr0 & ~CR0_WP;
	assert_false(ctlreg_cr0_write(&s, &v));
}

/* The host's stray #DB test (host/nmi_mce.c): armed only by a DR7 enable,
 * DR7.GD or TF; DR7's fixed bit 10 and the length/type fields alone arm
 * nothing. */
static void debug_armed_needs_an_enable(void **state)
{
	unsigned i;

	(void)state;
	assert_false(debug_armed(DR7_INIT, RFLAGS_FIXED1 | RFLAGS_IF));
	assert_false(debug_armed(DR7_INIT | 0xffff0000ull, RFLAGS_FIXED1));
	for (i = 0; i < 8; i++)
		assert_true(debug_armed(DR7_INIT | BIT(i), RFLAGS_FIXED1));
	assert_true(debug_armed(DR7_INIT | DR7_GD, RFLAGS_FIXED1));
	assert_true(debug_armed(DR7_INIT, RFLAGS_FIXED1 | RFLAGS_TF));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cr4_valid_from_cpuid),
		cmocka_unit_test(cr4_writes),
		cmocka_unit_test(cr0_writes),
		cmocka_unit_test(debug_armed_needs_an_enable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
