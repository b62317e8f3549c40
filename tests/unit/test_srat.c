// SPDX-License-Identifier: MIT
/*
 * Host tests for hv/platform/srat.c: synthetic SRATs as a two-socket
 * server's firmware lays them out (ACPI 6.5 §5.2.16), and malformed ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "platform/srat.h"
#include "../common/acpi_build.h"

#define GIB (1ull << 30)

static uint8_t table[4096];
static uint32_t used;

static void begin(void)
{
	memset(table, 0, sizeof(table));
	used = 48; /* header, then table revision 1 and 8 reserved bytes */
	table[36] = 1;
}

static uint8_t *entry(uint8_t type, uint8_t len)
{
	uint8_t *e = table + used;

	e[0] = type;
	e[1] = len;
	used += len;
	return e;
}

/* Type 0, Processor Local APIC/SAPIC Affinity (ACPI 6.5 Table 5.69) */
static void apic(uint8_t id, uint32_t pxm, bool enabled)
{
	uint8_t *e = entry(0, 16);
	uint32_t flags = enabled;

	e[2] = pxm & 0xff;
	e[3] = id;
	memcpy(e + 4, &flags, 4);
	e[9] = pxm >> 8;
	e[10] = pxm >> 16;
	e[11] = pxm >> 24;
}

/* Type 1, Memory Affinity (ACPI 6.5 Table 5.71) */
static void memory(uint32_t pxm, uint64_t base, uint64_t len, uint32_t flags)
{
	uint8_t *e = entry(1, 40);

	memcpy(e + 2, &pxm, 4);
	memcpy(e + 8, &base, 8); /* base low, base high */
	memcpy(e + 16, &len, 8); /* length low, length high */
	memcpy(e + 28, &flags, 4);
}

/* Type 2, Processor Local x2APIC Affinity (ACPI 6.5 Table 5.73) */
static void x2apic(uint32_t id, uint32_t pxm, bool enabled)
{
	uint8_t *e = entry(2, 24);
	uint32_t flags = enabled;

	memcpy(e + 4, &pxm, 4);
	memcpy(e + 8, &id, 4);
	memcpy(e + 12, &flags, 4);
}

static const void *end(void)
{
	acpi_build_header(table, "SRAT", used);
	table[8] = 3;
	acpi_build_checksum(table, used, 9);
	return table;
}

/*
 * Two sockets with sparse proximity domains 2 and 7 (nodes 0 and 1 in
 * order of appearance), 8 CPUs each, memory interleaved in the table;
 * a disabled CPU, a hot-plug range that is not enabled, an x2APIC CPU
 * above 255, and a structure of a type mhv does not read (GICC).
 */
static const void *two_sockets(void)
{
	unsigned i;

	begin();
	for (i = 0; i < 16; i++)
		apic(i, i < 8 ? 2 : 7, true);
	apic(16, 7, false);
	memory(2, 0, 0xa0000, 1);
	memory(2, 1ull << 20, 2 * GIB - (1ull << 20), 1);
	memory(7, 260 * GIB, 256 * GIB, 1);
	memory(2, 4 * GIB, 256 * GIB, 1);
	memory(7, 1024 * GIB, 64 * GIB, 2); /* hot-pluggable, not enabled */
	memory(7, 600 * GIB, 0, 1);	    /* empty */
	x2apic(300, 7, true);
	x2apic(301, 9, false);
	entry(3, 18); /* GICC Affinity: skipped */
	return end();
}

static void test_two_sockets(void **state)
{
	struct srat_info info;
	const char *why = NULL;
	const void *t = two_sockets();

	(void)state;
	assert_int_equal(srat_parse(t, &info, &why), 0);
	assert_null(why);
	assert_int_equal(info.nr_nodes, 2);
	assert_int_equal(info.pxm[0], 2);
	assert_int_equal(info.pxm[1], 7);
	assert_int_equal(info.nr_cpus, 17);
	assert_int_equal(info.nr_mem, 4);
	assert_int_equal(info.mem[2].base, 260 * GIB);
	assert_int_equal(info.mem[2].end, 516 * GIB);
	assert_int_equal(info.mem[2].node, 1);
	assert_int_equal(info.mem[3].node, 0);
	assert_int_equal(srat_cpu_node(t, &info, 0), 0);
	assert_int_equal(srat_cpu_node(t, &info, 7), 0);
	assert_int_equal(srat_cpu_node(t, &info, 8), 1);
	assert_int_equal(srat_cpu_node(t, &info, 15), 1);
	assert_int_equal(srat_cpu_node(t, &info, 16), -1); /* disabled */
	assert_int_equal(srat_cpu_node(t, &info, 300), 1);
	assert_int_equal(srat_cpu_node(t, &info, 301), -1);
	assert_int_equal(srat_cpu_node(t, &info, 44), -1);
	assert_int_equal(srat_addr_node(&info, 0x1000), 0);
	assert_int_equal(srat_addr_node(&info, 0xb0000), -1);
	assert_int_equal(srat_addr_node(&info, 3 * GIB), -1);
	assert_int_equal(srat_addr_node(&info, 5 * GIB), 0);
	assert_int_equal(srat_addr_node(&info, 260 * GIB - 1), 0);
	assert_int_equal(srat_addr_node(&info, 260 * GIB), 1);
	assert_int_equal(srat_addr_node(&info, 516 * GIB), -1);
	assert_int_equal(srat_addr_node(&info, 1024 * GIB), -1);
}

/* A 32-bit proximity domain in type 0 (bytes 2 and 9..11). */
static void test_wide_domain(void **state)
{
	struct srat_info info;
	const char *why;
	const void *t;

	(void)state;
	begin();
	apic(1, 0x12345678, true);
	memory(0x12345678, 0, 1 * GIB, 1);
	t = end();
	assert_int_equal(srat_parse(t, &info, &why), 0);
	assert_int_equal(info.nr_nodes, 1);
	assert_int_equal(info.pxm[0], 0x12345678);
	assert_int_equal(srat_cpu_node(t, &info, 1), 0);
}

static void test_malformed(void **state)
{
	struct srat_info info;
	const char *why;

	(void)state;
	/* a structure that runs past the end */
	begin();
	apic(0, 0, true);
	entry(1, 40);
	used -= 8;
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT structure runs past the table's end");
	/* a zero length would loop for ever */
	begin();
	entry(0, 0);
	used += 16;
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT structure with a length below 2");
	/* a memory structure too short for its fields */
	begin();
	entry(1, 20);
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT structure shorter than its type");
	/* shorter than its header */
	begin();
	used = 40;
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT shorter than its header");
	/* a range past 2^64 */
	begin();
	memory(0, ~0ull - 0xfff, 0x2000, 1);
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT memory range wraps past the end of the address space");
	/* more domains than mhv keeps */
	begin();
	for (unsigned i = 0; i <= SRAT_MAX_NODES; i++)
		x2apic(i, i, true);
	assert_int_equal(srat_parse(end(), &info, &why), -1);
	assert_string_equal(why, "SRAT has more proximity domains than mhv keeps");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets),
		cmocka_unit_test(test_wide_domain),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
