// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fmt.h"

/* Both implementations must agree on output and on the returned length. */
#define SAME_AS_LIBC(...)                                             \
	do {                                                          \
		char want[256], got[256];                             \
		int wn = snprintf(want, sizeof(want), __VA_ARGS__);   \
		int gn = fmt_snprintf(got, sizeof(got), __VA_ARGS__); \
		assert_string_equal(got, want);                       \
		assert_int_equal(gn, wn);                             \
	} while (0)

#define EXPECT(want, ...)                                             \
	do {                                                          \
		char got[256];                                        \
		int gn = fmt_snprintf(got, sizeof(got), __VA_ARGS__); \
		assert_string_equal(got, want);                       \
		assert_int_equal(gn, (int)strlen(want));              \
	} while (0)

/*
 * No format attribute on these, so formats that gcc flags as redundant or odd
 * (but which C defines) still compile under -Werror.
 */
static int unchecked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static int host_unchecked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#define SAME_AS_LIBC_UNCHECKED(...)                                       \
	do {                                                              \
		char want[256], got[256];                                 \
		int wn = host_unchecked(want, sizeof(want), __VA_ARGS__); \
		int gn = unchecked(got, sizeof(got), __VA_ARGS__);        \
		assert_string_equal(got, want);                           \
		assert_int_equal(gn, wn);                                 \
	} while (0)

#define EXPECT_UNCHECKED(want, ...)                                \
	do {                                                       \
		char got[256];                                     \
		int gn = unchecked(got, sizeof(got), __VA_ARGS__); \
		assert_string_equal(got, want);                    \
		assert_int_equal(gn, (int)strlen(want));           \
	} while (0)

static void test_plain(void **state)
{
	(void)state;
	EXPECT("", "%s", "");
	EXPECT("hello", "hello");
	EXPECT("100%", "100%%");
	EXPECT_UNCHECKED("a(null)b", "a%sb", (char *)NULL);
	SAME_AS_LIBC("[%c][%3c][%-3c]", 'x', 'y', 'z');
}

static void test_signed(void **state)
{
	(void)state;
	SAME_AS_LIBC("%d %i %d %d", 0, 42, -42, INT32_MIN);
	SAME_AS_LIBC("%d", INT32_MAX);
	SAME_AS_LIBC("%lld %lld", (long long)INT64_MIN, (long long)INT64_MAX);
	SAME_AS_LIBC("%ld", (long)INT64_MIN);
	/* Out-of-range ints check that hh/h really truncate (clang rejects them as typed). */
	SAME_AS_LIBC_UNCHECKED("%hhd %hhd %hd %hd", 200, -1, 40000, -32768);
	SAME_AS_LIBC("%hhd %hd", (signed char)-128, (short)-32768);
	SAME_AS_LIBC("%zd", (ptrdiff_t)-5);
	SAME_AS_LIBC_UNCHECKED("[%+d][%+d][% d][% d][%+ d]", 5, -5, 5, -5, 5);
	SAME_AS_LIBC_UNCHECKED("[%5d][%-5d][%05d][%-05d]", -42, -42, -42, -42);
	SAME_AS_LIBC("[%+05d][% 05d][%05d]", 42, 42, 0);
	SAME_AS_LIBC_UNCHECKED("[%.3d][%.3d][%8.3d][%-8.3d][%08.3d]", 7, -7, 7, -7, 7);
	SAME_AS_LIBC("[%.0d][%5.0d][%.d][%+.0d]", 0, 0, 0, 0);
	SAME_AS_LIBC("[%.0d]", 1);
	SAME_AS_LIBC("[%030lld]", (long long)INT64_MIN);
	SAME_AS_LIBC("[%.25lld]", (long long)INT64_MIN);
}

static void test_unsigned(void **state)
{
	(void)state;
	SAME_AS_LIBC("%u %u %u", 0u, 1u, UINT32_MAX);
	SAME_AS_LIBC("%llu %lu", (unsigned long long)UINT64_MAX, (unsigned long)UINT64_MAX);
	SAME_AS_LIBC("%zu %zx", (size_t)SIZE_MAX, (size_t)0x1234);
	SAME_AS_LIBC_UNCHECKED("%hhu %hu", 257, 65537);
	SAME_AS_LIBC("%x %X %x", 0xdeadbeefu, 0xdeadbeefu, 0u);
	SAME_AS_LIBC("%llx %llX", (unsigned long long)UINT64_MAX, 0xABCDEF0123ull);
	SAME_AS_LIBC_UNCHECKED("%hhx %hx", 0x1ff, 0x1ffff);
	SAME_AS_LIBC("[%08x][%-8x][%8.4x][%#x][%#X][%#x][%#010x]", 0xbeef, 0xbeef, 0xab, 0xab, 0xab,
		     0, 0xab);
	SAME_AS_LIBC("[%.0x][%.0u]", 0, 0u);
	/* '+' and ' ' apply to signed conversions only. */
	SAME_AS_LIBC_UNCHECKED("[%+u][% x]", 3u, 3u);
}

static void test_pointer(void **state)
{
	char buf[64];

	(void)state;
	EXPECT("0x1234", "%p", (void *)0x1234);
	EXPECT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
	/* glibc prints "(nil)"; ours stays numeric so logs are greppable. */
	EXPECT("0x0", "%p", NULL);
	EXPECT("[    0xab][0xab    ]", "[%8p][%-8p]", (void *)0xab, (void *)0xab);
	fmt_snprintf(buf, sizeof(buf), "%p", (void *)buf);
	assert_int_equal(strncmp(buf, "0x", 2), 0);
	assert_int_equal(strtoull(buf, NULL, 16), (uintptr_t)buf);
}

static void test_strings(void **state)
{
	/* Deliberately unterminated: precision must stop the scan. */
	static const char raw[4] = { 'a', 'b', 'c', 'd' };

	(void)state;
	SAME_AS_LIBC("[%s][%8s][%-8s][%.2s][%8.2s][%-8.2s][%.0s]", "hey", "hey", "hey", "hey",
		     "hey", "hey", "hey");
	SAME_AS_LIBC("[%.10s]", "short");
	EXPECT("ab", "%.2s", raw);
	EXPECT("abcd", "%.*s", 4, raw);
	EXPECT_UNCHECKED("[  (null)][(nu]", "[%8s][%.3s]", (char *)NULL, (char *)NULL);
}

static void test_star(void **state)
{
	(void)state;
	SAME_AS_LIBC("[%*d][%-*d][%*d]", 5, 42, 5, 42, -5, 42);
	SAME_AS_LIBC("[%.*d][%.*d][%*.*d]", 4, 42, -1, 42, 8, 4, 42);
	SAME_AS_LIBC("[%.*s][%.*s]", 2, "abcdef", -3, "abcdef");
	SAME_AS_LIBC("[%0*d]", 6, -12);
}

static void test_unknown(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(unchecked(buf, sizeof(buf), "a%qb"), 4);
	assert_string_equal(buf, "a%qb");
	assert_int_equal(unchecked(buf, sizeof(buf), "[%-08.3lk]"), 10);
	assert_string_equal(buf, "[%-08.3lk]");
	assert_int_equal(unchecked(buf, sizeof(buf), "%o", 8), 2);
	assert_string_equal(buf, "%o");
	assert_int_equal(unchecked(buf, sizeof(buf), "end%"), 4);
	assert_string_equal(buf, "end%");
	assert_int_equal(unchecked(buf, sizeof(buf), "end%-5"), 6);
	assert_string_equal(buf, "end%-5");
	/* Absurd widths saturate instead of overflowing. */
	assert_true(unchecked(NULL, 0, "%99999999999999999999d", 1) > 0);
}

static void test_truncation(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, 4, "%s", "abcdef"), 6);
	assert_string_equal(buf, "abc");
	assert_int_equal(buf[4], 'X');

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, 1, "%d", 12345), 5);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'X');

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, 0, "%d", 12345), 5);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(fmt_snprintf(NULL, 0, "%llu", (unsigned long long)UINT64_MAX), 20);

	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%s", "1234567"), 7);
	assert_string_equal(buf, "1234567");
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%s", "12345678"), 8);
	assert_string_equal(buf, "1234567");
}

struct collect {
	char buf[64];
	size_t n;
};

static void collect_put(void *ctx, char c)
{
	struct collect *col = ctx;

	assert_true(col->n < sizeof(col->buf) - 1);
	col->buf[col->n++] = c;
}

static int collect_fmt(struct collect *col, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vformat(collect_put, col, fmt, ap);
	va_end(ap);
	return n;
}

static void test_sink(void **state)
{
	struct collect col = { .n = 0 };

	(void)state;
	assert_int_equal(collect_fmt(&col, "%s=%#x%c", "cr0", 0x80000011u, '\n'), 15);
	assert_int_equal(col.n, 15);
	assert_memory_equal(col.buf, "cr0=0x80000011\n", 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),	 cmocka_unit_test(test_signed),
		cmocka_unit_test(test_unsigned), cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_strings),	 cmocka_unit_test(test_star),
		cmocka_unit_test(test_unknown),	 cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
