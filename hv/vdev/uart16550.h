/* SPDX-License-Identifier: MIT */
/*
 * A 16550A UART as a PC's COM1 (TI PC16550D datasheet, "Register
 * Description"): RBR/THR, IER, IIR/FCR, LCR, MCR, LSR, MSR, SCR and the
 * divisor latch behind LCR.DLAB; 16-byte receive FIFO with its trigger
 * levels; the interrupt priorities of the IIR (line status, received
 * data or character timeout, THR empty, modem status) and loopback.
 * The transmitter is infinitely fast: a byte written to THR is sent at
 * once, so THR and the transmitter are always empty again.  Pure: the
 * caller sends what uart_write returns and drives the IRQ line with
 * uart_irq (on a PC it is gated by MCR.OUT2).
 */
#ifndef MHV_UART16550_H
#define MHV_UART16550_H

#include "lib/types.h"

#define UART_FIFO_SIZE 16
#define UART_COM1_IRQ 4 /* ISA IRQ 4: I/O APIC pin 4 without an override */

struct uart16550 {
	u8 ier, lcr, mcr, scr, fcr, dll, dlm;
	u8 lsr_errors; /* LSR bits 4:1 (BI, FE, PE, OE) until LSR is read */
	u8 msr_deltas; /* MSR bits 3:0 until MSR is read */
	u8 msr_lines;  /* MSR bits 7:4 as last reported */
	bool thr_irq;  /* THR empty interrupt pending (IER.ETBEI) */
	u8 rx_head, rx_count;
	u8 rx[UART_FIFO_SIZE];
};

/* After a master reset (datasheet Table "UART Reset Configuration"). */
void uart_reset(struct uart16550 *u);
/* A read of register @offset (0..7): reading RBR, IIR, LSR, MSR has effects. */
u8 uart_read(struct uart16550 *u, u8 offset);
/* A write; the byte to transmit, or -1 (none, or looped back in loopback mode). */
int uart_write(struct uart16550 *u, u8 offset, u8 val);
/* A byte from the line; false when it overran the receiver. */
bool uart_receive(struct uart16550 *u, u8 byte);
/* The INTRPT output: an interrupt is pending and enabled. */
bool uart_intr(const struct uart16550 *u);
/* The PC's IRQ line: INTRPT gated by MCR.OUT2 (IBM PC/AT serial adapter). */
bool uart_irq(const struct uart16550 *u);

#endif
