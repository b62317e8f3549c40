// SPDX-License-Identifier: MIT
/*
 * The VM's bus (hv/core/bus.c) with the PC board registered on it
 * (hv/vdev/board.c), the real device models behind it.  What it guards:
 * no range may hide another's port (the 8042's old {0x60, 5} range
 * swallowed the PIT's port 0x61), every port reaches the device named
 * for it, the fast exit path never reaches a device that prints, and a
 * board that cannot be registered is refused with a line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/bus.h"
#include "core/vm.h"
#include "vdev/board.h"
#include "arch/apic.h"
#include "arch/insn.h"
#include "arch/ports.h"
#include "lib/guest_abi.h"
#include "platform/host_timer.h"
#include "platform/tsc.h"

/* ---- what the board needs from outside vdev/ ---- */
struct tsc_info host_tsc = { .clock_hz = 1000000000, .pm_mult = 15373 };

static char console[512];
int console_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(console, sizeof(console), fmt, ap);
	va_end(ap);
	return n;
}

static bool alloc_fails;
void *alloc_pages_zeroed_node(u64 npages, u32 node)
{
	static unsigned char page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

	if (alloc_fails)
		return NULL;
	memset(page, 0, sizeof(page));
	return page;
}

static enum vm_stop stopped;
static s64 exit_code;
void vm_stop(struct vm *vm, enum vm_stop why, const char *fmt, ...)
{
	if (!stopped)
		stopped = why;
}

void vm_stop_exit(struct vm *vm, s64 code, const char *fmt, ...)
{
	stopped = VM_STOP_EXIT;
	exit_code = code;
}

static unsigned printed;
void guest_console_putc(struct vm *vm, char c)
{
	printed++;
}

bool apic_mmio_read(struct vcpu *vcpu, u32 offset, u32 *val)
{
	*val = 0x50000 | offset; /* recognisable */
	return true;
}

static u32 apic_written;
bool apic_mmio_write(struct vcpu *vcpu, u32 offset, u32 val)
{
	apic_written = val;
	return true;
}

unsigned apic_bus_deliver(struct vcpu *vcpu, u8 dest, bool logical, bool lowest, u8 vector,
			  bool level)
{
	return 1;
}

static unsigned timer_calls;
void host_timer_arm(struct host_timer *t, enum host_timer_slot slot, u64 deadline)
{
	assert_int_equal(slot, TIMER_GUEST_DEVICE);
	timer_calls++;
}

void host_timer_disarm(struct host_timer *t, enum host_timer_slot slot)
{
	assert_int_equal(slot, TIMER_GUEST_DEVICE);
	timer_calls++;
}

/* ---- the VM under test ---- */
static struct vm vm;
static struct host_timer timer;
static struct vcpu *vcpu = &vm.vcpus[0];

static int setup(void **state)
{
	memset(&vm, 0, sizeof(vm));
	vm.nr_vcpus = 1;
	vcpu->vm = &vm;
	vcpu->timer = &timer;
	stopped = VM_RUNNING;
	printed = timer_calls = 0;
	alloc_fails = false;
	console[0] = 0;
	assert_int_equal(board_attach(&vm, 0), 0);
	return 0;
}

static const char *port_owner(u16 port)
{
	const struct bus_ports *p = bus_find_port(&vm.bus, port);

	return p->name;
}

static u32 bus_in(u16 port, u8 size)
{
	const struct bus_ports *p = bus_find_port(&vm.bus, port);

	assert_non_null(p);
	return p->in(p->dev, vcpu, port - p->base, size);
}

static void bus_out(u16 port, u8 size, u32 val)
{
	const struct bus_ports *p = bus_find_port(&vm.bus, port);

	assert_non_null(p);
	p->out(p->dev, vcpu, port - p->base, size, val);
}

/* Every port of every registration is found in that registration. */
static void each_port_reaches_its_range(void **state)
{
	u32 i, port;

	assert_true(vm.bus.nr_ports >= 15);
	for (i = 0; i < vm.bus.nr_ports; i++) {
		const struct bus_ports *r = &vm.bus.ports[i];

		for (port = r->base; port < (u32)r->base + r->count; port++)
			if (bus_find_port(&vm.bus, (u16)port) != r)
				fail_msg("port 0x%x of %s is served by %s", port, r->name,
					 port_owner((u16)port));
	}
}

/* The PC's ports, each by the device that must serve it. */
static void pc_ports_by_device(void **state)
{
	static const struct {
		u16 port;
		const char *device;
	} want[] = {
		{ 0x40, "8254 PIT" },
		{ 0x43, "8254 PIT" },
		{ 0x60, "8042 data" },
		{ 0x61, "port B (PIT gate)" },
		{ 0x62, "no device" },
		{ 0x64, "8042 command" },
		{ 0x70, "CMOS RTC" },
		{ 0x71, "CMOS RTC" },
		{ 0x92, "system control A" },
		{ 0xcf9, "reset control" },
		{ 0x3f8, "COM1" },
		{ 0x3ff, "COM1" },
		{ 0x510, "fw_cfg" },
		{ 0x511, "fw_cfg" },
		{ 0x600, "ACPI PM1a event" },
		{ 0x604, "ACPI PM1a control" },
		{ 0x608, "ACPI PM timer" },
		{ 0xe0, "test port" },
		{ 0xf4, "exit port" },
		{ 0x8900, "shutdown port" },
		{ 0x2000, "IRQ lines" },
		{ 0x2017, "IRQ lines" },
		{ 0x2018, "no device" },
	};
	unsigned i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (strcmp(port_owner(want[i].port), want[i].device))
			fail_msg("port 0x%x: %s, want %s", want[i].port, port_owner(want[i].port),
				 want[i].device);
}

/*
 * The fast exit path calls only the ranges marked fast, which never
 * wait: on SVM it runs with GIF clear, which holds SMIs (svm/svm.h).  A
 * guest's COM1 write prints its console line on the host's screen and
 * UARTs and may wait for them: the general path only.  Every fast range
 * is written every byte at every offset: nothing reaches the console.
 */
static void fast_devices_never_print(void **state)
{
	u32 i, off, val;

	for (i = 0; i < vm.bus.nr_ports; i++) {
		const struct bus_ports *r = &vm.bus.ports[i];

		if (!r->fast)
			continue;
		assert_string_not_equal(r->name, "COM1");
		for (off = 0; off < r->count; off++)
			for (val = 0; val < 256; val += 17) {
				r->out(r->dev, vcpu, (u16)off, 1, val);
				(void)r->in(r->dev, vcpu, (u16)off, 1);
			}
	}
	assert_int_equal(printed, 0);
	/* and COM1 does print: the check above can fail */
	bus_out(GUEST_SERIAL_PORT, 1, 'x');
	assert_int_equal(printed, 1);
}

/* A range over another's port is refused, naming the one already there. */
static void overlap_refused(void **state)
{
	struct bus_ports i8042_old = { .name = "8042 over 0x60-0x64", .base = 0x60, .count = 5 };
	struct bus_mmio over_ioapic = { .name = "window", .base = 0xfec00800, .size = 0x1000 };
	struct bus_ports empty = { .name = "empty", .base = 0x300, .count = 0 };
	struct bus_ports past_end = { .name = "past", .base = 0xfffe, .count = 4 };
	const char *clash = NULL;
	u32 before = vm.bus.nr_ports;

	assert_int_equal(bus_add_ports(&vm.bus, &i8042_old, &clash), BUS_OVERLAP);
	assert_string_equal(clash, "8042 data");
	assert_int_equal(bus_add_mmio(&vm.bus, &over_ioapic, &clash), BUS_OVERLAP);
	assert_string_equal(clash, "I/O APIC");
	assert_int_equal(bus_add_ports(&vm.bus, &empty, &clash), BUS_EMPTY);
	assert_int_equal(bus_add_ports(&vm.bus, &past_end, &clash), BUS_EMPTY);
	assert_int_equal(vm.bus.nr_ports, before);
	assert_string_equal(bus_error_str(BUS_OVERLAP), "overlaps");
}

/* A full bus refuses more, and a board that cannot register says so. */
static void full_bus_refused(void **state)
{
	struct bus_ports one = { .name = "filler", .count = 1 };
	struct bus_timer second = { .name = "second timer", .poll = vm.bus.timer.poll };
	const char *clash = "";
	u32 n = 0;

	while (vm.bus.nr_ports < BUS_MAX_PORTS) {
		one.base = (u16)(0x9000 + n++);
		assert_int_equal(bus_add_ports(&vm.bus, &one, &clash), BUS_OK);
		assert_null(clash);
	}
	one.base = 0x9800;
	assert_int_equal(bus_add_ports(&vm.bus, &one, &clash), BUS_FULL);
	assert_int_equal(bus_add_timer(&vm.bus, &second), BUS_FULL);

	/* the board again on this full bus: refused with a line */
	assert_int_equal(board_attach(&vm, 0), -1);
	assert_non_null(strstr(console, "not registered"));
	/* and without memory for it */
	memset(&vm, 0, sizeof(vm));
	alloc_fails = true;
	assert_int_equal(board_attach(&vm, 0), -1);
	assert_non_null(strstr(console, "no memory for its devices"));
}

/* Port 0x61 reaches the PIT: its gate bit reads back (8254 port B). */
static void port_b_is_the_pit(void **state)
{
	bus_out(PIT_PORT_B, 1, 0x01);
	assert_int_equal(bus_in(PIT_PORT_B, 1) & 0x01, 0x01);
	bus_out(PIT_PORT_B, 1, 0x00);
	assert_int_equal(bus_in(PIT_PORT_B, 1) & 0x01, 0x00);
}

/* The 8042's output port reads back, and its reset paths stop the VM. */
static void i8042_reset(void **state)
{
	bus_out(I8042_CMD_PORT, 1, I8042_CMD_READ_OUTPORT);
	assert_true(bus_in(I8042_CMD_PORT, 1) & I8042_STATUS_OBF);
	assert_int_equal(bus_in(I8042_DATA_PORT, 1), I8042_OUTPORT_RESET | I8042_OUTPORT_A20);
	assert_false(bus_in(I8042_CMD_PORT, 1) & I8042_STATUS_OBF);
	assert_int_equal(stopped, VM_RUNNING);
	bus_out(I8042_CMD_PORT, 1, I8042_CMD_WRITE_OUTPORT);
	bus_out(I8042_DATA_PORT, 1, I8042_OUTPORT_A20); /* bit 0 low: reset */
	assert_int_equal(stopped, VM_STOP_RESET);
	stopped = VM_RUNNING;
	bus_out(I8042_CMD_PORT, 1, I8042_CMD_PULSE_RESET);
	assert_int_equal(stopped, VM_STOP_RESET);
	stopped = VM_RUNNING;
	bus_out(RESET_CONTROL_PORT, 1, RST_CNT_SYS_RST | RST_CNT_RST_CPU);
	assert_int_equal(stopped, VM_STOP_RESET);
}

/* The board's timer is on the bus and is polled only while armed. */
static void pit_timer_on_bus(void **state)
{
	assert_string_equal(vm.bus.timer.name, "8254 PIT IRQ0");
	bus_poll_timer(&vm.bus, vcpu, 0);
	assert_int_equal(timer_calls, 0);
	bus_poll_timer(&vm.bus, vcpu, 12345);
	assert_int_equal(timer_calls, 1);
	/* programming the PIT claims its timer for the writing vCPU */
	bus_out(PIT_CONTROL_PORT, 1, 0x34); /* channel 0, lo/hi, mode 2 */
	bus_out(PIT_CH0_PORT, 1, 0x00);
	bus_out(PIT_CH0_PORT, 1, 0x10);
	assert_true(timer_calls >= 2);
}

/* The windows: the test device, the xAPIC page, the I/O APIC, nothing else. */
static void mmio_windows(void **state)
{
	struct mmio_insn store = { .write = true, .size = 8, .has_imm = true, .imm = 0x1234 };
	const struct bus_mmio *w;
	u64 reg = 0;

	assert_string_equal(bus_find_mmio(&vm.bus, GUEST_MMIO_BASE)->name, "MMIO test device");
	assert_string_equal(bus_find_mmio(&vm.bus, APIC_DEFAULT_BASE + 0x30)->name, "xAPIC");
	assert_string_equal(bus_find_mmio(&vm.bus, 0xfec00010)->name, "I/O APIC");
	assert_null(bus_find_mmio(&vm.bus, 0xfed00000));
	assert_null(bus_find_mmio(&vm.bus, GUEST_MMIO_BASE + GUEST_MMIO_SIZE));

	w = bus_find_mmio(&vm.bus, GUEST_MMIO_BASE + MMIO_REG_SCRATCH);
	w->access(w->dev, vcpu, MMIO_REG_SCRATCH, &store, &reg);
	assert_int_equal(vm.mmio_scratch, 0x1234);

	w = bus_find_mmio(&vm.bus, APIC_DEFAULT_BASE);
	store.size = 4;
	w->access(w->dev, vcpu, 0x80, &store, &reg);
	assert_int_equal(apic_written, 0x1234);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(each_port_reaches_its_range, setup),
		cmocka_unit_test_setup(pc_ports_by_device, setup),
		cmocka_unit_test_setup(fast_devices_never_print, setup),
		cmocka_unit_test_setup(overlap_refused, setup),
		cmocka_unit_test_setup(full_bus_refused, setup),
		cmocka_unit_test_setup(port_b_is_the_pit, setup),
		cmocka_unit_test_setup(i8042_reset, setup),
		cmocka_unit_test_setup(pit_timer_on_bus, setup),
		cmocka_unit_test_setup(mmio_windows, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
