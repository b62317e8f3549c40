// SPDX-License-Identifier: MIT
/*
 * The serial console: a polled 16550.  The port comes from the ACPI SPCR
 * table when the firmware describes one with an I/O-port UART, else COM1
 * (0x3f8), always 115200 8N1.  Optionally mirrored to port 0xE9 (the Bochs
 * and QEMU debug console) so emulator runs can read output that the
 * emulated UART may lose at shutdown.
 */
#include "console.h"
#include "acpi.h"
#include "boot_info.h"
#include "fmt.h"
#include "x86.h"

/* 16550 registers (PC16550D datasheet) */
#define UART_THR 0
#define UART_IER 1
#define UART_DLL 0
#define UART_DLM 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_LSR_THRE BIT(5)
#define UART_LCR_DLAB BIT(7)
#define UART_CLOCK_DIVISOR_115200 1
#define DEBUGCON_PORT 0xe9
#define COM1_PORT 0x3f8

static u16 uart_port = COM1_PORT;
static bool debugcon;
static char where[48] = "COM1 0x3f8 (default)";

static void uart_init(u16 port)
{
	outb(port + UART_IER, 0);
	outb(port + UART_LCR, UART_LCR_DLAB);
	outb(port + UART_DLL, UART_CLOCK_DIVISOR_115200);
	outb(port + UART_DLM, 0);
	outb(port + UART_LCR, 0x03); /* 8 data bits, no parity, 1 stop bit */
	outb(port + UART_FCR, 0x07); /* enable and clear FIFOs */
	outb(port + UART_MCR, 0x03); /* DTR, RTS */
}

void console_init(const struct boot_info *bi)
{
	struct acpi_spcr_uart spcr;

	if (acpi_find_spcr(bi->rsdp, &spcr) == 0) {
		if (spcr.io_port) {
			uart_port = spcr.io_port;
			fmt_snprintf(where, sizeof(where), "SPCR I/O port 0x%x", uart_port);
		} else {
			fmt_snprintf(where, sizeof(where),
				     "COM1 0x3f8 (SPCR names MMIO UART 0x%llx: not supported yet)",
				     (unsigned long long)spcr.mmio_base);
		}
	}
	uart_init(uart_port);
}

void console_set_debugcon(bool on)
{
	debugcon = on;
}

const char *console_describe(void)
{
	return where;
}

static void uart_putc(char c)
{
	unsigned spins = 0;

	/* Bounded: a missing UART must not hang the hypervisor. */
	while (!(inb(uart_port + UART_LSR) & UART_LSR_THRE) && spins++ < 100000)
		cpu_relax();
	outb(uart_port + UART_THR, (u8)c);
}

void console_putc(char c)
{
	if (c == '\n')
		console_putc('\r');
	uart_putc(c);
	if (debugcon && c != '\r')
		outb(DEBUGCON_PORT, (u8)c);
}

static void console_sink(void *ctx, char c)
{
	(void)ctx;
	console_putc(c);
}

int console_vprintf(const char *fmt, va_list ap)
{
	return fmt_vformat(console_sink, NULL, fmt, ap);
}

int console_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = console_vprintf(fmt, ap);
	va_end(ap);
	return n;
}
