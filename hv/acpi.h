/* SPDX-License-Identifier: MIT */
#ifndef MHV_ACPI_H
#define MHV_ACPI_H

#include "types.h"

struct acpi_spcr_uart {
	u16 io_port;   /* non-zero for an I/O-port UART */
	u64 mmio_base; /* non-zero for an MMIO UART */
	u8 baud_code;  /* SPCR "Configured Baud Rate" */
};

/* Pointer to the ACPI table with this signature, NULL when absent or invalid. */
const void *acpi_find_table(u64 rsdp, const char sig[4]);
int acpi_find_spcr(u64 rsdp, struct acpi_spcr_uart *out);

#endif
