// SPDX-License-Identifier: MIT
/*
 * The board's registrations: which device serves which ports and
 * guest-physical windows, as tables, and the board's timer.  Registered
 * in this order, the ports the exit benchmarks use first: a vCPU's first
 * access to a port searches the bus (core/io.c keeps a hint after that).
 */
#include "board.h"
#include "board_devices.h"
#include "pit_timer.h"
#include "core/bus.h"
#include "core/vm.h"
#include "host/page_alloc.h"
#include "lib/boot_info.h"
#include "lib/guest_abi.h"
#include "platform/console.h"
#include "platform/host_timer.h"
#include "platform/tsc.h"
#include "arch/apic.h"
#include "arch/ports.h"
#include "arch/x86.h"

/* The 4 KiB the board is given (one page from the VM's arena). */
_Static_assert(sizeof(struct board) <= PAGE_SIZE, "struct board fits its page");

enum board_dev {
	ON_VM,	  /* the VM's benchmark instruments (core/vm.h) */
	ON_BOARD, /* struct board */
};

/* A registration: a port range or an MMIO window, and whose state its
 * handlers are given. */
struct board_row {
	bool window;
	union {
		struct bus_ports ports;
		struct bus_mmio mmio;
	};
	enum board_dev dev;
};

#define FAST true
#define GENERAL false /* may wait: prints on the host (COM1), or rare */
#define PORTS(name, base, count, fast, handler, owner)                                   \
	{                                                                                \
		.ports = { name, base, count, fast, handler##_in, handler##_out, NULL }, \
		.dev = owner                                                             \
	}
#define WINDOW(name, base, size, handler, owner)                                                   \
	{                                                                                          \
		.window = true, .mmio = { name, base, size, handler##_access, NULL }, .dev = owner \
	}

/*
 * The last column but one says whether the fast exit path may call the
 * device: GENERAL for one that may wait, the UART, whose writes print
 * the guest's console line on the host's screen and serial ports.
 */
static const struct board_row board_rows[] = {
	PORTS("test port", GUEST_TEST_PORT, 4, FAST, test_port, ON_VM),
	PORTS("ACPI PM timer", GUEST_PM_TIMER_PORT, 4, FAST, pm_timer, ON_BOARD),
	PORTS("COM1", GUEST_SERIAL_PORT, 8, GENERAL, com1, ON_BOARD),
	PORTS("exit port", GUEST_EXIT_PORT, 4, FAST, exit_port, ON_VM),
	PORTS("fw_cfg", FW_CFG_SELECTOR_PORT, 2, FAST, fw_cfg, ON_BOARD),
	PORTS("shutdown port", GUEST_SHUTDOWN_PORT, 1, FAST, shutdown_port, ON_VM),
	PORTS("system control A", SYSCTL_A_PORT, 1, FAST, sysctl_a, ON_BOARD),
	PORTS("reset control", RESET_CONTROL_PORT, 1, FAST, rst_cnt, ON_BOARD),
	/* two ports, not one range over 0x60-0x64: 0x61 is the PIT's */
	PORTS("8042 data", I8042_DATA_PORT, 1, FAST, i8042_data, ON_BOARD),
	PORTS("8042 command", I8042_CMD_PORT, 1, FAST, i8042_cmd, ON_BOARD),
	PORTS("ACPI PM1a event", GUEST_PM1A_EVT_PORT, 4, FAST, pm1_evt, ON_BOARD),
	PORTS("ACPI PM1a control", GUEST_PM1A_CNT_PORT, 2, FAST, pm1_cnt, ON_BOARD),
	PORTS("8254 PIT", PIT_CH0_PORT, 4, FAST, pit_port, ON_BOARD),
	PORTS("port B (PIT gate)", PIT_PORT_B, 1, FAST, port_b, ON_BOARD),
	PORTS("CMOS RTC", RTC_INDEX_PORT, 2, FAST, rtc_port, ON_BOARD),
	/* pc-testdev's interrupt lines, which kvm-unit-tests drives the
	 * I/O APIC with: the I/O APIC acts for the vCPU that wrote them */
	PORTS("IRQ lines", GUEST_IRQ_LINE_PORT, IOAPIC_PINS, GENERAL, irq_lines, ON_BOARD),

	WINDOW("MMIO test device", GUEST_MMIO_BASE, GUEST_MMIO_SIZE, test_mmio, ON_VM),
	/* the page of whichever vCPU accesses it (SDM Vol 3 §11.4.1) */
	WINDOW("xAPIC", APIC_DEFAULT_BASE, APIC_MMIO_SIZE, xapic, ON_BOARD),
	WINDOW("I/O APIC", IOAPIC_DEFAULT_BASE, IOAPIC_MMIO_SIZE, ioapic, ON_BOARD),
};

static const struct bus_timer board_timer = { .name = "8254 PIT IRQ0", .poll = pit_timer_poll };

/* UTC seconds since 1970 at host TSC wall_tsc: the VMs' CMOS clocks start
 * from it, advanced by the TSC.  Without a firmware clock: 2000-01-01. */
static s64 wall_seconds = 946684800;
static u64 wall_tsc;

#define EFI_UNSPECIFIED_TIMEZONE 0x7ff /* UEFI 2.10 §8.3 EFI_TIME: local time */

void board_set_wall_clock(const struct boot_wall_clock *w)
{
	struct rtc_time t;
	u8 wday;

	if (!w->valid) {
		console_printf(
		    "mhv: wall clock: UEFI GetTime failed; the guests' CMOS clocks start "
		    "at 2000-01-01 00:00:00\n");
		return;
	}
	wall_tsc = w->tsc;
	wall_seconds = rtc_days_from_date(w->year, w->month, w->day) * 86400 + w->hour * 3600 +
		       w->minute * 60 + w->second;
	/* UEFI: local time = UTC - TimeZone (minutes) */
	if (w->tz_minutes != EFI_UNSPECIFIED_TIMEZONE)
		wall_seconds += w->tz_minutes * 60;
	rtc_date_from_seconds(wall_seconds, &t, &wday);
	console_printf("mhv: wall clock: %04u-%02u-%02u %02u:%02u:%02u %s (UEFI GetTime), the "
		       "guests' CMOS clocks start from it\n",
		       t.year, t.month, t.day, t.hour, t.minute, t.second,
		       w->tz_minutes == EFI_UNSPECIFIED_TIMEZONE
			   ? "(firmware local time, taken as UTC)"
			   : "UTC");
}

static s64 wall_clock_now(void)
{
	return wall_seconds + (s64)((rdtsc() - wall_tsc) / host_tsc.clock_hz);
}

static void board_reset(struct board *b)
{
	ioapic_reset(&b->ioapic);
	uart_reset(&b->com1);
	pit_reset(&b->pit);
	rtc_reset(&b->rtc, PIT_HZ, wall_clock_now(), tsc_to_pit_ticks(rdtsc()));
}

static int registration_failed(const struct vm *vm, const char *what, enum bus_error err,
			       const char *clash)
{
	console_printf("mhv: VM %s: device %s not registered: %s%s%s\n", vm->name, what,
		       bus_error_str(err), clash ? " " : "", clash ? clash : "");
	return -1;
}

int board_attach(struct vm *vm, u32 node)
{
	struct board *b = alloc_pages_zeroed_node(1, node);
	struct bus_timer timer = board_timer;
	const char *clash = NULL;
	enum bus_error err;
	unsigned i;

	if (!b) {
		console_printf("mhv: VM %s: no memory for its devices\n", vm->name);
		return -1;
	}
	board_reset(b);
	vm->board = b;
	for (i = 0; i < ARRAY_SIZE(board_rows); i++) {
		const struct board_row *r = &board_rows[i];
		void *dev = r->dev == ON_VM ? (void *)vm : (void *)b;
		struct bus_ports p = r->ports;
		struct bus_mmio m = r->mmio;

		p.dev = m.dev = dev;
		err = r->window ? bus_add_mmio(&vm->bus, &m, &clash)
				: bus_add_ports(&vm->bus, &p, &clash);
		if (err)
			return registration_failed(vm, r->window ? m.name : p.name, err, clash);
	}
	timer.dev = b;
	err = bus_add_timer(&vm->bus, &timer);
	if (err)
		return registration_failed(vm, timer.name, err, NULL);
	return 0;
}

void board_set_fw_cfg(struct vm *vm, u64 ram_size, u16 nr_cpus)
{
	vm->board->fw_cfg.ram_size = ram_size;
	vm->board->fw_cfg.nr_cpus = nr_cpus;
}
