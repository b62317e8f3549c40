// SPDX-License-Identifier: MIT
/*
 * The console with two CPUs printing at once: threads stand for CPUs
 * (this_cpu() is the thread's), the serial port is a buffer that takes about
 * a microsecond per character so that the threads' output would interleave.
 * Each console_printf call's text must come out whole, in direct mode
 * (a machine check or a fatal error on one CPU while another prints a
 * guest's line: the qemu-mce case) and in per-CPU line mode.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "platform/console.h"
#include "platform/console_log.h"
#include "platform/fbcon.h"
#include "platform/serial.h"
#include "platform/tsc.h"
#include "host/page_alloc.h"
#include "host/percpu.h"

#define THREADS 2
#define LINES 300

struct tsc_info host_tsc;
static struct cpu test_cpus[THREADS];
static __thread struct cpu *my_cpu = &test_cpus[0];

struct cpu *this_cpu(void)
{
	return my_cpu;
}

void *alloc_pages_zeroed(u64 npages)
{
	return calloc(npages, 4096);
}

/* the serial port: what came out, one character at a time */
static char out[THREADS * LINES * 128];
static size_t out_len;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* about a UART's character time: long enough for the other thread's
 * output to fall between two of this one's */
static void pause_a_little(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 1000);
}

/* a CPU that stops for good in the middle of its line (halted by a fatal
 * error on another CPU) */
static __thread bool stop_here;
static volatile bool stopped;

bool serial_putc(char c)
{
	if (stop_here) {
		stopped = true;
		for (;;)
			pause();
	}
	pthread_mutex_lock(&out_lock);
	if (out_len < sizeof(out))
		out[out_len++] = c;
	pthread_mutex_unlock(&out_lock);
	pause_a_little();
	return false;
}

unsigned serial_init(const struct serial_choice *choice, u64 rsdp)
{
	return 1;
}

const char *serial_take_note(void)
{
	return NULL;
}

const char *serial_describe(void)
{
	return "test";
}

void console_log_putc(char c)
{
}

bool fbcon_init(const struct boot_fb *fb)
{
	return false;
}

void fbcon_putc(char c)
{
}

void fbcon_set_pause(u64 ticks)
{
}

u32 fbcon_columns(void)
{
	return 0;
}

u32 fbcon_rows(void)
{
	return 0;
}

const char *fbcon_describe(void)
{
	return "";
}

static void *printer(void *arg)
{
	unsigned i, me = (unsigned)(uintptr_t)arg;

	my_cpu = &test_cpus[me];
	for (i = 0; i < LINES; i++)
		console_printf("mhv: cpu %u line %u: %s\n", me, i,
			       "the quick brown fox jumps over the lazy dog");
	return NULL;
}

/* Every line is one whole call's text; every call's line is there. */
static void check_lines(void)
{
	unsigned seen[THREADS] = { 0 }, cpu, line;
	char *s, *save = NULL;
	char tail[64];

	out[out_len < sizeof(out) ? out_len : sizeof(out) - 1] = 0;
	for (s = strtok_r(out, "\r\n", &save); s; s = strtok_r(NULL, "\r\n", &save)) {
		if (sscanf(s, "mhv: cpu %u line %u: %63[^\n]", &cpu, &line, tail) != 3 ||
		    cpu >= THREADS || strcmp(tail, "the quick brown fox jumps over the lazy dog"))
			fail_msg("a line mixes two CPUs' output: \"%s\"", s);
		assert_int_equal(line, seen[cpu]);
		seen[cpu]++;
	}
	for (cpu = 0; cpu < THREADS; cpu++)
		assert_int_equal(seen[cpu], LINES);
}

static void run_printers(void)
{
	pthread_t t[THREADS];
	unsigned i;

	out_len = 0;
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, printer, (void *)(uintptr_t)i), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	check_lines();
}

static void test_direct_calls_stay_whole(void **state)
{
	console_lines_per_cpu(false);
	run_printers();
}

static void test_per_cpu_lines_stay_whole(void **state)
{
	assert_true(console_lines_alloc(THREADS));
	console_lines_per_cpu(true);
	run_printers();
	console_lines_per_cpu(false);
}

static void *stopper(void *arg)
{
	my_cpu = &test_cpus[1];
	stop_here = true;
	console_printf("mhv: a line never finished\n");
	return NULL;
}

/* One wait of seconds for a holder that never lets go, then none. */
static void test_stopped_holder_waits_once(void **state)
{
	struct timespec t0, t;
	pthread_t t1;
	unsigned i;

	console_lines_per_cpu(false);
	out_len = 0;
	assert_int_equal(pthread_create(&t1, NULL, stopper, NULL), 0);
	while (!stopped)
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 20; i++)
		console_printf("mhv: cpu 0 line %u: %s\n", i,
			       "the quick brown fox jumps over the lazy dog");
	clock_gettime(CLOCK_MONOTONIC, &t);
	/* 2^31 TSC ticks before calibration: about a second, not twenty */
	assert_true(t.tv_sec - t0.tv_sec < 5);
	out[out_len] = 0;
	assert_non_null(strstr(out, "mhv: cpu 0 line 19: the quick"));
	pthread_detach(t1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_calls_stay_whole),
		cmocka_unit_test(test_per_cpu_lines_stay_whole),
		cmocka_unit_test(test_stopped_holder_waits_once),
	};
	unsigned i;

	for (i = 0; i < THREADS; i++)
		test_cpus[i].index = i;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
