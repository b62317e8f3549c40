// SPDX-License-Identifier: MIT
/*
 * The VMRUN consistency checks (APM Vol 2 §15.5.1, event injection §15.20)
 * that name the cause of a VMEXIT_INVALID: a VMCB as mhv builds it passes,
 * and each broken field is named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "svm/svm_vmcb_check.h"
#include "arch/regs.h"

#define PHYS_BITS 40

static struct vmcb vmcb;
static char buf[96];

static const char *check(void)
{
	return svm_vmcb_check(&vmcb, PHYS_BITS, buf, sizeof(buf));
}

/* A 64-bit guest as svm_vcpu_create sets it up. */
static int setup(void **state)
{
	(void)state;
	memset(&vmcb, 0, sizeof(vmcb));
	vmcb.control.intercept_misc2 = INTERCEPT_VMRUN | INTERCEPT_VMMCALL;
	vmcb.control.iopm_base_pa = 0x100000;
	vmcb.control.msrpm_base_pa = 0x104000;
	vmcb.control.guest_asid = 1;
	vmcb.save.cs.attrib = SEG_ATTR_CODE64;
	vmcb.save.efer = EFER_LME | EFER_LMA | EFER_SVME | EFER_NXE;
	vmcb.save.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	vmcb.save.cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	vmcb.save.cr3 = 0x9000;
	vmcb.save.dr6 = 0xffff0ff0;
	vmcb.save.dr7 = 0x400;
	return 0;
}

static void good_vmcb_passes(void **state)
{
	(void)state;
	assert_null(check());
	/* 32-bit protected mode with paging off (a multiboot guest) */
	vmcb.save.cs.attrib = 0xc9b;
	vmcb.save.efer = EFER_SVME;
	vmcb.save.cr0 = CR0_PE | CR0_ET | CR0_NE;
	vmcb.save.cr4 = 0;
	assert_null(check());
	/* an exception with its error code, an external interrupt */
	vmcb.control.event_inj = 14 | EVENT_TYPE_EXCEPTION | EVENT_ERROR_VALID | EVENT_VALID;
	assert_null(check());
	vmcb.control.event_inj = 0x30 | EVENT_TYPE_INTR | EVENT_VALID;
	assert_null(check());
	/* CD and NW both set is legal */
	vmcb.save.cr0 |= CR0_CD | CR0_NW;
	assert_null(check());
}

static void control_registers(void **state)
{
	(void)state;
	vmcb.save.efer &= ~EFER_SVME;
	assert_string_equal(check(), "guest EFER.SVME is 0 (EFER 0xd00)");
	setup(state);
	vmcb.save.cr0 |= CR0_NW;
	assert_non_null(strstr(check(), "CR0.NW is set with CR0.CD clear"));
	setup(state);
	vmcb.save.cr0 |= 1ull << 32;
	assert_non_null(strstr(check(), "sets bits 63:32"));
	setup(state);
	vmcb.save.cr3 |= 1ull << 52;
	assert_string_equal(check(), "guest CR3 0x10000000009000 sets bits 63:52");
	setup(state);
	vmcb.save.cr4 |= 1ull << 40;
	assert_non_null(strstr(check(), "guest CR4"));
	setup(state);
	vmcb.save.dr6 |= 1ull << 33;
	assert_non_null(strstr(check(), "guest DR6"));
	setup(state);
	vmcb.save.dr7 |= 1ull << 63;
	assert_non_null(strstr(check(), "guest DR7"));
	setup(state);
	vmcb.save.efer |= BIT(9);
	assert_string_equal(check(), "guest EFER 0x1f00 sets reserved bits 0x200");
}

static void long_mode(void **state)
{
	(void)state;
	vmcb.save.cr4 &= ~CR4_PAE;
	assert_non_null(strstr(check(), "CR4.PAE clear"));
	setup(state);
	vmcb.save.cr0 &= ~CR0_PE;
	assert_non_null(strstr(check(), "CR0.PE clear"));
	setup(state);
	vmcb.save.cs.attrib |= SEG_ATTR_DB;
	assert_non_null(strstr(check(), "CS has both L and D"));
	/* L and D together are fine outside long mode */
	vmcb.save.efer = EFER_SVME;
	vmcb.save.cr0 &= ~CR0_PG;
	assert_null(check());
}

static void controls(void **state)
{
	(void)state;
	vmcb.control.intercept_misc2 &= ~INTERCEPT_VMRUN;
	assert_string_equal(check(), "the VMRUN intercept is clear");
	setup(state);
	vmcb.control.guest_asid = 0;
	assert_string_equal(check(), "guest ASID 0, the host's");
	setup(state);
	/* the last byte of the 8 KiB map at 2^40 - 0x1000 is beyond */
	vmcb.control.msrpm_base_pa = (1ull << PHYS_BITS) - 0x1000;
	assert_non_null(strstr(check(), "MSR permission map"));
	vmcb.control.msrpm_base_pa = (1ull << PHYS_BITS) - 0x2000;
	assert_null(check());
	vmcb.control.iopm_base_pa = (1ull << PHYS_BITS) - 0x2000;
	assert_non_null(strstr(check(), "I/O permission map"));
	/* width unknown: not checked */
	assert_null(svm_vmcb_check(&vmcb, 0, buf, sizeof(buf)));
}

static void event_injection(void **state)
{
	(void)state;
	/* vector 2 as an exception: NMI is TYPE 2, not an exception */
	vmcb.control.event_inj = 2 | EVENT_TYPE_EXCEPTION | EVENT_VALID;
	assert_string_equal(check(), "illegal event injection: EVENTINJ 0x80000302");
	vmcb.control.event_inj = 0x40 | EVENT_TYPE_EXCEPTION | EVENT_VALID;
	assert_non_null(check());
	/* reserved TYPE 1 and 5..7 */
	vmcb.control.event_inj = 0x20 | 1ull << 8 | EVENT_VALID;
	assert_non_null(check());
	vmcb.control.event_inj = 0x20 | 7ull << 8 | EVENT_VALID;
	assert_non_null(check());
	/* not valid: not looked at */
	vmcb.control.event_inj = 0x20 | 7ull << 8;
	assert_null(check());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(good_vmcb_passes, setup),
		cmocka_unit_test_setup(control_registers, setup),
		cmocka_unit_test_setup(long_mode, setup),
		cmocka_unit_test_setup(controls, setup),
		cmocka_unit_test_setup(event_injection, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
