// SPDX-License-Identifier: MIT
/*
 * The guest's port table (hv/core/io_ports.h) as a whole.  io.c takes the
 * first range that covers a port, so a range that covers a port of
 * another device hides that device: no two ranges may share a port, and
 * each port a device model serves must reach that device's handlers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/io_ports.h"
#include "vdev/ioapic.h"

struct range {
	unsigned base, count;
	const char *in, *out;
	bool fast;
};

#define RANGE(base, count, in, out, fast) { base, count, #in, #out, fast },
static const struct range ranges[] = {
	PORT_DEVICE_LIST(RANGE)
	/* written with no device: the pc-testdev interrupt lines (io.c) */
	{ GUEST_IRQ_LINE_PORT, IOAPIC_PINS, "write_only_in", "out_no_device", false },
};
#undef RANGE
#define NR_RANGES (sizeof(ranges) / sizeof(ranges[0]))

/* What io.c's search finds for @port: the first range covering it. */
static const struct range *first_match(unsigned port)
{
	unsigned i;

	for (i = 0; i < NR_RANGES; i++)
		if (port - ranges[i].base < ranges[i].count)
			return &ranges[i];
	return NULL;
}

static void no_range_covers_another(void **state)
{
	unsigned i, j;

	for (i = 0; i < NR_RANGES; i++) {
		assert_true(ranges[i].count > 0);
		assert_true(ranges[i].base + ranges[i].count <= 0x10000);
		for (j = i + 1; j < NR_RANGES; j++)
			if (ranges[i].base < ranges[j].base + ranges[j].count &&
			    ranges[j].base < ranges[i].base + ranges[i].count)
				fail_msg("ports 0x%x+%u (%s) and 0x%x+%u (%s) overlap",
					 ranges[i].base, ranges[i].count, ranges[i].in,
					 ranges[j].base, ranges[j].count, ranges[j].in);
	}
}

/* Every port of every range is found in its own range. */
static void each_port_reaches_its_range(void **state)
{
	unsigned i, port;

	for (i = 0; i < NR_RANGES; i++)
		for (port = ranges[i].base; port < ranges[i].base + ranges[i].count; port++)
			if (first_match(port) != &ranges[i])
				fail_msg("port 0x%x of %s is served by %s", port, ranges[i].in,
					 first_match(port)->in);
}

/*
 * The fast exit path calls only the devices marked PORT_FAST, which never
 * wait: on SVM it runs with GIF clear, which holds SMIs (svm/svm.h).  A
 * guest's COM1 write prints its console line on the host's screen and
 * UARTs and may wait for them: general path only.  Before, the fast path
 * called serial_out with GIF clear.
 */
static void fast_devices_never_print(void **state)
{
	unsigned i, n = 0;

	for (i = 0; i < NR_RANGES; i++) {
		if (!ranges[i].fast)
			continue;
		n++;
		if (!strcmp(ranges[i].out, "serial_out") ||
		    (GUEST_SERIAL_PORT < ranges[i].base + ranges[i].count &&
		     ranges[i].base < GUEST_SERIAL_PORT + 8))
			fail_msg("the fast path may call the UART at 0x%x", ranges[i].base);
	}
	assert_true(n > 0);
}

/* The PC's ports by their devices (the 8042 at 0x60 and 0x64 only, the
 * PIT's gate and OUT2 at 0x61 in between), and gaps that stay empty. */
static void pc_ports_by_device(void **state)
{
	static const struct {
		unsigned port;
		const char *in;
	} want[] = {
		{ 0x40, "pit_port_in" },
		{ 0x43, "pit_port_in" },
		{ 0x60, "i8042_data_in" },
		{ 0x61, "port_b_in" },
		{ 0x64, "i8042_status_in" },
		{ 0x70, "rtc_port_in" },
		{ 0x71, "rtc_port_in" },
		{ 0x92, "sysctl_a_in" },
		{ 0xcf9, "rst_cnt_in" },
		{ 0x3f8, "serial_in" },
		{ 0x62, NULL },
		{ 0x63, NULL },
		{ 0x65, NULL },
		{ 0x44, NULL },
	};
	unsigned i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct range *r = first_match(want[i].port);

		if (!want[i].in) {
			if (r)
				fail_msg("port 0x%x: %s, not empty", want[i].port, r->in);
			continue;
		}
		if (!r || strcmp(r->in, want[i].in))
			fail_msg("port 0x%x: %s, not %s", want[i].port, r ? r->in : "no device",
				 want[i].in);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_range_covers_another),
		cmocka_unit_test(each_port_reaches_its_range),
		cmocka_unit_test(pc_ports_by_device),
		cmocka_unit_test(fast_devices_never_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
