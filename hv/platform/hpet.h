/* SPDX-License-Identifier: MIT */
/* The HPET as a reference clock for the TSC (IA-PC HPET spec 1.0a). */
#ifndef MHV_HPET_H
#define MHV_HPET_H

#include "lib/types.h"

/* The register block: 1 KiB (§2.3.1, Table 2) */
#define HPET_REGS_SIZE 0x400

/* General Capabilities and ID register, offset 0 (§2.3.4) */
#define HPET_CAP_COUNT_SIZE BIT(13)    /* the main counter is 64 bits wide */
#define HPET_MAX_PERIOD_FS 0x05f5e100u /* COUNTER_CLK_PERIOD at most 100 ns */

struct hpet_calibration {
	u64 tsc_hz;	    /* 0 when the HPET could not be used */
	bool found;	    /* there is an ACPI HPET table */
	u32 period_fs;	    /* COUNTER_CLK_PERIOD: one counter tick in femtoseconds */
	bool counter_32bit; /* COUNT_SIZE_CAP clear */
	const char *why;    /* when tsc_hz is 0: why not */
};

/* Count TSC ticks over ms milliseconds of the HPET main counter; the
 * HPET's configuration is left as it was found. */
void hpet_calibrate_tsc(u64 rsdp, u32 ms, struct hpet_calibration *out);

/* COUNTER_CLK_PERIOD from the capabilities register: 0 when out of spec. */
static inline u32 hpet_period_fs(u64 cap)
{
	u32 fs = (u32)(cap >> 32);

	return fs <= HPET_MAX_PERIOD_FS ? fs : 0;
}

/* Counter frequency in Hz for a period in femtoseconds (10^15 fs = 1 s). */
static inline u64 hpet_counter_hz(u32 period_fs)
{
	return period_fs ? 1000000000000000ull / period_fs : 0;
}

/* TSC Hz from tsc_ticks counted while the HPET counted counter_ticks.  The
 * time is taken in ns: 1 ns is 2e-8 of 50 ms, and tsc_ticks * 10^9 stays in
 * 64 bits up to 18e9 TSC ticks. */
static inline u64 hpet_tsc_hz(u64 tsc_ticks, u64 counter_ticks, u32 period_fs)
{
	u64 ns = counter_ticks * period_fs / 1000000;

	return ns ? tsc_ticks * 1000000000ull / ns : 0;
}

#endif
