// SPDX-License-Identifier: MIT
/*
 * TSC calibration against the HPET main counter (IA-PC HPET spec 1.0a).
 * Only 32-bit register accesses are made (§2.3: allowed on every register),
 * and only the counter's low 32 bits are read: a 32-bit counter
 * (COUNT_SIZE_CAP clear) and a 64-bit one then look the same, and each
 * poll adds its difference modulo 2^32, so a wrap costs nothing.
 */
#include "hpet.h"
#include "acpi.h"
#include "host/paging.h"
#include "arch/x86.h"

/* Register offsets (§2.3.1, Table 2) */
#define HPET_CAP_LO 0x000
#define HPET_CAP_HI 0x004
#define HPET_CONFIG 0x010
#define HPET_CONFIG_ENABLE BIT(0) /* ENABLE_CNF: the main counter runs (§2.3.5) */
#define HPET_COUNTER_LO 0x0f0

/* Reads in a row without a change before the counter counts as stopped:
 * at the slowest legal rate (10 MHz, §2.3.4) it moves every 100 ns, and
 * this many uncached reads take far longer. */
#define STALL_POLLS 100000u

static u32 hpet_reg_read(u64 base, u32 off)
{
	return *(volatile u32 *)(uintptr_t)(base + off);
}

static void hpet_reg_write(u64 base, u32 off, u32 v)
{
	*(volatile u32 *)(uintptr_t)(base + off) = v;
}

/* TSC ticks over target counter ticks, or 0 when the counter stalls. */
static u64 count(u64 base, u64 target, u64 *counted)
{
	u32 prev, now, stalls = 0;
	u64 ticks = 0, tsc0, tsc1;

	prev = hpet_reg_read(base, HPET_COUNTER_LO);
	tsc0 = rdtsc();
	while (ticks < target) {
		now = hpet_reg_read(base, HPET_COUNTER_LO);
		if (now == prev) {
			if (++stalls > STALL_POLLS)
				return 0;
			continue;
		}
		stalls = 0;
		ticks += (u32)(now - prev);
		prev = now;
	}
	tsc1 = rdtsc();
	*counted = ticks;
	return tsc1 - tsc0;
}

void hpet_calibrate_tsc(u64 rsdp, u32 ms, struct hpet_calibration *out)
{
	const void *table = acpi_find_table(rsdp, "HPET");
	u64 base, tsc_ticks, ticks = 0;
	u32 config;

	*out = (struct hpet_calibration){ 0 };
	if (!table) {
		out->why = "no ACPI HPET table";
		return;
	}
	out->found = true;
	if (acpi_hpet_base(table, &base, &out->why))
		return;
	if (!host_paging_maps(base, HPET_REGS_SIZE)) {
		out->why = "HPET registers outside the host's identity map";
		return;
	}
	out->period_fs = hpet_period_fs((u64)hpet_reg_read(base, HPET_CAP_HI) << 32);
	if (!out->period_fs) {
		out->why = "HPET COUNTER_CLK_PERIOD is 0 or over 100 ns";
		return;
	}
	out->counter_32bit = !(hpet_reg_read(base, HPET_CAP_LO) & HPET_CAP_COUNT_SIZE);
	config = hpet_reg_read(base, HPET_CONFIG);
	if (!(config & HPET_CONFIG_ENABLE))
		hpet_reg_write(base, HPET_CONFIG, config | HPET_CONFIG_ENABLE);
	/* 10^12 fs in a millisecond */
	tsc_ticks = count(base, (u64)ms * 1000000000000ull / out->period_fs, &ticks);
	if (!(config & HPET_CONFIG_ENABLE))
		hpet_reg_write(base, HPET_CONFIG, config);
	if (!tsc_ticks) {
		out->why = "HPET main counter does not count";
		return;
	}
	out->tsc_hz = hpet_tsc_hz(tsc_ticks, ticks, out->period_fs);
	if (!out->tsc_hz)
		out->why = "HPET calibration measured no time";
}
