/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_ACPI_H
#define MHV_GUEST_ACPI_H

#include "lib/types.h"

#define GUEST_ACPI_RSDP 0xe0000u /* in the BIOS area a guest scans (ACPI 6.5 §5.2.5.1) */

/*
 * ACPI tables for an external guest in its own RAM: RSDP -> RSDT -> FADT
 * (mhv's PM1 event, control and timer ports; FACS; a DSDT naming only
 * \_S5) and MADT (one local APIC per vCPU, the I/O APIC, SCI override).
 */
void guest_acpi_build(u8 *ram, u32 nr_cpus);

#endif
