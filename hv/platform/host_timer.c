// SPDX-License-Identifier: MIT
#include "host_timer.h"
#include "lapic.h"
#include "host/cpu_features.h"
#include "host/percpu.h"
#include "lib/fmt.h"
#include "arch/apic.h"
#include "arch/msr.h"
#include "arch/x86.h"

#define CALIBRATION_TSC (1ull << 22)

enum timer_mode {
	TIMER_NONE,
	TIMER_TSC_DEADLINE,
	TIMER_ONE_SHOT
};

static enum timer_mode mode;
static u64 apic_per_tsc_q32;   /* APIC timer ticks per TSC tick, 32.32 fixed point */
static u64 one_shot_reach_tsc; /* the furthest one count reaches, in TSC ticks */
static char description[96] = "none";
static u32 reaches_set; /* CPUs with a test's reach set (host_timer_set_reach) */

void host_apic_eoi(void)
{
	if (mode != TIMER_NONE)
		lapic_write(APIC_EOI, 0);
	else
		lapic_eoi();
}

static void calibrate_one_shot(void)
{
	u64 t0, t1;
	u32 left;

	lapic_write(APIC_LVT_TIMER, LVT_MASKED);
	lapic_write(APIC_TIMER_DIVIDE, APIC_DIVIDE_BY_1);
	lapic_write(APIC_TIMER_INITIAL, 0xffffffffu);
	t0 = rdtsc();
	do
		t1 = rdtsc();
	while (t1 - t0 < CALIBRATION_TSC);
	left = lapic_read(APIC_TIMER_CURRENT);
	lapic_write(APIC_TIMER_INITIAL, 0);
	if (left == 0 || left == 0xffffffffu)
		return; /* the timer did not count, or ran out: no usable rate */
	apic_per_tsc_q32 = ((u64)(0xffffffffu - left) << 32) / (t1 - t0);
	one_shot_reach_tsc = host_timer_one_shot_reach(apic_per_tsc_q32);
	mode = TIMER_ONE_SHOT;
	fmt_snprintf(description, sizeof(description),
		     "local APIC one-shot, %llu.%03llu APIC ticks per TSC tick (calibrated)",
		     apic_per_tsc_q32 >> 32, ((apic_per_tsc_q32 & 0xffffffffu) * 1000) >> 32);
}

void host_timer_init(void)
{
	if (!lapic_init())
		return;
	/* Not the firmware's LVTPC vector: mhv's own, which only makes the
	 * guest exit at its counter's overflow (lapic.h). */
	lapic_host_lvtpc();
	if (host_cpu.has.tsc_deadline) {
		mode = TIMER_TSC_DEADLINE;
		fmt_snprintf(description, sizeof(description), "local APIC TSC-deadline mode");
		return;
	}
	calibrate_one_shot();
}

/* An AP's LAPIC timer, set up as the BSP's was calibrated (divide by 1). */
void host_timer_init_ap(void)
{
	if (mode == TIMER_ONE_SHOT)
		lapic_write(APIC_TIMER_DIVIDE, APIC_DIVIDE_BY_1);
}

bool host_timer_available(const char **why)
{
	if (mode == TIMER_NONE)
		*why = "no host timer: the local APIC is off or its timer does not count";
	return mode != TIMER_NONE;
}

const char *host_timer_describe(void)
{
	return description;
}

/*
 * One-shot mode counts at most 2^32-1 APIC ticks (about 4.3 s at QEMU's
 * 1 GHz, 43 s at a 100 MHz bus): a deadline further away is programmed
 * in parts, the rest at each interrupt (host_timer_interrupt).
 */
static void program(u64 tsc_deadline)
{
	u64 now;
	u32 ticks;

	if (mode == TIMER_TSC_DEADLINE) {
		lapic_write(APIC_LVT_TIMER, HOST_TIMER_VECTOR | LVT_TIMER_TSC_DEADLINE);
		wrmsr(MSR_IA32_TSC_DEADLINE, tsc_deadline);
		return;
	}
	if (mode != TIMER_ONE_SHOT)
		return;
	if (!tsc_deadline) {
		lapic_write(APIC_TIMER_INITIAL, 0);
		return;
	}
	now = rdtsc();
	ticks = host_timer_ticks(tsc_deadline > now ? tsc_deadline - now : 0, apic_per_tsc_q32,
				 one_shot_reach_tsc);
	lapic_write(APIC_LVT_TIMER, HOST_TIMER_VECTOR);
	lapic_write(APIC_TIMER_INITIAL, ticks);
}

static u64 earliest_deadline(const struct host_timer *t)
{
	u64 earliest = 0;
	unsigned i;

	for (i = 0; i < TIMER_SLOTS; i++)
		if (t->deadlines[i] && (!earliest || t->deadlines[i] < earliest))
			earliest = t->deadlines[i];
	return earliest;
}

/* The earliest armed deadline, or 0 (disarmed). */
static void reprogram(const struct host_timer *t)
{
	program(earliest_deadline(t));
}

void host_timer_arm(struct host_timer *t, enum host_timer_slot slot, u64 tsc_deadline)
{
	t->deadlines[slot] = tsc_deadline;
	reprogram(t);
}

void host_timer_disarm(struct host_timer *t, enum host_timer_slot slot)
{
	if (!t->deadlines[slot])
		return;
	t->deadlines[slot] = 0;
	reprogram(t);
}

/* The earliest deadline when it is still ahead, at most reach_tsc ahead. */
static void program_rest(const struct host_timer *t)
{
	u64 earliest = earliest_deadline(t), now = rdtsc();

	if (!earliest || now >= earliest)
		return; /* due: the exit this interrupt caused serves it */
	if (t->reach_tsc && earliest - now > t->reach_tsc)
		earliest = now + t->reach_tsc;
	program(earliest);
}

/*
 * The timer may have fired before the earliest deadline: a one-shot count
 * cut at 2^32-1 ticks, a calibrated rate a little fast, or a test's reach
 * (TSC-deadline mode fires only at its deadline, SDM Vol 3 §11.5.4.1).
 * Left alone, the timer would stay silent and a VM that spins without
 * exits would outlive its time limit; so the rest is programmed here,
 * where every delivery of the vector passes (an exit's interrupt window,
 * an idle HLT), and nowhere on the exit path.  While the guest's timer
 * is armed its code reprograms all slots at the exit that follows
 * (apic_timer_check), so nothing is left to do here.
 */
void host_timer_interrupt(void)
{
	struct host_timer *t;

	if (mode != TIMER_ONE_SHOT && !__atomic_load_n(&reaches_set, __ATOMIC_RELAXED))
		return;
	t = &this_cpu()->timer;
	if (!t->deadlines[TIMER_GUEST_APIC])
		program_rest(t);
}

void host_timer_set_reach(struct host_timer *t, u64 reach_tsc)
{
	if (!t->reach_tsc != !reach_tsc)
		__atomic_add_fetch(&reaches_set, reach_tsc ? 1 : -1, __ATOMIC_RELAXED);
	t->reach_tsc = reach_tsc;
	if (reach_tsc)
		program_rest(t);
}

u64 host_timer_reach_tsc(void)
{
	return mode == TIMER_ONE_SHOT ? one_shot_reach_tsc : 0;
}
