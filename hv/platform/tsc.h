/* SPDX-License-Identifier: MIT */
#ifndef MHV_TSC_H
#define MHV_TSC_H

#include "lib/types.h"

struct boot_info;

#define PM_TIMER_HZ 3579545ull /* ACPI 6.5 §4.8.3.3 */

/* How the TSC frequency is found (mhv.cfg "tsc_calibration") */
enum tsc_calibration {
	TSC_CAL_AUTO,	  /* the default: CPUID 0x15, 0x16, the HPET, the ACPI PM timer */
	TSC_CAL_HPET,	  /* calibrated against the HPET, CPUID ignored */
	TSC_CAL_PM_TIMER, /* against the ACPI PM timer, CPUID ignored */
};

/* The spelling used in mhv.cfg (lab/config.c parses the same words). */
static inline const char *tsc_calibration_name(enum tsc_calibration c)
{
	switch (c) {
	case TSC_CAL_AUTO:
		return "auto";
	case TSC_CAL_HPET:
		return "hpet";
	case TSC_CAL_PM_TIMER:
		return "pm-timer";
	}
	return "unknown";
}

struct tsc_info {
	u64 hz;		    /* 0 when unknown */
	const char *source; /* how hz was found */
	/* TSC ticks per second of the machine's own clock, never 0: time
	 * limits and the guest's clocks.  hz where that is known. */
	u64 clock_hz;
	const char *clock_source;
	u64 pm_mult; /* (3579545 << 32) / clock_hz: TSC ticks to ACPI PM timer ticks */
};

extern struct tsc_info host_tsc;

/* Find the TSC frequency: CPUID 0x15/0x16, else calibrate against the HPET,
 * else the ACPI PM timer; how = TSC_CAL_HPET or TSC_CAL_PM_TIMER tries that
 * clock first (and says why when it falls back). */
void tsc_init(const struct boot_info *bi, enum tsc_calibration how);

/* The TSC has no frequency (why): hz = 0, clock_hz calibrated against the
 * HPET or the ACPI PM timer, which keep the machine's (emulated) time. */
void tsc_counts_instructions(const char *why);

/* The ACPI PM timer a guest reads (24 bits at 3.579545 MHz), derived from the TSC. */
static inline u32 tsc_to_pm_timer(u64 tsc)
{
	return (u32)(((unsigned __int128)tsc * host_tsc.pm_mult) >> 32) & 0xffffff;
}

/* The PIT's 1.193182 MHz count from the TSC: a PC derives both from one
 * 14.31818 MHz crystal, the PM timer / 3. */
static inline u64 tsc_to_pit_ticks(u64 tsc)
{
	return (u64)(((unsigned __int128)tsc * host_tsc.pm_mult) >> 32) / 3;
}

/* TSC ticks in @ticks PIT ticks, a little over rather than under (so that
 * a timer set that far ahead finds the tick reached); for the short spans
 * of a PIT count, where the product fits. */
static inline u64 pit_ticks_to_tsc(u64 ticks)
{
	return (ticks * 3 + 1) * host_tsc.clock_hz / PM_TIMER_HZ + 1;
}

#endif
