// SPDX-License-Identifier: MIT
/* The 16550A UART (see uart16550.h); register behaviour after the TI
 * PC16550D datasheet (SLLS057), "Register Description" and Table IV. */
#include "uart16550.h"
#include "arch/uart.h"

/* Receive FIFO trigger levels by FCR bits 7:6 */
static const u8 rx_trigger[4] = { 1, 4, 8, 14 };

/* No modem in loopback: a terminal on the line, ready (CTS, DSR, DCD). */
#define MSR_LINE_CONNECTED (UART_MSR_CTS | UART_MSR_DSR | UART_MSR_DCD)

static bool fifo_on(const struct uart16550 *u)
{
	return u->fcr & UART_FCR_ENABLE;
}

/* MSR bits 7:4: the modem inputs, or in loopback the MCR outputs
 * (DTR->DSR, RTS->CTS, OUT1->RI, OUT2->DCD). */
static u8 modem_lines(const struct uart16550 *u)
{
	u8 m = u->mcr;

	if (!(m & UART_MCR_LOOP))
		return MSR_LINE_CONNECTED;
	return (m & UART_MCR_DTR ? UART_MSR_DSR : 0) | (m & UART_MCR_RTS ? UART_MSR_CTS : 0) |
	       (m & UART_MCR_OUT1 ? UART_MSR_RI : 0) | (m & UART_MCR_OUT2 ? UART_MSR_DCD : 0);
}

/* The delta bits a change of the lines sets: DCTS, DDSR, DDCD on any
 * change, TERI only when RI goes from on to off. */
static void lines_changed(struct uart16550 *u)
{
	u8 now = modem_lines(u), was = u->msr_lines, d = (u8)((now ^ was) >> 4);

	d &= (u8)~UART_MSR_TERI;
	if ((was & UART_MSR_RI) && !(now & UART_MSR_RI))
		d |= UART_MSR_TERI;
	u->msr_deltas |= d;
	u->msr_lines = now;
}

void uart_reset(struct uart16550 *u)
{
	__builtin_memset(u, 0, sizeof(*u));
	u->msr_lines = modem_lines(u);
}

static void rx_clear(struct uart16550 *u)
{
	u->rx_head = 0;
	u->rx_count = 0;
}

/* IIR bits 3:0: the highest-priority pending, enabled interrupt.  The
 * character timeout is reported at once for data below the trigger level,
 * where the chip waits four character times: no line delays here. */
static u8 ident(const struct uart16550 *u)
{
	if ((u->ier & UART_IER_ELSI) && u->lsr_errors)
		return UART_IIR_RLS;
	if ((u->ier & UART_IER_ERBFI) && u->rx_count) {
		if (!fifo_on(u) || u->rx_count >= rx_trigger[u->fcr >> UART_FCR_TRIGGER_SHIFT])
			return UART_IIR_RDA;
		return UART_IIR_TIMEOUT;
	}
	if ((u->ier & UART_IER_ETBEI) && u->thr_irq)
		return UART_IIR_THRE;
	if ((u->ier & UART_IER_EDSSI) && u->msr_deltas)
		return UART_IIR_MS;
	return UART_IIR_NONE;
}

bool uart_intr(const struct uart16550 *u)
{
	return ident(u) != UART_IIR_NONE;
}

/* Loopback forces OUT2 inactive at the pin: no IRQ on a PC (datasheet,
 * MCR bit 4). */
bool uart_irq(const struct uart16550 *u)
{
	return uart_intr(u) && (u->mcr & (UART_MCR_OUT2 | UART_MCR_LOOP)) == UART_MCR_OUT2;
}

bool uart_receive(struct uart16550 *u, u8 byte)
{
	u8 size = fifo_on(u) ? UART_FIFO_SIZE : 1;

	if (u->rx_count == size) {
		/* overrun: the FIFO keeps its bytes; without one, RBR takes the new one */
		u->lsr_errors |= UART_LSR_OE;
		if (size == 1)
			u->rx[u->rx_head] = byte;
		return false;
	}
	u->rx[(u->rx_head + u->rx_count) % UART_FIFO_SIZE] = byte;
	u->rx_count++;
	return true;
}

static u8 rx_pop(struct uart16550 *u)
{
	u8 b = u->rx[u->rx_head];

	if (u->rx_count) {
		u->rx_head = (u->rx_head + 1) % UART_FIFO_SIZE;
		u->rx_count--;
	}
	return b;
}

u8 uart_read(struct uart16550 *u, u8 offset)
{
	bool dlab = u->lcr & UART_LCR_DLAB;
	u8 v;

	switch (offset & 7) {
	case UART_RBR:
		return dlab ? u->dll : rx_pop(u);
	case UART_IER:
		return dlab ? u->dlm : u->ier;
	case UART_IIR:
		v = ident(u);
		/* reading IIR with THRE the source clears it (Table IV) */
		if (v == UART_IIR_THRE)
			u->thr_irq = false;
		return v | (fifo_on(u) ? UART_IIR_FIFOS : 0);
	case UART_LCR:
		return u->lcr;
	case UART_MCR:
		return u->mcr;
	case UART_LSR:
		v = (u->rx_count ? UART_LSR_DR : 0) | u->lsr_errors | UART_LSR_IDLE;
		u->lsr_errors = 0;
		return v;
	case UART_MSR:
		v = u->msr_lines | u->msr_deltas;
		u->msr_deltas = 0;
		return v;
	default:
		return u->scr;
	}
}

int uart_write(struct uart16550 *u, u8 offset, u8 val)
{
	bool dlab = u->lcr & UART_LCR_DLAB;
	u8 old;

	switch (offset & 7) {
	case UART_THR:
		if (dlab) {
			u->dll = val;
			return -1;
		}
		/* sent at once: THR empty again, its interrupt due again */
		u->thr_irq = true;
		if (u->mcr & UART_MCR_LOOP) {
			uart_receive(u, val);
			return -1;
		}
		return val;
	case UART_IER:
		if (dlab) {
			u->dlm = val;
			return -1;
		}
		old = u->ier;
		u->ier = val & UART_IER_MASK;
		/* enabling it with THR empty interrupts at once */
		if (!(old & UART_IER_ETBEI) && (u->ier & UART_IER_ETBEI))
			u->thr_irq = true;
		return -1;
	case UART_FCR:
		/* switching the FIFOs on or off empties them; bits 1-2 self-clear */
		if (((val ^ u->fcr) & UART_FCR_ENABLE) || (val & UART_FCR_CLEAR_RX))
			rx_clear(u);
		u->fcr = val & UART_FCR_ENABLE ? val & 0xc9 : 0;
		return -1;
	case UART_LCR:
		u->lcr = val;
		return -1;
	case UART_MCR:
		u->mcr = val & UART_MCR_MASK;
		lines_changed(u);
		return -1;
	case UART_SCR:
		u->scr = val;
		return -1;
	default: /* LSR, MSR: factory test writes, ignored */
		return -1;
	}
}
