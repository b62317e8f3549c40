// SPDX-License-Identifier: MIT
/*
 * The TSC frequency, so that tables can print nanoseconds and the guest's
 * ACPI PM timer can run at its nominal rate.  In order: CPUID 0x15, CPUID
 * 0x16, calibration against the HPET, against the ACPI PM timer; the
 * config key tsc_calibration can force one of the two clocks.
 */
#include "tsc.h"
#include "acpi.h"
#include "acpi_fadt.h"
#include "lib/boot_info.h"
#include "console.h"
#include "host/cpu_features.h"
#include "lib/fmt.h"
#include "hpet.h"
#include "arch/ports.h"
#include "arch/x86.h"

#define CALIBRATION_MS 50
#define CALIBRATION_PM_TICKS (PM_TIMER_HZ * CALIBRATION_MS / 1000)
#define NOMINAL_HZ 1000000000ull

struct tsc_info host_tsc;
static char source[160];
static u64 init_rsdp; /* for tsc_counts_instructions */
static enum tsc_calibration init_how;

static u32 inl_port(u16 port)
{
	u32 v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/*
 * The Intel 82371AB (PIIX4) power-management function (x:x.3): PMBA at
 * config 0x40 (bits 15:6), its I/O enabled by PMREGMISC (0x80) bit 0, the
 * 24-bit PM timer at PMBA + 8 (PIIX4 datasheet §3.4.2, §7.2).
 */
#define PIIX4_PM_ID 0x71138086u /* device << 16 | vendor */
#define PIIX4_PMBA 0x40
#define PIIX4_PMREGMISC 0x80
#define PIIX4_PM_TMR 8

static u32 pci_config_read(u32 dev, u32 fn, u32 reg)
{
	outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | dev << 11 | fn << 8 | reg);
	return inl_port(PCI_CONFIG_DATA);
}

/* The PM timer port the firmware enabled on bus 0's PIIX4, or 0: where the
 * firmware left no FADT (OVMF on Bochs' i440FX). */
static u32 piix4_pm_timer_port(void)
{
	u32 dev;

	for (dev = 0; dev < 32; dev++) {
		if (pci_config_read(dev, 3, 0) != PIIX4_PM_ID)
			continue;
		if (!(pci_config_read(dev, 3, PIIX4_PMREGMISC) & 1))
			return 0;
		return (pci_config_read(dev, 3, PIIX4_PMBA) & 0xffc0) + PIIX4_PM_TMR;
	}
	return 0;
}

/* The PM timer the FADT names, else the one the firmware enabled on a
 * PIIX4 (no FADT); false with *why. */
static bool find_pm_timer(u64 rsdp, struct acpi_pm_timer *t, const char **why)
{
	const void *fadt = acpi_find_table(rsdp, "FACP");
	u32 port;

	if (fadt)
		return !acpi_fadt_pm_timer(fadt, t, why);
	port = piix4_pm_timer_port();
	if (port <= PIIX4_PM_TMR) {
		*why = "no ACPI FADT, no enabled PIIX4 PM function";
		return false;
	}
	t->space = GAS_SYSTEM_IO;
	t->address = port;
	t->mask = 0xffffffu;
	t->field = "the PIIX4's PMBA";
	return true;
}

static u32 pm_timer_read(const struct acpi_pm_timer *t)
{
	if (t->space == GAS_SYSTEM_MEMORY)
		return *(volatile u32 *)(uintptr_t)t->address & t->mask;
	return inl_port((u16)t->address) & t->mask;
}

/* TSC Hz, or 0 with *why set; *t says which timer counted. */
static u64 calibrate_with_pm_timer(u64 rsdp, struct acpi_pm_timer *t, const char **why)
{
	u32 start, now, elapsed = 0;
	u64 tsc0, tsc1;
	unsigned long spins = 0;

	if (!find_pm_timer(rsdp, t, why))
		return 0;
	start = pm_timer_read(t);
	tsc0 = rdtsc();
	while (elapsed < CALIBRATION_PM_TICKS) {
		now = pm_timer_read(t);
		elapsed = (now - start) & t->mask;
		if (++spins > 100000000ul) {
			*why = "the ACPI PM timer does not count";
			return 0;
		}
	}
	tsc1 = rdtsc();
	return (tsc1 - tsc0) * PM_TIMER_HZ / elapsed;
}

static bool try_pm_timer(u64 rsdp, const char **why)
{
	struct acpi_pm_timer t;
	u64 hz = calibrate_with_pm_timer(rsdp, &t, why);

	if (!hz)
		return false;
	host_tsc.hz = hz;
	fmt_snprintf(source, sizeof(source),
		     "calibrated against the ACPI PM timer (%u ms, %s %s 0x%llx, %u-bit)",
		     CALIBRATION_MS, t.field, t.space == GAS_SYSTEM_MEMORY ? "memory" : "port",
		     t.address, t.mask == 0xffffffu ? 24 : 32);
	host_tsc.source = source;
	return true;
}

static bool try_hpet(u64 rsdp, const char **why, bool *found)
{
	struct hpet_calibration c;
	u64 counter_hz;

	hpet_calibrate_tsc(rsdp, CALIBRATION_MS, &c);
	*found = c.found;
	if (!c.tsc_hz) {
		*why = c.why;
		return false;
	}
	counter_hz = hpet_counter_hz(c.period_fs);
	host_tsc.hz = c.tsc_hz;
	fmt_snprintf(source, sizeof(source),
		     "calibrated against the HPET (%u ms, %llu.%03llu MHz %scounter)",
		     CALIBRATION_MS, counter_hz / 1000000, counter_hz / 1000 % 1000,
		     c.counter_32bit ? "32-bit " : "");
	host_tsc.source = source;
	return true;
}

static bool from_cpuid(void)
{
	struct cpuid_regs r;

	/* CPUID 0x15: TSC/crystal ratio EBX/EAX, crystal Hz in ECX (SDM Vol 2A) */
	if (cpuid_cached(0x15, 0, &r) && r.eax && r.ebx && r.ecx) {
		host_tsc.hz = (u64)r.ecx * r.ebx / r.eax;
		host_tsc.source = "CPUID 0x15";
		return true;
	}
	if (cpuid_cached(0x16, 0, &r) && (r.eax & 0xffff)) {
		host_tsc.hz = (u64)(r.eax & 0xffff) * 1000000;
		host_tsc.source = "CPUID 0x16 base frequency";
		return true;
	}
	return false;
}

static void find_hz(u64 rsdp, enum tsc_calibration how)
{
	const char *hpet_why = NULL, *pm_why = NULL;
	bool hpet_found = false;

	/* A forced clock first; when it cannot be used, the automatic order
	 * without it. */
	if (how == TSC_CAL_HPET && try_hpet(rsdp, &hpet_why, &hpet_found))
		return;
	if (how == TSC_CAL_PM_TIMER && try_pm_timer(rsdp, &pm_why))
		return;
	if (how != TSC_CAL_AUTO)
		console_printf("mhv: tsc: tsc_calibration = %s, but %s: falling back to auto\n",
			       tsc_calibration_name(how), hpet_why ? hpet_why : pm_why);
	if (from_cpuid())
		return;
	if (!hpet_why) {
		if (try_hpet(rsdp, &hpet_why, &hpet_found))
			return;
		if (hpet_found) /* there, but not usable: worth a line */
			console_printf("mhv: tsc: HPET not used: %s\n", hpet_why);
	}
	if (!pm_why && try_pm_timer(rsdp, &pm_why))
		return;
	fmt_snprintf(source, sizeof(source), "no CPUID 0x15/0x16, %s, %s", hpet_why, pm_why);
	host_tsc.source = source;
}

static void set_clock(u64 hz, const char *how)
{
	host_tsc.clock_hz = hz ? hz : NOMINAL_HZ;
	host_tsc.clock_source = hz ? how : "no clock to calibrate against: a nominal 1 GHz";
	host_tsc.pm_mult = (PM_TIMER_HZ << 32) / host_tsc.clock_hz;
}

void tsc_init(const struct boot_info *bi, enum tsc_calibration how)
{
	init_rsdp = bi->rsdp;
	init_how = how;
	host_tsc.hz = 0;
	find_hz(bi->rsdp, how);
	set_clock(host_tsc.hz, host_tsc.source);
}

/*
 * The TSC has no frequency (Bochs counts retired instructions), but the
 * machine's HPET and PM timer run in its own (emulated) time: the TSC
 * measured against them turns a time limit into ticks and drives the
 * guest's PM timer at the rate the machine's clocks keep.
 */
void tsc_counts_instructions(const char *why)
{
	const char *hpet_why = NULL, *pm_why = NULL;
	bool hpet_found;

	host_tsc.hz = 0;
	if ((init_how != TSC_CAL_PM_TIMER && try_hpet(init_rsdp, &hpet_why, &hpet_found)) ||
	    try_pm_timer(init_rsdp, &pm_why)) {
		set_clock(host_tsc.hz, source);
	} else {
		fmt_snprintf(source, sizeof(source), "%s, %s: a nominal 1 GHz",
			     hpet_why ? hpet_why : "HPET not tried", pm_why);
		set_clock(NOMINAL_HZ, source);
	}
	host_tsc.hz = 0;
	host_tsc.source = why;
}
