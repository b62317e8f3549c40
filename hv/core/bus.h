/* SPDX-License-Identifier: MIT */
/*
 * A VM's device bus: what the core dispatches guest port I/O, MMIO and
 * the device timer through, without naming a device.  Each device
 * registers its ranges with a handler and its own state (the dev
 * pointer) when the VM is made (vdev/board.c); the core finds the range
 * an exit names and calls its handler.  Registration refuses a range
 * that overlaps one already there, so no device can hide another's port
 * (the 8042's old {0x60, 5} range swallowed the PIT's port 0x61).
 *
 * Processor parts are not on the bus: the local APIC's page and MSRs and
 * the PMU's MSRs belong to a vCPU, not to the VM's board (SDM Vol 3
 * §11.4: each logical processor has its own APIC), and the MSR exits
 * reach them through the vCPU (core/msr.c).
 */
#ifndef MHV_BUS_H
#define MHV_BUS_H

#include "arch/insn.h"
#include "lib/types.h"

struct vcpu;

#define BUS_MAX_PORTS 24
#define BUS_MAX_MMIO 4

/* Ports [base, base + count): offset is the port's from base; sizes 1, 2, 4. */
struct bus_ports {
	const char *name;
	u16 base, count;
	/* the fast exit path may call it: it never waits (on SVM the fast
	 * path runs with GIF clear, holding SMIs: svm/svm.h) */
	bool fast;
	u32 (*in)(void *dev, struct vcpu *vcpu, u16 offset, u8 size);
	void (*out)(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val);
	void *dev;
};

/* Guest-physical [base, base + size): the decoded MOV and its register. */
struct bus_mmio {
	const char *name;
	u64 base, size;
	void (*access)(void *dev, struct vcpu *vcpu, u64 offset, const struct mmio_insn *insn,
		       u64 *reg);
	void *dev;
};

/*
 * The board's timer (the PIT's IRQ0): one per VM, armed in the host
 * timer's TIMER_GUEST_DEVICE slot of the vCPU that carries it; the core
 * polls it on host events and in halts while that slot is armed.
 */
struct bus_timer {
	const char *name;
	void (*poll)(void *dev, struct vcpu *vcpu);
	void *dev;
};

struct bus {
	struct bus_ports ports[BUS_MAX_PORTS];
	struct bus_mmio mmio[BUS_MAX_MMIO];
	struct bus_timer timer;
	u32 nr_ports, nr_mmio;
};

enum bus_error {
	BUS_OK,
	BUS_OVERLAP, /* a range shares an address with one registered before */
	BUS_EMPTY,   /* no address, or past the end of its space */
	BUS_FULL,    /* no room left (or a second timer) */
};

/* Register: *clash names the device already there on an overlap, else NULL. */
enum bus_error bus_add_ports(struct bus *bus, const struct bus_ports *p, const char **clash);
enum bus_error bus_add_mmio(struct bus *bus, const struct bus_mmio *m, const char **clash);
enum bus_error bus_add_timer(struct bus *bus, const struct bus_timer *t);
/* "overlaps", "empty range", "bus full" */
const char *bus_error_str(enum bus_error err);

/* The range that serves @port: &bus_no_ports when no device does. */
const struct bus_ports *bus_find_port(const struct bus *bus, u16 port);
/* The window that holds @gpa, NULL: none. */
const struct bus_mmio *bus_find_mmio(const struct bus *bus, u64 gpa);

/* No device's: reads all ones, ignores writes, not fast, and serves no
 * port (count 0), so it is also what a vCPU's port hint starts as. */
extern const struct bus_ports bus_no_ports;

static inline bool bus_ports_serve(const struct bus_ports *p, u16 port)
{
	return (u16)(port - p->base) < p->count;
}

/* Let the board's timer fire what expired, while @deadline (its host
 * timer slot) is armed. */
static inline void bus_poll_timer(const struct bus *bus, struct vcpu *vcpu, u64 deadline)
{
	if (deadline && bus->timer.poll)
		bus->timer.poll(bus->timer.dev, vcpu);
}

#endif
