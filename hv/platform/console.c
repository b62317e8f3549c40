// SPDX-License-Identifier: MIT
/*
 * The console: the serial outputs mhv.cfg's serial key chooses (serial.c:
 * the ACPI SPCR's UART, else every PC COM port that answers) and the
 * GOP framebuffer.  Optionally mirrored to port 0xE9 (the Bochs and QEMU
 * debug console) so emulator runs can read output that the emulated UART
 * may lose at shutdown.
 */
#include "console.h"
#include "console_log.h"
#include "serial.h"
#include "lib/boot_info.h"
#include "fbcon.h"
#include "tsc.h"
#include "lib/fmt.h"
#include "host/percpu.h"
#include "host/page_alloc.h"
#include "arch/ports.h"
#include "arch/x86.h"

static bool debugcon, to_serial = true, to_fb, have_fb;
static bool screen_held; /* console_screen_hold */
static bool screen_only; /* console_screen_only */
/* a UART was left out: a line saying so follows the current line */
static bool serial_note_due;

/*
 * While CPUs run VMs at once (console_lines_per_cpu), each CPU's output
 * is collected into whole lines and a line goes out under a lock, so
 * lines of several CPUs never mix.  The lock remembers its holder: a CPU
 * that faults or takes an NMI while printing prints on instead of
 * waiting for itself.
 */
#define CPU_LINE_MAX 256
#define NO_HOLDER (~0u)
/* The longest wait for another CPU's line, in seconds of the TSC (before
 * its calibration, 2^31 ticks): a holder that never lets go must not hang
 * the others. */
#define LOCK_WAIT_SECONDS 2

struct cpu_line {
	char text[CPU_LINE_MAX];
	u32 len;
	bool tagged; /* "[cpuN] " before each line */
};

/* nr_lines of them, one per CPU (console_lines_alloc) */
static struct cpu_line *cpu_lines;
static unsigned nr_lines;
static volatile bool per_cpu_lines;
static volatile u32 line_holder = NO_HOLDER;

void console_init(const struct boot_info *bi, const struct serial_choice *serial)
{
	serial_init(serial, bi->rsdp);
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

bool console_screen_only(bool on)
{
	bool was = screen_only;

	screen_only = on;
	return was;
}

bool console_screen_size(u32 *cols, u32 *rows)
{
	*cols = fbcon_columns();
	*rows = fbcon_rows();
	return to_fb && *cols && *rows;
}

void console_set_screen_pause(u32 seconds)
{
	fbcon_set_pause(seconds * host_tsc.clock_hz);
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
	return serial_describe();
}

void console_putc(char c)
{
	const char *note;

	if (c == '\n')
		console_putc('\r');
	if (!screen_only)
		console_log_putc(c);
	if (to_serial && !screen_only && serial_putc(c))
		serial_note_due = true;
	if (to_fb && !screen_held)
		fbcon_putc(c);
	if (debugcon && c != '\r')
		outb(DEBUGCON_PORT, (u8)c);
	/* on the outputs still working, after the line it broke off in */
	if (c == '\n' && serial_note_due) {
		serial_note_due = false;
		while ((note = serial_take_note())) {
			while (*note)
				console_putc(*note++);
			console_putc('\n');
		}
	}
}

static void console_sink(void *ctx, char c)
{
	(void)ctx;
	console_putc(c);
}

/* The line lock for cpu; false when cpu already holds it (a fault or an
 * NMI inside its own printing): nothing to release then.  A wait gives
 * up after seconds and takes the lock over: mixed lines beat a hang. */
static u64 lock_wait_ticks(void)
{
	return host_tsc.clock_hz ? host_tsc.clock_hz * LOCK_WAIT_SECONDS : 1ull << 31;
}

static bool line_lock(u32 cpu)
{
	u32 free = NO_HOLDER;
	u64 deadline = 0;

	if (__atomic_load_n(&line_holder, __ATOMIC_RELAXED) == cpu)
		return false;
	while (!__atomic_compare_exchange_n(&line_holder, &free, cpu, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		free = NO_HOLDER;
		if (!deadline)
			deadline = rdtsc() + lock_wait_ticks();
		else if (rdtsc() > deadline)
			break;
		cpu_relax();
	}
	/* a holder stopped for good (halted by a fatal error) or stuck:
	 * take the lock over, so the next lines do not wait for it again */
	__atomic_store_n(&line_holder, cpu, __ATOMIC_RELEASE);
	return true;
}

static void line_unlock(bool taken)
{
	if (taken)
		__atomic_store_n(&line_holder, NO_HOLDER, __ATOMIC_RELEASE);
}

static void put_line(u32 cpu, struct cpu_line *l)
{
	bool taken = line_lock(cpu);
	char tag[16];
	u32 i;

	if (l->tagged) {
		fmt_snprintf(tag, sizeof(tag), "[cpu%u] ", cpu);
		for (i = 0; tag[i]; i++)
			console_putc(tag[i]);
	}
	for (i = 0; i < l->len; i++)
		console_putc(l->text[i]);
	console_putc('\n');
	l->len = 0;
	line_unlock(taken);
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

bool console_lines_alloc(unsigned n)
{
	cpu_lines = alloc_pages_zeroed((n * sizeof(*cpu_lines) + PAGE_SIZE - 1) / PAGE_SIZE);
	nr_lines = cpu_lines ? n : 0;
	return cpu_lines;
}

bool console_lines_per_cpu(bool on)
{
	bool was = per_cpu_lines;
	unsigned i;

	/* what a CPU left without its newline goes out before the mode ends */
	for (i = 0; !on && i < nr_lines; i++)
		if (cpu_lines[i].len)
			put_line(i, &cpu_lines[i]);
	per_cpu_lines = on;
	return was;
}

void console_tag_cpu_lines(bool on)
{
	if (this_cpu()->index < nr_lines)
		cpu_lines[this_cpu()->index].tagged = on;
}

int console_vprintf(const char *fmt, va_list ap)
{
	struct cpu *cpu = this_cpu();
	bool taken;
	int n;

	if (per_cpu_lines && cpu->index < nr_lines)
		return fmt_vformat(line_sink, cpu, fmt, ap);
	/* Outside per-CPU lines another CPU prints only by exception (a
	 * machine check, a fatal error): one call's text stays whole. */
	taken = line_lock(cpu->index);
	n = fmt_vformat(console_sink, NULL, fmt, ap);
	line_unlock(taken);
	return n;
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
