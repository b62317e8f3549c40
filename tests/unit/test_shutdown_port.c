// SPDX-License-Identifier: MIT
/*
 * Bochs' shutdown port matcher (hv/vdev/shutdown_port.h): "Shutdown"
 * completes it, anything else starts over, and whatever count it is given
 * (a count several vCPUs' writes pushed past the word's end, a stale one)
 * it reads only inside its 9-byte word (ASan watches that).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vdev/shutdown_port.h"

static u8 feed(u8 m, const char *s)
{
	while (*s)
		m = shutdown_port_match(m, (u8)*s++);
	return m;
}

static void word_completes(void **state)
{
	assert_int_equal(feed(0, "Shutdown"), SHUTDOWN_PORT_WORD_LEN);
	assert_int_equal(feed(0, "ShutShutdown"), SHUTDOWN_PORT_WORD_LEN);
	assert_int_equal(feed(0, "xShutdown"), SHUTDOWN_PORT_WORD_LEN);
	assert_int_equal(feed(0, "Shutdow"), 7);
	assert_int_equal(feed(0, "ShutdoS"), 1);
	assert_int_equal(feed(0, "Shutdown!"), 0);
}

/* Past the word (two vCPUs, or bytes after the stop): no read beyond it,
 * and the count goes back into the word. */
static void any_count_stays_inside(void **state)
{
	unsigned m, b;

	for (m = 0; m < 256; m++)
		for (b = 0; b < 256; b++)
			assert_true(shutdown_port_match((u8)m, (u8)b) <= SHUTDOWN_PORT_WORD_LEN);
	assert_int_equal(shutdown_port_match(SHUTDOWN_PORT_WORD_LEN, 0), 0);
	assert_int_equal(shutdown_port_match(SHUTDOWN_PORT_WORD_LEN, 'S'), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(word_completes),
		cmocka_unit_test(any_count_stays_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
