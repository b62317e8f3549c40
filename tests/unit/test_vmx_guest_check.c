// SPDX-License-Identifier: MIT
/* The guest-state checks mhv makes before VMLAUNCH (SDM Vol 3 §27.3.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmx/vmcs.h"
#include "vmx/vmx_guest_check.h"

/* The state mhv builds for its 64-bit guests, with Skylake-like fixed bits. */
static struct vmx_guest_state good(void)
{
	return (struct vmx_guest_state){
		.cr0 = 0x80010033, /* PG WP NE ET MP PE */
		.cr4 = 0x2620,	   /* VMXE OSXMMEXCPT OSFXSR PAE */
		.efer = 0xd00,	   /* NXE LMA LME */
		.rflags = 0x2,
		.cs_ar = 0xa09b,
		.ss_ar = 0xc093,
		.tr_ar = 0x8b,
		.ldtr_ar = 0x10000,
		.tr_sel = 0x18,
		.entry_controls = ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_EFER,
		.cr0_fixed0 = 0x80000021,
		.cr0_fixed1 = 0xffffffff,
		.cr4_fixed0 = 0x2000,
		.cr4_fixed1 = 0x3767ff,
	};
}

static const char *check(const struct vmx_guest_state *g)
{
	static char buf[160];

	return vmx_check_guest_state(g, buf, sizeof(buf));
}

static void mhv_state_passes(void **state)
{
	struct vmx_guest_state g = good();

	(void)state;
	assert_null(check(&g));
}

/* A multiboot guest's start: 32-bit, paging off, only with unrestricted guest. */
static void unrestricted_guest_paging_off(void **state)
{
	struct vmx_guest_state g = good();

	(void)state;
	g.cr0 = 0x10031; /* WP NE ET PE: no PG */
	g.cr4 = 0x2000;
	g.efer = 0;
	g.cs_ar = 0xc09b;
	g.entry_controls = ENTRY_LOAD_EFER;
	assert_non_null(strstr(check(&g), "0x80000000"));
	g.unrestricted = true;
	assert_null(check(&g));
}

static void each_rule_names_its_field(void **state)
{
	struct vmx_guest_state g;
	const char *why;

	(void)state;
	g = good();
	g.cr0 &= ~0x20ull; /* NE is fixed to 1 */
	why = check(&g);
	assert_non_null(why);
	assert_non_null(strstr(why, "GUEST_CR0"));
	assert_non_null(strstr(why, "0x20"));

	g = good();
	g.cr4 &= ~0x2000ull; /* VMXE is fixed to 1 */
	assert_non_null(strstr(check(&g), "GUEST_CR4"));

	g = good();
	g.cr4 |= 1ull << 22; /* outside CR4_FIXED1 */
	assert_non_null(strstr(check(&g), "GUEST_CR4"));

	g = good();
	g.cr4 &= ~0x20ull; /* IA-32e without PAE */
	assert_non_null(strstr(check(&g), "PAE"));

	g = good();
	g.efer &= ~0x400ull; /* LMA clear with the IA-32e control */
	assert_non_null(strstr(check(&g), "GUEST_IA32_EFER"));

	g = good();
	g.efer &= ~0x100ull; /* LME != LMA with paging */
	assert_non_null(strstr(check(&g), "GUEST_IA32_EFER"));

	g = good();
	g.rflags = 0; /* bit 1 must be 1 */
	assert_non_null(strstr(check(&g), "GUEST_RFLAGS"));
	g.rflags = 0x2 | (1ull << 15); /* reserved */
	assert_non_null(strstr(check(&g), "GUEST_RFLAGS"));

	g = good();
	g.cs_ar = 0xc093; /* a data segment in CS */
	assert_non_null(strstr(check(&g), "GUEST_CS_AR"));
	g.cs_ar = 0xe09b; /* L and D/B */
	assert_non_null(strstr(check(&g), "L and D/B"));

	g = good();
	g.tr_ar = 0x89; /* available, not busy */
	assert_non_null(strstr(check(&g), "GUEST_TR_AR"));
	g = good();
	g.tr_ar = 0x1008b; /* unusable */
	assert_non_null(strstr(check(&g), "GUEST_TR_AR"));
	g = good();
	g.tr_sel = 0x1c; /* TI set: from an LDT */
	assert_non_null(strstr(check(&g), "GUEST_TR_SEL"));

	g = good();
	g.ldtr_ar = 0x89; /* usable but not an LDT */
	assert_non_null(strstr(check(&g), "GUEST_LDTR_AR"));
	g.ldtr_ar = 0x82;
	assert_null(check(&g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mhv_state_passes),
		cmocka_unit_test(unrestricted_guest_paging_off),
		cmocka_unit_test(each_rule_names_its_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
