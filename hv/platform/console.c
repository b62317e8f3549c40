// SPDX-License-Identifier: MIT
/*
 * The serial console: a polled 16550.  The UART comes from the ACPI SPCR
 * table when the firmware describes one (I/O port or MMIO, 8- or 32-bit
 * registers, its baud rate), else COM1 (0x3f8) at 115200 8N1.  Optionally
 * mirrored to port 0xE9 (the Bochs and QEMU debug console) so emulator
 * runs can read output that the emulated UART may lose at shutdown.
 */
#include "console.h"
#include "console_log.h"
#include "acpi.h"
#include "lib/boot_info.h"
#include "fbcon.h"
#include "lib/fmt.h"
#include "host/percpu.h"
#include "arch/ports.h"
#include "arch/uart.h"
#include "arch/x86.h"

static struct acpi_spcr_uart uart = { .io_port = COM1_PORT, .reg_width = 1, .baud = 115200 };
static bool debugcon, to_serial = true, to_fb, have_fb;
static bool screen_held; /* console_screen_hold */
static char where[96] = "COM1 0x3f8 115200 8N1 (default)";

/*
 * While CPUs run VMs at once (console_lines_per_cpu), each CPU's output
 * is collected into whole lines and a line goes out under a lock, so
 * lines of several CPUs never mix.  The lock remembers its holder: a CPU
 * that faults or takes an NMI while printing prints on instead of
 * waiting for itself.
 */
#define CPU_LINE_MAX 256
#define NO_HOLDER (~0u)
/* about seconds of waiting: a holder that never lets go must not hang the others */
#define LOCK_SPINS (1u << 26)

struct cpu_line {
	char text[CPU_LINE_MAX];
	u32 len;
	bool tagged; /* "[cpuN] " before each line */
};

static struct cpu_line cpu_lines[MAX_CPUS];
static volatile bool per_cpu_lines;
static volatile u32 line_holder = NO_HOLDER;

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

bool console_screen_hold(bool hold)
{
	bool was = screen_held;

	screen_held = hold;
	return was;
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
	console_log_putc(c);
	if (to_serial)
		uart_putc(c);
	if (to_fb && !screen_held)
		fbcon_putc(c);
	if (debugcon && c != '\r')
		outb(DEBUGCON_PORT, (u8)c);
}

static void console_sink(void *ctx, char c)
{
	(void)ctx;
	console_putc(c);
}

static void put_line(u32 cpu, struct cpu_line *l)
{
	u32 free = NO_HOLDER, spins = 0, i;
	bool mine = __atomic_load_n(&line_holder, __ATOMIC_RELAXED) == cpu;
	char tag[16];

	while (!mine && !__atomic_compare_exchange_n(&line_holder, &free, cpu, false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		free = NO_HOLDER;
		if (++spins == LOCK_SPINS)
			break; /* print anyway: mixed lines beat a hang */
		cpu_relax();
	}
	if (l->tagged) {
		fmt_snprintf(tag, sizeof(tag), "[cpu%u] ", cpu);
		for (i = 0; tag[i]; i++)
			console_putc(tag[i]);
	}
	for (i = 0; i < l->len; i++)
		console_putc(l->text[i]);
	console_putc('\n');
	l->len = 0;
	if (!mine && spins < LOCK_SPINS)
		__atomic_store_n(&line_holder, NO_HOLDER, __ATOMIC_RELEASE);
}

static void line_sink(void *ctx, char c)
{
	struct cpu *cpu = ctx;
	struct cpu_line *l = &cpu_lines[cpu->index];

	if (c == '\n') {
		put_line(cpu->index, l);
		return;
	}
	l->text[l->len++] = c;
	if (l->len == sizeof(l->text))
		put_line(cpu->index, l); /* an overlong line goes out in pieces */
}

bool console_lines_per_cpu(bool on)
{
	bool was = per_cpu_lines;
	unsigned i;

	/* what a CPU left without its newline goes out before the mode ends */
	for (i = 0; !on && i < MAX_CPUS; i++)
		if (cpu_lines[i].len)
			put_line(i, &cpu_lines[i]);
	per_cpu_lines = on;
	return was;
}

void console_tag_cpu_lines(bool on)
{
	cpu_lines[this_cpu()->index].tagged = on;
}

int console_vprintf(const char *fmt, va_list ap)
{
	if (per_cpu_lines)
		return fmt_vformat(line_sink, this_cpu(), fmt, ap);
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
