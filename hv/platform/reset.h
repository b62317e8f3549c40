/* SPDX-License-Identifier: MIT */
/* Resetting the machine: the FADT's reset register, else port 0xCF9. */
#ifndef MHV_RESET_H
#define MHV_RESET_H

#include "lib/types.h"

/* Read the FADT's reset register from the ACPI tables at rsdp (at take-over). */
void platform_reset_init(u64 rsdp);
/* Reset the machine, saying how on the console; returns only when neither
 * the FADT's register nor port 0xCF9 reset it. */
void platform_reset(void);

#endif
