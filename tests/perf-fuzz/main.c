// SPDX-License-Identifier: MIT
/*
 * perf-fuzz SECONDS [SEED]: the Linux guest's perf_event fuzzer
 * (docs/linux-guest.md).  Prints the seed first (mhvperffuzzseed= on the
 * kernel command line replays it), runs random operations until SECONDS
 * of CLOCK_MONOTONIC have passed, closes everything and prints, per
 * syscall kind, how many were tried and how many succeeded.  Status 0
 * unless the arguments are bad (2) or the fuzzer itself faulted (3).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf_fuzz.h"

sigjmp_buf fuzz_guard;
volatile sig_atomic_t fuzz_guard_armed;
volatile sig_atomic_t fuzz_signals;

static void say(const char *msg)
{
	if (write(STDOUT_FILENO, msg, strlen(msg)) < 0)
		return;
}

static void on_fault(int sig)
{
	if (fuzz_guard_armed) {
		fuzz_guard_armed = 0;
		siglongjmp(fuzz_guard, 1);
	}
	say(sig == SIGALRM ? "perf-fuzz: FAIL: watchdog: a syscall did not return\n"
			   : "perf-fuzz: FAIL: the fuzzer faulted outside a guarded read\n");
	_exit(3);
}

static void on_event_signal(int sig)
{
	(void)sig;
	fuzz_signals++;
}

static void handlers(unsigned int seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_event_signal;
	sa.sa_flags = SA_RESTART;
	/* overflow signals: O_ASYNC's SIGIO, attr.sigtrap's SIGTRAP */
	sigaction(SIGIO, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a syscall that never returns ends the run after twice its time */
	alarm(2 * seconds + 30);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_line(const char *s)
{
	printf("perf-fuzz: %s\n", s);
}

int main(int argc, char **argv)
{
	static struct fuzz_state st;
	struct fuzz_args a;
	char err[160];
	double start, end, stop, slowest = 0;
	char slowest_step[160] = "none";

	if (fuzz_parse_args(argc, argv, &a, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("perf-fuzz: seed 0x%016llx (%s; mhvperffuzzseed=0x%llx replays it), %u s\n",
	       (unsigned long long)a.seed, a.seed_given ? "given" : "drawn",
	       (unsigned long long)a.seed, a.seconds);
	state_init(&st);
	rng_seed(&st.rng, a.seed);
	pmus_read(&st.pmus, "/sys/bus/event_source/devices");
	printf("perf-fuzz: %u PMUs, %s raw events\n", st.pmus.n, st.pmus.amd ? "AMD" : "Intel");
	handlers(a.seconds);
	start = now();
	end = start + a.seconds;
	stop = start;
	/* the slowest step: how far past SECONDS the run can go */
	for (double t = start, t2; t < end; t = t2) {
		fuzz_step(&st);
		t2 = now();
		if (t2 - t > slowest) {
			slowest = t2 - t;
			snprintf(slowest_step, sizeof(slowest_step), "%s%s%s", st.step,
				 st.detail[0] ? " " : "", st.detail);
		}
		stop = t2;
	}
	fuzz_teardown(&st);
	alarm(0);
	stats_print(&st.stats, print_line);
	printf("perf-fuzz: done: %lu operations, %d overflow signals in %.1f s "
	       "(slowest step %.2f s, %s; teardown %.2f s)\n",
	       st.stats.ops, (int)fuzz_signals, stop - start, slowest, slowest_step, now() - stop);
	return 0;
}
