/* SPDX-License-Identifier: MIT */
#ifndef MHV_SERIAL_H
#define MHV_SERIAL_H

#include "lib/types.h"

/* mhv.cfg's "serial" key (lab/config.c reads it). */
enum serial_how {
	SERIAL_AUTO, /* the ACPI SPCR's UART, else every PC COM port that answers */
	SERIAL_NONE,
	SERIAL_PORT, /* a 16550 at an I/O port */
	SERIAL_MMIO, /* a memory-mapped 16550 */
};

struct serial_choice {
	enum serial_how how;
	u64 base;     /* SERIAL_PORT: the I/O port; SERIAL_MMIO: the address */
	u8 reg_width; /* SERIAL_MMIO: bytes between registers, 1 or 4 */
	u32 baud;     /* bits/s to program; 0: keep the firmware's divisor */
	u32 clock_hz; /* the UART's input clock; 0 when baud is 0 */
};

/* A UART register's read and write (reg: the 16550's register number): by
 * default port I/O, or MMIO with registers width bytes apart.  Host tests
 * substitute a UART model (serial_use_io). */
struct serial_io {
	u8 (*read)(u16 port, u64 mmio, u8 width, unsigned reg);
	void (*write)(u16 port, u64 mmio, u8 width, unsigned reg, u8 v);
};
void serial_use_io(const struct serial_io *io);

/* Starts the UARTs the choice names (rsdp: for SPCR).  Returns how many. */
unsigned serial_init(const struct serial_choice *choice, u64 rsdp);
/* Sends c to every live UART; true when one of them has just been left
 * out for not draining (serial_take_note then says which). */
bool serial_putc(char c);
/* One line about a UART left out since the last call, or NULL. */
const char *serial_take_note(void);
/* The UARTs in use and how they were chosen, for the environment header. */
const char *serial_describe(void);

#endif
