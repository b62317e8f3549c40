// SPDX-License-Identifier: MIT
/*
 * Resetting the machine (exit_action = reboot).  The FADT's reset
 * register first, as ACPI OSes do (ACPI 6.5 §4.8.3.6: RESET_REG and
 * RESET_VALUE, valid when the FADT flag RESET_REG_SUP is set); then the
 * chipset's Reset Control Register at port 0xCF9, which every PC chipset
 * since the PIIX has (Intel ICH9 datasheet §13.7.5, AMD's FCH the same
 * port).  Each gets a moment to act; a line says which one was tried.
 */
#include "reset.h"
#include "acpi.h"
#include "acpi_fadt.h"
#include "console.h"
#include "tsc.h"
#include "arch/ports.h"
#include "arch/x86.h"

#define RESET_WAIT_MS 100

static struct acpi_reset_reg reset_reg;
static bool have_reset_reg;
static const char *no_reset_reg = "no ACPI tables";

void platform_reset_init(u64 rsdp)
{
	have_reset_reg =
	    !acpi_fadt_reset_reg(acpi_find_table(rsdp, "FACP"), &reset_reg, &no_reset_reg);
}

/* About ms milliseconds: by the TSC once it is calibrated, else by reads of
 * the POST port 0x80, about 1 us each on a PC's LPC bus. */
static void wait_ms(unsigned ms)
{
	u64 start = rdtsc();
	unsigned long i;

	if (host_tsc.clock_hz) {
		while (rdtsc() - start < host_tsc.clock_hz / 1000 * ms)
			cpu_relax();
		return;
	}
	for (i = 0; i < 1000ul * ms; i++)
		(void)inb(0x80);
}

static const char *const space_names[] = {
	[GAS_SYSTEM_MEMORY] = "memory",
	[GAS_SYSTEM_IO] = "I/O port",
	[GAS_PCI_CONFIG] = "PCI config",
};

static void write_reset_reg(void)
{
	u64 a = reset_reg.address;

	switch (reset_reg.space) {
	case GAS_SYSTEM_IO:
		outb((u16)a, reset_reg.value);
		break;
	case GAS_SYSTEM_MEMORY:
		*(volatile u8 *)(uintptr_t)a = reset_reg.value;
		break;
	case GAS_PCI_CONFIG:
		/* bus 0: device in bits 47:32, function 31:16, offset 15:0
		 * (ACPI 6.5 §5.2.3.2, Table 5.1) */
		outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | ((a >> 32) & 0x1f) << 11 |
					     ((a >> 16) & 7) << 8 | (a & 0xfc));
		outb(PCI_CONFIG_DATA + (a & 3), reset_reg.value);
		break;
	}
}

void platform_reset(void)
{
	if (have_reset_reg) {
		console_printf("mhv: reboot: FADT RESET_REG (%s 0x%llx, value 0x%x)\n",
			       space_names[reset_reg.space], reset_reg.address, reset_reg.value);
		write_reset_reg();
		wait_ms(RESET_WAIT_MS);
		console_printf("mhv: reboot: the FADT RESET_REG did not reset the machine\n");
	} else {
		console_printf("mhv: reboot: %s\n", no_reset_reg);
	}
	/* RST_CPU acts on its 0 -> 1 edge: clear it first (ICH9 §13.7.5) */
	console_printf("mhv: reboot: port 0xCF9 (hard reset)\n");
	outb(RESET_CONTROL_PORT, RST_CNT_SYS_RST);
	wait_ms(1);
	outb(RESET_CONTROL_PORT, RST_CNT_SYS_RST | RST_CNT_RST_CPU);
	wait_ms(RESET_WAIT_MS);
	console_printf("mhv: reboot: port 0xCF9 did not reset the machine either: halting\n");
}
