/* SPDX-License-Identifier: MIT */
/*
 * Core cycles beside TSC ticks.  The TSC counts at the base rate while a
 * core boosts above it (or drops below), so a TSC-tick table mixes the
 * clock with the effect measured.  APERF counts the core's actual cycles,
 * MPERF at the TSC's fixed rate, both only while the core runs (C0): over
 * a benchmark, TSC ticks x dAPERF / dMPERF are core cycles, and the TSC's
 * frequency x dAPERF / dMPERF is the effective clock.
 */
#ifndef MHV_APERF_H
#define MHV_APERF_H

#include "lib/stats.h"

struct aperf_sample {
	u64 aperf, mperf;
	u64 smis; /* MSR_SMI_COUNT where has_smis */
	u32 cpu;  /* the counters are per CPU: deltas only on the same one */
	bool valid, has_smis;
};

enum boost_setting {
	BOOST_FIRMWARE, /* as the firmware left it */
	BOOST_ON,
	BOOST_OFF,
};

/* CPUID 6 ECX[0] on the BSP; why not, else NULL. */
const char *aperf_missing(void);
/* Whether this CPU counts SMIs where mhv can read them; why not, else NULL. */
const char *smi_count_missing(void);
void aperf_sample(struct aperf_sample *s);

/* Core boost on or off on this CPU (AMD HWCR[25] CpbDis, Intel
 * IA32_MISC_ENABLE[38]); each CPU applies it for itself.  False with
 * *why when the CPU refused. */
bool boost_apply(enum boost_setting b, const char **why);
/* The BSP's boost_apply, and the header line: the setting, what the
 * BSP's MSR says now, APERF/MPERF. */
void boost_setup(enum boost_setting b);

/* kHz of the core's clock over an interval: the TSC's rate scaled by
 * dAPERF/dMPERF; 0 when unknown. */
static inline u64 aperf_effective_khz(u64 tsc_hz, u64 d_aperf, u64 d_mperf)
{
	return d_mperf ? stats_muldiv(tsc_hz, d_aperf, d_mperf) / 1000 : 0;
}

/* Core cycles of @tsc_ticks at that clock, rounded down; 0 when unknown. */
static inline u64 aperf_cycles(u64 tsc_ticks, u64 d_aperf, u64 d_mperf)
{
	return d_mperf ? stats_muldiv(tsc_ticks, d_aperf, d_mperf) : 0;
}

#endif
