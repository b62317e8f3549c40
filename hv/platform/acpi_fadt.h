/* SPDX-License-Identifier: MIT */
/* What mhv reads from the FADT: the ACPI PM timer and the reset register. */
#ifndef MHV_ACPI_FADT_H
#define MHV_ACPI_FADT_H

#include "lib/types.h"

/* The ACPI PM timer's register (ACPI 6.5 §4.8.3.3) */
struct acpi_pm_timer {
	u8 space;	   /* GAS_SYSTEM_IO or GAS_SYSTEM_MEMORY */
	u64 address;	   /* port or physical address of the 32-bit register */
	u32 mask;	   /* 0xffffff, or 0xffffffff with TMR_VAL_EXT */
	const char *field; /* "X_PM_TMR_BLK" or "PM_TMR_BLK" */
};

/* The reset register (ACPI 6.5 §4.8.3.6): value written to it resets. */
struct acpi_reset_reg {
	u8 space; /* GAS_SYSTEM_IO, GAS_SYSTEM_MEMORY or GAS_PCI_CONFIG (bus 0) */
	u64 address;
	u8 value;
};

/* The PM timer a FADT names: X_PM_TMR_BLK when the table has it and its
 * address is not 0, else PM_TMR_BLK.  0, or -1 with *why. */
int acpi_fadt_pm_timer(const void *fadt, struct acpi_pm_timer *out, const char **why);
/* The reset register when RESET_REG_SUP says it is there.  0, or -1 with *why. */
int acpi_fadt_reset_reg(const void *fadt, struct acpi_reset_reg *out, const char **why);

#endif
