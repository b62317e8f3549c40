// SPDX-License-Identifier: MIT
/*
 * The TSC frequency, so that tables can print nanoseconds and the guest's
 * ACPI PM timer can run at its nominal rate.
 */
#include "tsc.h"
#include "acpi.h"
#include "boot_info.h"
#include "cpu.h"
#include "x86.h"

#define PM_TIMER_HZ 3579545ull			/* ACPI 6.5 §4.8.3.3 */
#define CALIBRATION_PM_TICKS (PM_TIMER_HZ / 20) /* 50 ms */
#define NOMINAL_HZ 1000000000ull

struct tsc_info host_tsc;

/* FADT fields (ACPI 6.5 §5.2.9, Table 5.9) */
#define FADT_PM_TMR_BLK 76
#define FADT_FLAGS 112
#define FADT_TMR_VAL_EXT BIT(8)

static u32 inl_port(u16 port)
{
	u32 v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static u64 calibrate_with_pm_timer(u64 rsdp)
{
	const u8 *fadt = acpi_find_table(rsdp, "FACP");
	u32 port, mask, start, now, elapsed = 0;
	u64 tsc0, tsc1;
	unsigned long spins = 0;

	if (!fadt)
		return 0;
	__builtin_memcpy(&port, fadt + FADT_PM_TMR_BLK, 4);
	if (!port || port > 0xffff)
		return 0;
	mask = (fadt[FADT_FLAGS + 1] & (FADT_TMR_VAL_EXT >> 8)) ? 0xffffffffu : 0xffffffu;
	start = inl_port(port) & mask;
	tsc0 = rdtsc();
	while (elapsed < CALIBRATION_PM_TICKS) {
		now = inl_port(port) & mask;
		elapsed = (now - start) & mask;
		if (++spins > 100000000ul)
			return 0; /* a timer that does not tick */
	}
	tsc1 = rdtsc();
	return (tsc1 - tsc0) * PM_TIMER_HZ / elapsed;
}

void tsc_init(const struct boot_info *bi)
{
	struct cpuid_regs r;

	host_tsc.source = "no CPUID 0x15/0x16 and no working ACPI PM timer";
	/* CPUID 0x15: TSC/crystal ratio EBX/EAX, crystal Hz in ECX (SDM Vol 2A) */
	if (cpuid_cached(0x15, 0, &r) && r.eax && r.ebx && r.ecx) {
		host_tsc.hz = (u64)r.ecx * r.ebx / r.eax;
		host_tsc.source = "CPUID 0x15";
	} else if (cpuid_cached(0x16, 0, &r) && (r.eax & 0xffff)) {
		host_tsc.hz = (u64)(r.eax & 0xffff) * 1000000;
		host_tsc.source = "CPUID 0x16 base frequency";
	} else {
		host_tsc.hz = calibrate_with_pm_timer(bi->rsdp);
		if (host_tsc.hz)
			host_tsc.source = "calibrated against the ACPI PM timer (50 ms)";
	}
	host_tsc.pm_mult = (PM_TIMER_HZ << 32) / (host_tsc.hz ? host_tsc.hz : NOMINAL_HZ);
}
