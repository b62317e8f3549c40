/* SPDX-License-Identifier: MIT */
/*
 * The 16550 UART's registers, as offsets from its base (PC16550D
 * datasheet, Table 2): the host's console drives one, and guests see one
 * emulated at GUEST_SERIAL_PORT.
 */
#ifndef MHV_UART_H
#define MHV_UART_H

#include "lib/types.h"

#define UART_RBR 0 /* read; DLAB = 0 */
#define UART_THR 0 /* write; DLAB = 0 */
#define UART_IER 1 /* DLAB = 0 */
#define UART_DLL 0 /* DLAB = 1 */
#define UART_DLM 1 /* DLAB = 1 */
#define UART_IIR 2 /* read */
#define UART_FCR 2 /* write */
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_MSR 6
#define UART_SCR 7

#define UART_IER_ERBFI BIT(0) /* received data available */
#define UART_IER_ETBEI BIT(1) /* transmitter holding register empty */
#define UART_IER_ELSI BIT(2)  /* receiver line status */
#define UART_IER_EDSSI BIT(3) /* modem status */
#define UART_IER_MASK 0x0f

/* IIR bits 3:0, highest priority first (PC16550D Table IV) */
#define UART_IIR_NONE 0x01
#define UART_IIR_RLS 0x06     /* receiver line status */
#define UART_IIR_RDA 0x04     /* received data available, trigger level reached */
#define UART_IIR_TIMEOUT 0x0c /* character timeout: data below the trigger */
#define UART_IIR_THRE 0x02
#define UART_IIR_MS 0x00
#define UART_IIR_FIFOS 0xc0 /* bits 7:6 when FCR bit 0 enabled the FIFOs */

#define UART_FCR_ENABLE BIT(0)
#define UART_FCR_CLEAR_RX BIT(1)
#define UART_FCR_CLEAR_TX BIT(2)
#define UART_FCR_TRIGGER_SHIFT 6 /* 1, 4, 8, 14 bytes */

#define UART_LCR_DLAB BIT(7)

#define UART_MCR_DTR BIT(0)
#define UART_MCR_RTS BIT(1)
#define UART_MCR_OUT1 BIT(2)
#define UART_MCR_OUT2 BIT(3) /* a PC's interrupt enable */
#define UART_MCR_LOOP BIT(4)
#define UART_MCR_MASK 0x1f

#define UART_LSR_DR BIT(0)
#define UART_LSR_OE BIT(1)
#define UART_LSR_ERRORS 0x1e /* OE, PE, FE, BI */
#define UART_LSR_THRE BIT(5) /* the holding register takes a byte */
#define UART_LSR_IDLE 0x60   /* THRE | TEMT: nothing left to send */

#define UART_MSR_DELTAS 0x0f /* DCTS, DDSR, TERI, DDCD */
#define UART_MSR_TERI BIT(2)
#define UART_MSR_CTS BIT(4)
#define UART_MSR_DSR BIT(5)
#define UART_MSR_RI BIT(6)
#define UART_MSR_DCD BIT(7)

/*
 * The clock of a PC's COM ports: 1.8432 MHz, 115200 bits/s at divisor 1
 * (PC16550D datasheet, "Programmable Baud Generator", its 1.8432 MHz
 * crystal table; the IBM PC's asynchronous adapter).  Other 16550s run
 * from other clocks: AMD's on-chip FCH UARTs from 48 MHz.
 */
#define UART_PC_CLOCK_HZ 1843200

/*
 * The divisor latch (DLL, DLM) value that sends baud bits/s from a
 * clock_hz input clock: the 16550 sends at clock / (16 * divisor)
 * (PC16550D, "Programmable Baud Generator").  0 when clock or baud is 0,
 * or when no 16-bit divisor comes within 2% of baud: an 8N1 frame is
 * read correctly while the two ends differ by less than about 5%, so
 * each end may be off by 2%.
 */
static inline u32 uart_divisor(u32 clock_hz, u32 baud)
{
	u64 d, sent;

	if (!clock_hz || !baud)
		return 0;
	d = ((u64)clock_hz + 8ull * baud) / (16ull * baud); /* to the nearest */
	if (!d || d > 0xffff)
		return 0;
	sent = 16 * d * baud; /* the clock that would give exactly baud at d */
	if (50 * (sent > clock_hz ? sent - clock_hz : clock_hz - sent) > sent)
		return 0;
	return (u32)d;
}

#endif
