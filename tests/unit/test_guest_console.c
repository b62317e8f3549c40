// SPDX-License-Identifier: MIT
/*
 * A guest's console: whole lines of at most VM_CONSOLE_LINE bytes, each
 * "[name] " and printable text; every byte the guest gave printed once;
 * and nothing outside the line buffer written, whatever state a race
 * between vCPUs left it in, with any number of them writing at once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "vdev/guest_console.h"

/* What the console was given: lines and bytes, checked as they come. */
static pthread_mutex_t printed_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned printed_lines, longest_line, bad_lines;
static char last_line[512];

int console_printf(const char *fmt, ...)
{
	char buf[512];
	const char *text;
	va_list ap;
	size_t len, i;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&printed_lock);
	len = strlen(buf);
	text = strstr(buf, "] ");
	/* "[name] text\n": one line, the newline last, nothing else below 0x20 */
	if (buf[0] != '[' || !text || len < 1 || buf[len - 1] != '\n')
		bad_lines++;
	for (i = 0; i + 1 < len; i++)
		if ((buf[i] < 0x20 && buf[i] != '\t') || buf[i] == 0x7f)
			bad_lines++;
	if (text && len - 1 - (size_t)(text + 2 - buf) > longest_line)
		longest_line = (unsigned)(len - 1 - (size_t)(text + 2 - buf));
	printed_lines++;
	snprintf(last_line, sizeof(last_line), "%s", buf);
	pthread_mutex_unlock(&printed_lock);
	return n;
}

static struct vm vm;

static int reset(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	strcpy(vm.name, "g");
	printed_lines = longest_line = bad_lines = 0;
	last_line[0] = 0;
	return 0;
}

static void put(const char *s)
{
	while (*s)
		guest_console_putc(&vm, *s++);
}

static void lines_and_filter(void **state)
{
	char long_line[VM_CONSOLE_LINE + 11];

	(void)state;
	put("hello\tworld\r\x1b[2K\x7f\n");
	assert_string_equal(last_line, "[g] hello\tworld?[2K?\n");
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = 0;
	put(long_line); /* a full line goes out by itself */
	assert_int_equal(printed_lines, 2);
	assert_int_equal(longest_line, VM_CONSOLE_LINE);
	guest_console_flush(&vm);
	assert_int_equal(printed_lines, 3);
	assert_string_equal(last_line, "[g] xxxxxxxxxx\n");
	assert_int_equal(bad_lines, 0);
	assert_int_equal(vm.console_taken, vm.console_printed);
}

/*
 * However the length got there (two vCPUs racing at the flush could put
 * it anywhere), no byte goes outside the line and what follows it.
 */
static void length_past_the_line(void **state)
{
	static const u32 lengths[] = { VM_CONSOLE_LINE, VM_CONSOLE_LINE + 1, 0x20a2, 0xffffffffu };
	u32 latch = 0x5aa55aa5u;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		vm.test_port_value = latch;
		vm.console_len = lengths[i];
		guest_console_putc(&vm, 'a');
		guest_console_putc(&vm, 'b');
		guest_console_flush(&vm);
		assert_int_equal(vm.test_port_value, latch);
		assert_int_equal(vm.console_len, 0);
		assert_true(longest_line <= VM_CONSOLE_LINE);
	}
	assert_int_equal(bad_lines, 0);
}

/* Lines of 150..169 bytes, so that the threads cross the flush often. */
#define WRITERS 4
#define BYTES_EACH 400000

static void *writer(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg, i, n = 0;

	for (i = 0; i < BYTES_EACH; i++) {
		if (++n == 150 + seed % 20) {
			guest_console_putc(&vm, '\n');
			seed = seed * 1103515245 + 12345;
			n = 0;
		} else {
			guest_console_putc(&vm, (char)('a' + i % 26));
		}
	}
	return NULL;
}

static void writers_at_once(void **state)
{
	pthread_t t[WRITERS];
	unsigned i;

	(void)state;
	vm.test_port_value = 0x5aa55aa5u;
	for (i = 0; i < WRITERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)(i + 1)),
				 0);
	for (i = 0; i < WRITERS; i++)
		pthread_join(t[i], NULL);
	guest_console_flush(&vm);
	assert_int_equal(vm.test_port_value, 0x5aa55aa5u);
	assert_int_equal(bad_lines, 0);
	assert_true(longest_line <= VM_CONSOLE_LINE);
	assert_true(vm.console_taken > 0);
	assert_int_equal(vm.console_taken, vm.console_printed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(lines_and_filter, reset),
		cmocka_unit_test_setup(length_past_the_line, reset),
		cmocka_unit_test_setup(writers_at_once, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
