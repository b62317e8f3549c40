// SPDX-License-Identifier: MIT
/*
 * The console's serial outputs: polled 16550s, as mhv.cfg's serial key
 * chooses.  auto: the UART the ACPI SPCR table names, else every PC COM
 * port whose scratch register answers (all of them: a BMC's
 * serial-over-LAN may be any of them, and mhv cannot tell which one
 * somebody reads); an I/O port or a memory-mapped UART named in the
 * config; or none.  Each is set to 8N1 with its FIFOs on; its divisor is
 * programmed only where its input clock is known (the SPCR's clock field,
 * revision 3 and later; the config's, 1.8432 MHz for a port it names
 * without one), else the firmware's divisor stays.  A COM port found by
 * probing keeps the firmware's divisor: its clock is not known (a Super
 * I/O's 16550 runs from 1.8432 MHz, but AMD's FCH UARTs, which firmware
 * may decode at 0x3F8, from 48 MHz).  A UART whose transmitter does not
 * take a character within DRAIN_POLLS polls is left out from then on.
 */
#include "serial.h"
#include "acpi.h"
#include "lib/fmt.h"
#include "arch/ports.h"
#include "arch/uart.h"
#include "arch/x86.h"

#define MAX_UARTS 4
/*
 * Polls of the line status register for one character before a UART
 * counts as dead: a character takes 1 ms at 9600 bits/s, a poll (an I/O
 * port read) about a microsecond, so this is about a tenth of a second.
 */
#define DRAIN_POLLS 100000
#define SCRATCH_PATTERN1 0x55
#define SCRATCH_PATTERN2 0xaa

struct uart {
	u16 io_port;
	u64 mmio_base;
	u8 reg_width;
	bool dead, reported;
	char name[48];
};

static const u16 com_ports[] = { COM1_PORT, COM2_PORT, COM3_PORT, COM4_PORT };

static struct uart uarts[MAX_UARTS];
static unsigned nr_uarts;
static char where[256] = "none";
static char note[128];

static u8 hw_read(u16 port, u64 mmio, u8 width, unsigned reg)
{
	if (port)
		return inb(port + reg);
	if (width == 4)
		return (u8) * (volatile u32 *)(uintptr_t)(mmio + 4 * reg);
	return *(volatile u8 *)(uintptr_t)(mmio + reg);
}

static void hw_write(u16 port, u64 mmio, u8 width, unsigned reg, u8 v)
{
	if (port)
		outb(port + reg, v);
	else if (width == 4)
		*(volatile u32 *)(uintptr_t)(mmio + 4 * reg) = v;
	else
		*(volatile u8 *)(uintptr_t)(mmio + reg) = v;
}

static const struct serial_io hw_io = { .read = hw_read, .write = hw_write };
static const struct serial_io *io = &hw_io;

void serial_use_io(const struct serial_io *ops)
{
	io = ops;
}

static void uart_out(const struct uart *u, unsigned reg, u8 v)
{
	io->write(u->io_port, u->mmio_base, u->reg_width, reg, v);
}

static u8 uart_in(const struct uart *u, unsigned reg)
{
	return io->read(u->io_port, u->mmio_base, u->reg_width, reg);
}

/* "COM2 0x2f8", "I/O port 0x2e0", "MMIO 0xfedc9000 (4-byte registers)" */
static void uart_name(struct uart *u)
{
	unsigned i;

	if (u->mmio_base) {
		fmt_snprintf(u->name, sizeof(u->name), "MMIO 0x%llx (%u-byte registers)",
			     (unsigned long long)u->mmio_base, u->reg_width);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(com_ports); i++)
		if (u->io_port == com_ports[i])
			break;
	if (i < ARRAY_SIZE(com_ports))
		fmt_snprintf(u->name, sizeof(u->name), "COM%u 0x%x", i + 1, u->io_port);
	else
		fmt_snprintf(u->name, sizeof(u->name), "I/O port 0x%x", u->io_port);
}

static struct uart *uart_add(u16 io_port, u64 mmio_base, u8 reg_width)
{
	struct uart *u = &uarts[nr_uarts++];

	*u = (struct uart){ .io_port = io_port, .mmio_base = mmio_base, .reg_width = reg_width };
	uart_name(u);
	return u;
}

/*
 * 8N1, FIFOs on, no interrupts; the divisor for baud when the clock is
 * known.  How it was set goes into speed: "115200 8N1" or why the
 * firmware's divisor stays.
 */
static void uart_setup(const struct uart *u, u32 baud, u32 clock_hz, char *speed, size_t size)
{
	u32 divisor = uart_divisor(clock_hz, baud);

	uart_out(u, UART_IER, 0);
	if (divisor) {
		uart_out(u, UART_LCR, UART_LCR_DLAB);
		uart_out(u, UART_DLL, divisor & 0xff);
		uart_out(u, UART_DLM, divisor >> 8);
		fmt_snprintf(speed, size, "%u 8N1", baud);
	} else if (!baud) {
		fmt_snprintf(speed, size, "8N1 at the firmware's baud rate");
	} else if (!clock_hz) {
		fmt_snprintf(speed, size,
			     "8N1 at the firmware's baud rate (%u wanted, clock unknown)", baud);
	} else {
		fmt_snprintf(speed, size,
			     "8N1 at the firmware's baud rate (%u cannot be made from %u Hz)", baud,
			     clock_hz);
	}
	uart_out(u, UART_LCR, 0x03); /* 8 data bits, no parity, 1 stop bit */
	uart_out(u, UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	uart_out(u, UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
}

/*
 * A 16450 or 16550 keeps what is written to its scratch register
 * (PC16550D, "Scratchpad Register"); where no UART decodes the port a
 * read returns the floating bus, 0xff.  Two patterns, and the old value
 * put back.
 */
static bool scratch_answers(u16 port)
{
	u8 old = io->read(port, 0, 1, UART_SCR);
	bool ok;

	io->write(port, 0, 1, UART_SCR, SCRATCH_PATTERN1);
	ok = io->read(port, 0, 1, UART_SCR) == SCRATCH_PATTERN1;
	io->write(port, 0, 1, UART_SCR, SCRATCH_PATTERN2);
	ok = ok && io->read(port, 0, 1, UART_SCR) == SCRATCH_PATTERN2;
	io->write(port, 0, 1, UART_SCR, old);
	return ok;
}

static void init_auto(u64 rsdp)
{
	struct acpi_spcr_uart spcr;
	char speed[96], clock[48] = "";
	const char *why;
	size_t n = 0;
	unsigned i;

	if (acpi_find_spcr(rsdp, &spcr, &why) == 0) {
		struct uart *u = uart_add(spcr.io_port, spcr.mmio_base, spcr.reg_width);

		uart_setup(u, spcr.baud, spcr.clock_hz, speed, sizeof(speed));
		if (spcr.clock_hz)
			fmt_snprintf(clock, sizeof(clock), ", %u Hz clock", spcr.clock_hz);
		fmt_snprintf(where, sizeof(where), "%s, %s (ACPI SPCR revision %u%s)", u->name,
			     speed, spcr.revision, clock);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(com_ports); i++) {
		if (!scratch_answers(com_ports[i]))
			continue;
		uart_setup(uart_add(com_ports[i], 0, 1), 0, 0, speed, sizeof(speed));
		n += fmt_snprintf(where + n, sizeof(where) - n, "%s%s", n ? ", " : "",
				  uarts[nr_uarts - 1].name);
	}
	if (!nr_uarts)
		fmt_snprintf(where, sizeof(where), "none (%s, and no COM port answers)", why);
	else
		fmt_snprintf(where + n, sizeof(where) - n, ", %s (%s; the COM ports that answer)",
			     speed, why);
}

unsigned serial_init(const struct serial_choice *choice, u64 rsdp)
{
	char speed[96];
	struct uart *u;

	nr_uarts = 0;
	switch (choice->how) {
	case SERIAL_AUTO:
		init_auto(rsdp);
		break;
	case SERIAL_NONE:
		fmt_snprintf(where, sizeof(where), "none (serial = none)");
		break;
	case SERIAL_PORT:
	case SERIAL_MMIO:
		if (choice->how == SERIAL_PORT)
			u = uart_add((u16)choice->base, 0, 1);
		else
			u = uart_add(0, choice->base, choice->reg_width);
		uart_setup(u, choice->baud, choice->clock_hz, speed, sizeof(speed));
		fmt_snprintf(where, sizeof(where), "%s, %s (from mhv.cfg)", u->name, speed);
		break;
	}
	return nr_uarts;
}

bool serial_putc(char c)
{
	bool died = false;
	unsigned i, polls;

	for (i = 0; i < nr_uarts; i++) {
		struct uart *u = &uarts[i];

		if (u->dead)
			continue;
		for (polls = 0; !(uart_in(u, UART_LSR) & UART_LSR_THRE); polls++) {
			if (polls == DRAIN_POLLS) {
				u->dead = died = true;
				break;
			}
			cpu_relax();
		}
		if (!u->dead)
			uart_out(u, UART_THR, (u8)c);
	}
	return died;
}

const char *serial_take_note(void)
{
	unsigned i;

	for (i = 0; i < nr_uarts; i++) {
		if (!uarts[i].dead || uarts[i].reported)
			continue;
		uarts[i].reported = true;
		fmt_snprintf(note, sizeof(note),
			     "mhv: serial: %s took no character in %u polls: left out from here on",
			     uarts[i].name, DRAIN_POLLS);
		return note;
	}
	return NULL;
}

const char *serial_describe(void)
{
	return where;
}
