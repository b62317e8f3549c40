// SPDX-License-Identifier: MIT
/*
 * The serial console: a polled 16550.  The UART comes from the ACPI SPCR
 * table when the firmware describes one (I/O port or MMIO, 8- or 32-bit
 * registers, its baud rate), else COM1 (0x3f8) at 115200 8N1.  Optionally
 * mirrored to port 0xE9 (the Bochs and QEMU debug console) so emulator
 * runs can read output that the emulated UART may lose at shutdown.
 */
#include "console.h"
#include "acpi.h"
#include "boot_info.h"
#include "fbcon.h"
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
#define UART_BASE_BAUD 115200 /* 1.8432 MHz / 16, the PC UART clock */
#define DEBUGCON_PORT 0xe9
#define COM1_PORT 0x3f8

static struct acpi_spcr_uart uart = { .io_port = COM1_PORT, .reg_width = 1, .baud = 115200 };
static bool debugcon, to_serial = true, to_fb, have_fb;
static char where[96] = "COM1 0x3f8 115200 8N1 (default)";

static void uart_out(unsigned reg, u8 v)
{
	if (uart.io_port)
		outb(uart.io_port + reg, v);
	else if (uart.reg_width == 4)
		*(volatile u32 *)(uintptr_t)(uart.mmio_base + 4 * reg) = v;
	else
		*(volatile u8 *)(uintptr_t)(uart.mmio_base + reg) = v;
}

static u8 uart_in(unsigned reg)
{
	if (uart.io_port)
		return inb(uart.io_port + reg);
	if (uart.reg_width == 4)
		return (u8) * (volatile u32 *)(uintptr_t)(uart.mmio_base + 4 * reg);
	return *(volatile u8 *)(uintptr_t)(uart.mmio_base + reg);
}

static void uart_init(void)
{
	u32 divisor = uart.baud ? UART_BASE_BAUD / uart.baud : 0;

	uart_out(UART_IER, 0);
	/* baud 0: SPCR says "as is", the firmware's divisor stays */
	if (divisor) {
		uart_out(UART_LCR, UART_LCR_DLAB);
		uart_out(UART_DLL, divisor & 0xff);
		uart_out(UART_DLM, divisor >> 8);
	}
	uart_out(UART_LCR, 0x03); /* 8 data bits, no parity, 1 stop bit */
	uart_out(UART_FCR, 0x07); /* enable and clear FIFOs */
	uart_out(UART_MCR, 0x03); /* DTR, RTS */
}

void console_init(const struct boot_info *bi)
{
	struct acpi_spcr_uart spcr;
	char baud[24];

	if (acpi_find_spcr(bi->rsdp, &spcr) == 0) {
		uart = spcr;
		if (uart.baud)
			fmt_snprintf(baud, sizeof(baud), "%u 8N1", uart.baud);
		else
			fmt_snprintf(baud, sizeof(baud), "baud as the firmware set it");
		if (uart.io_port)
			fmt_snprintf(where, sizeof(where), "SPCR I/O port 0x%x, %s", uart.io_port,
				     baud);
		else
			fmt_snprintf(where, sizeof(where),
				     "SPCR MMIO UART at 0x%llx (%u-byte registers), %s",
				     (unsigned long long)uart.mmio_base, uart.reg_width, baud);
	}
	uart_init();
	have_fb = to_fb = fbcon_init(&bi->fb);
}

void console_set_mode(enum console_mode mode)
{
	to_serial = mode != CONSOLE_FB;
	to_fb = mode != CONSOLE_SERIAL && have_fb;
}

const char *console_fb_describe(void)
{
	return fbcon_describe();
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
	while (!(uart_in(UART_LSR) & UART_LSR_THRE) && spins++ < 100000)
		cpu_relax();
	uart_out(UART_THR, (u8)c);
}

void console_putc(char c)
{
	if (c == '\n')
		console_putc('\r');
	if (to_serial)
		uart_putc(c);
	if (to_fb)
		fbcon_putc(c);
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
