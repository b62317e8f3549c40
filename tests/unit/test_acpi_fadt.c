// SPDX-License-Identifier: MIT
/* The FADT as mhv reads it (ACPI 6.5 §5.2.9): the PM timer, X_PM_TMR_BLK
 * before PM_TMR_BLK, 24 or 32 bits; the reset register and its flag; short
 * and malformed tables refused with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform/acpi.h"
#include "platform/acpi_fadt.h"
#include "lib/mem_map.h"
#include "tests/common/acpi_build.h"

/* Table 5.9 offsets and Table 5.10 flags, written here from the spec, not
 * taken from the code under test */
#define PM_TMR_BLK 76
#define FLAGS 112
#define RESET_REG 116
#define RESET_VALUE 128
#define X_PM_TMR_BLK 208
#define TMR_VAL_EXT (1u << 8)
#define RESET_REG_SUP (1u << 10)
#define HW_REDUCED (1u << 20)

static uint8_t fadt[276];

static void gas(unsigned at, uint8_t space, uint8_t width, uint64_t addr)
{
	fadt[at] = space;
	fadt[at + 1] = width;
	fadt[at + 2] = 0;
	fadt[at + 3] = width == 8 ? 1 : 3; /* byte / dword access */
	memcpy(fadt + at + 4, &addr, 8);
}

/* A FADT of len bytes (276: ACPI 6.x; 244: ACPI 2.0; 116: ACPI 1.0). */
static void build(uint32_t len, uint32_t pm_tmr_blk, uint32_t flags)
{
	memset(fadt, 0, sizeof(fadt));
	acpi_build_header(fadt, "FACP", len);
	fadt[8] = len >= 244 ? 6 : 1;
	memcpy(fadt + PM_TMR_BLK, &pm_tmr_blk, 4);
	memcpy(fadt + FLAGS, &flags, 4);
	acpi_build_checksum(fadt, len, 9);
}

static void test_pm_timer_legacy(void **state)
{
	struct acpi_pm_timer t;
	const char *why = NULL;

	/* ACPI 1.0 table: PM_TMR_BLK only, 24 bits */
	build(116, 0x608, 0);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(t.space, GAS_SYSTEM_IO);
	assert_int_equal(t.address, 0x608);
	assert_int_equal(t.mask, 0xffffff);
	assert_string_equal(t.field, "PM_TMR_BLK");
	/* ACPI 6 table with X_PM_TMR_BLK 0: PM_TMR_BLK, 32 bits */
	build(276, 0x408, TMR_VAL_EXT);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(t.address, 0x408);
	assert_int_equal(t.mask, 0xffffffffu);
	assert_string_equal(t.field, "PM_TMR_BLK");
}

static void test_pm_timer_extended(void **state)
{
	struct acpi_pm_timer t;
	const char *why = NULL;

	/* X_PM_TMR_BLK wins over PM_TMR_BLK when it is there and not 0 */
	build(276, 0x608, 0);
	gas(X_PM_TMR_BLK, GAS_SYSTEM_IO, 32, 0x1808);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(t.space, GAS_SYSTEM_IO);
	assert_int_equal(t.address, 0x1808);
	assert_int_equal(t.mask, 0xffffff);
	assert_string_equal(t.field, "X_PM_TMR_BLK");
	/* PM_TMR_BLK 0, X_PM_TMR_BLK in memory (ACPI 2.0 table), 32 bits */
	build(244, 0, TMR_VAL_EXT);
	gas(X_PM_TMR_BLK, GAS_SYSTEM_MEMORY, 32, 0xfed80808ull);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(t.space, GAS_SYSTEM_MEMORY);
	assert_int_equal(t.address, 0xfed80808ull);
	assert_int_equal(t.mask, 0xffffffffu);
	/* a table that ends before X_PM_TMR_BLK: its bytes are not read */
	build(208, 0x608, 0);
	gas(X_PM_TMR_BLK, GAS_SYSTEM_IO, 32, 0x1808);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(t.address, 0x608);
	/* X_PM_TMR_BLK in PCI configuration space: not a timer mhv can read */
	build(276, 0, 0);
	gas(X_PM_TMR_BLK, GAS_PCI_CONFIG, 32, 0x1808);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), -1);
	assert_non_null(why);
}

static void test_pm_timer_refused(void **state)
{
	struct acpi_pm_timer t;
	const char *why = NULL;

	assert_int_equal(acpi_fadt_pm_timer(NULL, &t, &why), -1);
	assert_string_equal(why, "no ACPI FADT");
	build(100, 0x608, 0);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), -1);
	assert_string_equal(why, "ACPI FADT shorter than 116 bytes");
	build(276, 0, 0);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), -1);
	assert_string_equal(why, "the FADT names no PM timer port");
	build(276, 0x608, HW_REDUCED);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), -1);
	assert_string_equal(why, "the FADT says hardware-reduced ACPI: no PM timer");
}

static void test_reset_reg(void **state)
{
	struct acpi_reset_reg r;
	const char *why = NULL;

	/* QEMU q35's: I/O port 0xCF9, value 0x0F */
	build(276, 0x608, RESET_REG_SUP);
	gas(RESET_REG, GAS_SYSTEM_IO, 8, 0xcf9);
	fadt[RESET_VALUE] = 0x0f;
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), 0);
	assert_int_equal(r.space, GAS_SYSTEM_IO);
	assert_int_equal(r.address, 0xcf9);
	assert_int_equal(r.value, 0x0f);
	/* memory and bus 0 PCI configuration space are allowed too */
	gas(RESET_REG, GAS_SYSTEM_MEMORY, 8, 0xfed80000ull);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), 0);
	assert_int_equal(r.space, GAS_SYSTEM_MEMORY);
	gas(RESET_REG, GAS_PCI_CONFIG, 8, 0x0000001f000000acull);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), 0);
	assert_int_equal(r.space, GAS_PCI_CONFIG);
	/* the flag clear: the register is not valid whatever it holds */
	build(276, 0x608, 0);
	gas(RESET_REG, GAS_SYSTEM_IO, 8, 0xcf9);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	assert_string_equal(why, "the FADT has no reset register (RESET_REG_SUP clear)");
	/* an ACPI 1.0 table (116 bytes) has no RESET_REG at all */
	build(116, 0x608, RESET_REG_SUP);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	/* bad spaces, widths and addresses */
	build(276, 0x608, RESET_REG_SUP);
	gas(RESET_REG, 3 /* embedded controller */, 8, 0x10);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	gas(RESET_REG, GAS_SYSTEM_IO, 16, 0xcf9);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	gas(RESET_REG, GAS_SYSTEM_IO, 8, 0);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	gas(RESET_REG, GAS_SYSTEM_IO, 8, 0x10000);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
}

/* A PM timer or reset register in RAM of the firmware's map is refused:
 * reading it counts nothing, writing it overwrites memory.  I/O ports are
 * not memory and stay. */
static void test_registers_in_ram(void **state)
{
	static struct boot_info map;
	struct acpi_pm_timer t;
	struct acpi_reset_reg r;
	const char *why = NULL;

	mem_map_reset(&map);
	mem_map_add(&map, 0x100000, 0x7ff00, 7); /* conventional, 1 MiB - 2 GiB */
	mem_map_add(&map, 0xfed80000, 0x1, 11);	 /* MMIO: AMD's ACPI block */
	acpi_set_memory_map(&map);
	build(276, 0x608, RESET_REG_SUP);
	gas(X_PM_TMR_BLK, GAS_SYSTEM_MEMORY, 32, 0xfed80008);
	gas(RESET_REG, GAS_SYSTEM_MEMORY, 8, 0xfed80000);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), 0);
	gas(X_PM_TMR_BLK, GAS_SYSTEM_MEMORY, 32, 0x200000);
	gas(RESET_REG, GAS_SYSTEM_MEMORY, 8, 0x7fffffff);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), -1);
	assert_string_equal(why, "the FADT's X_PM_TMR_BLK is in RAM of the memory map");
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), -1);
	assert_string_equal(why, "the FADT's reset register is in RAM of the memory map");
	/* the same numbers as I/O ports are no memory */
	gas(X_PM_TMR_BLK, GAS_SYSTEM_IO, 32, 0x608);
	gas(RESET_REG, GAS_SYSTEM_IO, 8, 0xcf9);
	assert_int_equal(acpi_fadt_pm_timer(fadt, &t, &why), 0);
	assert_int_equal(acpi_fadt_reset_reg(fadt, &r, &why), 0);
	acpi_set_memory_map(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pm_timer_legacy),	 cmocka_unit_test(test_pm_timer_extended),
		cmocka_unit_test(test_pm_timer_refused), cmocka_unit_test(test_reset_reg),
		cmocka_unit_test(test_registers_in_ram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
