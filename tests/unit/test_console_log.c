// SPDX-License-Identifier: MIT
/* The console's copy of the log (platform/console_log.c): what a store of
 * at most N bytes keeps, a short log whole, a long one as its head, a
 * marker line with the count left out, and its end, across the ring's
 * wrap-around. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log_feed.h"
#include "platform/console_log.h"

static char *view_bytes(const struct console_log_view *v)
{
	char *buf = malloc(v->bytes + 1);

	console_log_read(v, 0, buf, v->bytes);
	buf[v->bytes] = 0;
	return buf;
}

static void short_log_whole(void **state)
{
	struct console_log_view v;
	char *b;

	feed(5000);
	console_log_plan(&v, 1 << 20);
	assert_int_equal(v.total, 5000);
	assert_int_equal(v.left_out, 0);
	assert_int_equal(v.bytes, 5000);
	b = view_bytes(&v);
	assert_memory_equal(b, shadow, 5000);
	free(b);
}

/* Cut to what a small store takes: a quarter head, the marker, the end. */
static void cut_to_fit(void **state)
{
	struct console_log_view v;
	char *b, *marker;
	const size_t max = 20000;

	feed(30000);
	console_log_plan(&v, max);
	assert_true(v.bytes <= max);
	assert_int_equal(v.first, max / 4);
	assert_int_equal(v.first + v.left_out + v.last, shadow_len);
	b = view_bytes(&v);
	assert_memory_equal(b, shadow, v.first);
	marker = b + v.first;
	assert_int_equal(strncmp(marker, "\r\n[mhv: ", 8), 0);
	assert_non_null(strstr(marker, "bytes of the log left out here]"));
	assert_memory_equal(b + v.first + v.marker_len, shadow + shadow_len - v.last, v.last);
	free(b);
}

/* Past what memory keeps (64 KiB head, 960 KiB ring): the oldest part of
 * the ring is gone, and the view says so even with room for everything. */
static void ring_wraps(void **state)
{
	struct console_log_view v;
	char *b;

	feed(3u << 20);
	console_log_plan(&v, 8u << 20);
	assert_int_equal(v.first, 64 << 10);
	assert_int_equal(v.last, 960 << 10);
	assert_int_equal(v.left_out, shadow_len - v.first - v.last);
	b = view_bytes(&v);
	assert_memory_equal(b, shadow, v.first);
	assert_memory_equal(b + v.first + v.marker_len, shadow + shadow_len - v.last, v.last);
	/* a read that starts inside the marker and ends in the tail */
	console_log_read(&v, v.first + 3, b, v.marker_len);
	assert_memory_equal(b, v.marker + 3, v.marker_len - 3);
	assert_memory_equal(b + v.marker_len - 3, shadow + shadow_len - v.last, 3);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_log_whole),
		cmocka_unit_test(cut_to_fit),
		cmocka_unit_test(ring_wraps),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	free(shadow);
	return failed;
}
