// SPDX-License-Identifier: MIT
/*
 * Which CPU ends the run (host/finish_claim.h), with threads as CPUs
 * racing into hv_finish: one ends it and stores the log, none of the
 * others gets past its wait (to the exit action, a reset) while that
 * store is in flight, and a wait for a CPU that never finishes ends.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "host/finish_claim.h"

#define CPUS 8

static u32 owner, done, in_flight, stores, exits_during_store, firsts;
static pthread_barrier_t start;

static void relax(void)
{
	sched_yield();
}

/* hv_finish's order: claim, the first stores, the others wait. */
static void *cpu(void *arg)
{
	u32 me = (u32)(uintptr_t)arg;

	pthread_barrier_wait(&start);
	switch (finish_claim(&owner, me)) {
	case FINISH_FIRST:
		__atomic_fetch_add(&firsts, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&in_flight, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&stores, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < 1000; i++)
			sched_yield(); /* SetVariable takes a while */
		/* a fatal error inside the store comes back as "again" */
		assert_int_equal(finish_claim(&owner, me), FINISH_AGAIN);
		__atomic_store_n(&in_flight, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
		break;
	case FINISH_OTHER:
		if (!finish_wait(&done, 1ull << 40, relax))
			fail_msg("cpu %u: the wait ended before the store", me);
		/* here the exit action could run: no store may be in flight */
		if (__atomic_load_n(&in_flight, __ATOMIC_ACQUIRE))
			__atomic_fetch_add(&exits_during_store, 1, __ATOMIC_RELAXED);
		break;
	case FINISH_AGAIN:
		fail_msg("cpu %u: claimed again on its first call", me);
	}
	return NULL;
}

static void one_cpu_ends_the_run(void **state)
{
	pthread_t t[CPUS];
	int round, i;

	for (round = 0; round < 20; round++) {
		owner = done = in_flight = stores = exits_during_store = firsts = 0;
		pthread_barrier_init(&start, NULL, CPUS);
		for (i = 0; i < CPUS; i++)
			pthread_create(&t[i], NULL, cpu, (void *)(uintptr_t)(i + 1));
		for (i = 0; i < CPUS; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		assert_int_equal(firsts, 1);
		assert_int_equal(stores, 1);
		assert_int_equal(exits_during_store, 0);
	}
}

/* A first CPU that never stores: the others' wait still ends. */
static void wait_is_bounded(void **state)
{
	u32 never = 0;

	assert_false(finish_wait(&never, 1000, relax));
	never = 1;
	assert_true(finish_wait(&never, 0, relax));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_cpu_ends_the_run),
		cmocka_unit_test(wait_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
