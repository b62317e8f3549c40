// SPDX-License-Identifier: MIT
/*
 * The console's serial outputs (hv/platform/serial.c) against a model of
 * 16550s (PC16550D: the divisor latch behind LCR.DLAB, the scratch
 * register, LSR.THRE): which UARTs serial = auto finds with and without
 * an ACPI SPCR, the divisor each gets (or the firmware's kept), and a
 * UART that never drains left out after its first time-out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform/serial.h"
#include "arch/uart.h"
#include "tests/common/acpi_build.h"

#define DRAIN_POLLS 100000 /* serial.c's: the polls before a UART is dead */

struct fake_uart {
	bool present, stuck; /* stuck: THRE never sets */
	u16 port;
	u64 mmio;
	u8 width;
	u8 ier, lcr, fcr, mcr, scr, dll, dlm;
	unsigned divisor_writes, lsr_reads, accesses;
	char sent[64];
	size_t nsent;
};

/* COM1..COM4, and an MMIO UART at 0xfedc9000 */
static struct fake_uart fakes[5];

static struct fake_uart *find(u16 port, u64 mmio, u8 width)
{
	for (unsigned i = 0; i < 5; i++) {
		struct fake_uart *f = &fakes[i];

		if (f->present && (port ? f->port == port : f->mmio == mmio)) {
			if (!port)
				assert_int_equal(width, f->width);
			f->accesses++;
			return f;
		}
	}
	return NULL;
}

static u8 fake_read(u16 port, u64 mmio, u8 width, unsigned reg)
{
	struct fake_uart *f = find(port, mmio, width);

	if (!f)
		return 0xff; /* nothing decodes the address: the floating bus */
	switch (reg) {
	case UART_LSR:
		f->lsr_reads++;
		return f->stuck ? 0 : UART_LSR_IDLE;
	case UART_SCR:
		return f->scr;
	case UART_LCR:
		return f->lcr;
	default:
		return 0;
	}
}

static void fake_write(u16 port, u64 mmio, u8 width, unsigned reg, u8 v)
{
	struct fake_uart *f = find(port, mmio, width);
	bool dlab;

	if (!f)
		return;
	dlab = f->lcr & UART_LCR_DLAB;
	switch (reg) {
	case UART_THR: /* and DLL */
		if (dlab) {
			f->dll = v;
			f->divisor_writes++;
		} else {
			assert_true(f->nsent < sizeof(f->sent) - 1);
			f->sent[f->nsent++] = (char)v;
		}
		break;
	case UART_IER: /* and DLM */
		if (dlab) {
			f->dlm = v;
			f->divisor_writes++;
		} else {
			f->ier = v;
		}
		break;
	case UART_FCR:
		f->fcr = v;
		break;
	case UART_LCR:
		f->lcr = v;
		break;
	case UART_MCR:
		f->mcr = v;
		break;
	case UART_SCR:
		f->scr = v;
		break;
	}
}

static const struct serial_io fake_io = { .read = fake_read, .write = fake_write };

static void machine(bool com1, bool com2, bool com3, bool com4, bool mmio)
{
	static const u16 ports[] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
	bool present[] = { com1, com2, com3, com4, mmio };

	memset(fakes, 0, sizeof(fakes));
	for (unsigned i = 0; i < 5; i++) {
		fakes[i].present = present[i];
		fakes[i].port = i < 4 ? ports[i] : 0;
		fakes[i].mmio = i < 4 ? 0 : 0xfedc9000;
		fakes[i].width = i < 4 ? 1 : 4;
		fakes[i].scr = 0x42; /* what the firmware left there */
		fakes[i].dll = 0x0c; /* the firmware's divisor: 9600 at 1.8432 MHz */
	}
	serial_use_io(&fake_io);
}

static void assert_8n1(const struct fake_uart *f)
{
	assert_int_equal(f->lcr, 0x03);
	assert_int_equal(f->ier, 0);
	assert_int_equal(f->fcr, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
	assert_int_equal(f->mcr, UART_MCR_DTR | UART_MCR_RTS);
}

static void send(const char *s)
{
	while (*s)
		assert_false(serial_putc(*s++));
}

/*
 * No SPCR: every COM port whose scratch register answers, at the
 * firmware's baud rate: a probed port's clock is not known (an AMD FCH
 * UART decoded at 0x3F8 runs from 48 MHz, where 1.8432 MHz's divisor 1
 * would give 3 Mbit/s), so its divisor stays.
 */
static void test_auto_all_com_ports(void **state)
{
	struct serial_choice c = { .how = SERIAL_AUTO };

	machine(true, true, false, true, false);
	assert_int_equal(serial_init(&c, 0), 3);
	assert_string_equal(serial_describe(),
			    "COM1 0x3f8, COM2 0x2f8, COM4 0x2e8, 8N1 at the firmware's baud rate "
			    "(no ACPI SPCR table; the COM ports that answer)");
	for (unsigned i = 0; i < 4; i++) {
		if (i == 2)
			continue;
		assert_8n1(&fakes[i]);
		assert_int_equal(fakes[i].dll, 0x0c);
		assert_int_equal(fakes[i].dlm, 0);
		assert_int_equal(fakes[i].scr, 0x42); /* put back after the probe */
	}
	send("ok\n");
	assert_string_equal(fakes[0].sent, "ok\n");
	assert_string_equal(fakes[1].sent, "ok\n");
	assert_string_equal(fakes[3].sent, "ok\n");

	/* nothing answers: no serial output, and why */
	machine(false, false, false, false, false);
	assert_int_equal(serial_init(&c, 0), 0);
	assert_string_equal(serial_describe(),
			    "none (no ACPI SPCR table, and no COM port answers)");
	send("x");
}

/* A UART whose transmitter never empties: left out after one time-out,
 * once said, and the others go on. */
static void test_dead_uart(void **state)
{
	struct serial_choice c = { .how = SERIAL_AUTO };
	const char *note;
	unsigned reads;

	machine(true, true, false, false, false);
	assert_int_equal(serial_init(&c, 0), 2);
	send("a");
	fakes[1].stuck = true;
	assert_null(serial_take_note());
	reads = fakes[1].lsr_reads;
	assert_true(serial_putc('b'));
	assert_int_equal(fakes[1].lsr_reads - reads, DRAIN_POLLS + 1);
	note = serial_take_note();
	assert_non_null(note);
	assert_string_equal(note, "mhv: serial: COM2 0x2f8 took no character in 100000 polls: "
				  "left out from here on");
	assert_null(serial_take_note()); /* said once */
	reads = fakes[1].accesses;
	send("cd");
	assert_int_equal(fakes[1].accesses, reads); /* not touched again */
	assert_string_equal(fakes[0].sent, "abcd");
	assert_string_equal(fakes[1].sent, "a");
}

/* serial = none, PORT, mmio32: only what is named; baud 0 keeps the divisor */
static void test_configured(void **state)
{
	struct serial_choice none = { .how = SERIAL_NONE };
	struct serial_choice com2 = {
		.how = SERIAL_PORT, .base = 0x2f8, .baud = 9600, .clock_hz = UART_PC_CLOCK_HZ
	};
	struct serial_choice keep = { .how = SERIAL_PORT, .base = 0x3f8 };
	struct serial_choice mmio = { .how = SERIAL_MMIO,
				      .base = 0xfedc9000,
				      .reg_width = 4,
				      .baud = 115200,
				      .clock_hz = 48000000 };

	machine(true, true, false, false, true);
	assert_int_equal(serial_init(&none, 0), 0);
	assert_string_equal(serial_describe(), "none (serial = none)");
	send("x");
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(fakes[i].accesses, 0);

	assert_int_equal(serial_init(&com2, 0), 1);
	assert_string_equal(serial_describe(), "COM2 0x2f8, 9600 8N1 (from mhv.cfg)");
	assert_int_equal(fakes[0].accesses, 0); /* COM1 is not probed */
	assert_8n1(&fakes[1]);
	assert_int_equal(fakes[1].dll, 12);
	send("y");
	assert_string_equal(fakes[1].sent, "y");

	assert_int_equal(serial_init(&keep, 0), 1);
	assert_string_equal(serial_describe(),
			    "COM1 0x3f8, 8N1 at the firmware's baud rate (from mhv.cfg)");
	assert_int_equal(fakes[0].divisor_writes, 0);
	assert_int_equal(fakes[0].dll, 0x0c);
	assert_8n1(&fakes[0]);

	assert_int_equal(serial_init(&mmio, 0), 1);
	assert_string_equal(serial_describe(),
			    "MMIO 0xfedc9000 (4-byte registers), 115200 8N1 (from mhv.cfg)");
	assert_int_equal(fakes[4].dll, 26);
	assert_int_equal(fakes[4].dlm, 0);
}

static uint8_t spcr[80], xsdt[64], rsdp[36];

/* An SPCR (this revision, this clock) for the MMIO UART, 32-bit registers, 115200 */
static uint64_t build_spcr(uint8_t revision, uint32_t clock_hz)
{
	uint64_t base = 0xfedc9000;
	uint8_t *tables[] = { spcr };

	memset(spcr, 0, sizeof(spcr));
	acpi_build_header(spcr, "SPCR", sizeof(spcr));
	spcr[8] = revision;
	spcr[36] = 0x12; /* 16550 with its parameters in the GAS */
	spcr[41] = 32;
	spcr[43] = 3;
	memcpy(spcr + 44, &base, 8);
	spcr[58] = 7;
	memcpy(spcr + 76, &clock_hz, 4);
	acpi_build_checksum(spcr, sizeof(spcr), 9);
	return acpi_build_root(rsdp, xsdt, tables, 1);
}

/* auto with an SPCR: that UART alone; its divisor only from a known clock */
static void test_auto_spcr(void **state)
{
	struct serial_choice c = { .how = SERIAL_AUTO };

	machine(true, true, false, false, true);
	assert_int_equal(serial_init(&c, build_spcr(3, 48000000)), 1);
	assert_string_equal(serial_describe(),
			    "MMIO 0xfedc9000 (4-byte registers), 115200 8N1 (ACPI SPCR revision 3, "
			    "48000000 Hz clock)");
	assert_int_equal(fakes[4].dll, 26); /* 48 MHz / 16 / 26 = 115385 */
	assert_8n1(&fakes[4]);
	assert_int_equal(fakes[0].accesses, 0); /* the COM ports are not probed */
	assert_int_equal(fakes[1].accesses, 0);

	/* revision 2 gives no clock: the firmware's divisor stays */
	machine(true, true, false, false, true);
	assert_int_equal(serial_init(&c, build_spcr(2, 0)), 1);
	assert_string_equal(serial_describe(),
			    "MMIO 0xfedc9000 (4-byte registers), 8N1 at the firmware's baud rate "
			    "(115200 wanted, clock unknown) (ACPI SPCR revision 2)");
	assert_int_equal(fakes[4].divisor_writes, 0);
	assert_int_equal(fakes[4].dll, 0x0c);
	assert_8n1(&fakes[4]);

	/* a clock that cannot make the baud rate: kept, and said */
	machine(false, false, false, false, true);
	assert_int_equal(serial_init(&c, build_spcr(3, 1000000)), 1);
	assert_string_equal(serial_describe(),
			    "MMIO 0xfedc9000 (4-byte registers), 8N1 at the firmware's baud rate "
			    "(115200 cannot be made from 1000000 Hz) (ACPI SPCR revision 3, "
			    "1000000 Hz clock)");
	assert_int_equal(fakes[4].divisor_writes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_all_com_ports),
		cmocka_unit_test(test_dead_uart),
		cmocka_unit_test(test_configured),
		cmocka_unit_test(test_auto_spcr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
