// SPDX-License-Identifier: MIT
/* An AP's start-up against the BSP's time-out (smp_state.c), and which
 * struct cpu this_cpu() gives a CPU (percpu.c): a CPU that answers late,
 * or one whose APIC ID mhv does not know, is never made usable and never
 * gets another CPU's data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "host/smp_state.h"
#include "host/page_alloc.h"
#include "platform/lapic.h"

/* The running CPU's APIC ID, as lapic_id() reads it. */
static u32 running_id;

bool lapic_present(void)
{
	return true;
}

u32 lapic_id(void)
{
	return running_id;
}

/* A bump allocator over static pages: the tables live for the run. */
static u8 pages[8][PAGE_SIZE] __aligned(PAGE_SIZE);
static unsigned pages_used;

void *alloc_pages_zeroed(u64 npages)
{
	void *p = pages[pages_used];

	assert_true(pages_used + npages <= 8);
	pages_used += npages;
	memset(p, 0, npages * PAGE_SIZE);
	return p;
}

static jmp_buf parked;
static u32 stray_id;

void percpu_stray(u32 apic_id)
{
	stray_id = apic_id;
	longjmp(parked, 1);
}

static struct cpu c;

/* The CPU answers within the time: it is up, and the BSP's time-out,
 * coming after, changes nothing. */
static void test_ap_on_time(void **state)
{
	c = (struct cpu){ .state = CPU_STARTING };
	assert_true(smp_ap_claim(&c));
	assert_int_equal(c.state, CPU_BOOTING);
	assert_true(smp_ap_ready(&c, true));
	assert_int_equal(c.state, CPU_IDLE);
	assert_false(smp_give_up(&c, "no answer", "no set-up"));
	assert_int_equal(c.state, CPU_IDLE);
	/* one that could not enable virtualization fails by itself */
	c = (struct cpu){ .state = CPU_STARTING };
	assert_true(smp_ap_claim(&c));
	assert_true(smp_ap_ready(&c, false));
	assert_int_equal(c.state, CPU_FAILED);
	assert_false(smp_give_up(&c, "no answer", "no set-up"));
}

/* It answers after the 1.2 s: the BSP has reported it unusable, and
 * unusable it stays; it parks without its set-up. */
static void test_ap_answers_late(void **state)
{
	c = (struct cpu){ .state = CPU_STARTING };
	assert_true(smp_give_up(&c, "no answer", "no set-up"));
	assert_int_equal(c.state, CPU_FAILED);
	assert_string_equal(c.why, "no answer");
	assert_false(smp_ap_claim(&c));
	assert_false(smp_ap_ready(&c, true));
	assert_int_equal(c.state, CPU_FAILED);
}

/* It answered in time but its set-up outlasted the wait: FAILED with the
 * BSP's reason, and the set-up's end does not undo it. */
static void test_ap_setup_too_slow(void **state)
{
	c = (struct cpu){ .state = CPU_STARTING };
	assert_true(smp_ap_claim(&c));
	assert_true(smp_unsettled(&c));
	assert_true(smp_give_up(&c, "no answer", "no set-up"));
	assert_string_equal(c.why, "no set-up");
	assert_false(smp_unsettled(&c));
	assert_false(smp_ap_ready(&c, true));
	assert_int_equal(c.state, CPU_FAILED);
}

/* Without a MADT: once closed, every later xadd lands past any slot
 * count, however many CPUs come. */
static void test_slots_close(void **state)
{
	u32 slots = 3, taken;

	taken = smp_slots_close(&slots);
	assert_int_equal(taken, 3);
	for (unsigned i = 0; i < 1000; i++)
		assert_true(__atomic_fetch_add(&slots, 1, __ATOMIC_SEQ_CST) >= SMP_SLOTS_CLOSED);
	assert_true(slots >= SMP_SLOTS_CLOSED + 1000);
}

/* Three CPUs, APIC IDs 0, 2 and 4, before and after the table by APIC ID. */
static void three_cpus(void)
{
	static u32 ids[] = { 0, 2, 4 };

	assert_true(percpu_alloc(3));
	for (unsigned i = 0; i < 3; i++)
		cpus[i] = (struct cpu){ .index = i, .apic_id = ids[i] };
	nr_cpus = 3;
}

static struct cpu *lookup(u32 id)
{
	running_id = id;
	stray_id = 0;
	if (setjmp(parked))
		return NULL;
	return this_cpu();
}

static void test_this_cpu(void **state)
{
	int indexed;

	three_cpus();
	for (indexed = 0; indexed < 2; indexed++) {
		if (indexed)
			assert_true(percpu_index_apic_ids());
		assert_ptr_equal(lookup(0), &cpus[0]);
		assert_ptr_equal(lookup(2), &cpus[1]);
		assert_ptr_equal(lookup(4), &cpus[2]);
		/* an AP mhv does not know (a late one without a MADT, one
		 * that took no slot): parked, not given the BSP's data */
		assert_null(lookup(6));
		assert_int_equal(stray_id, 6);
		assert_null(lookup(APIC_ID_NONE - 1));
		assert_int_equal(stray_id, APIC_ID_NONE - 1);
	}
	/* an unclaimed struct cpu (APIC_ID_NONE) is no CPU's */
	cpus[2].apic_id = APIC_ID_NONE;
	assert_true(percpu_index_apic_ids());
	assert_null(lookup(4));
	assert_int_equal(stray_id, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ap_on_time),	  cmocka_unit_test(test_ap_answers_late),
		cmocka_unit_test(test_ap_setup_too_slow), cmocka_unit_test(test_slots_close),
		cmocka_unit_test(test_this_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
