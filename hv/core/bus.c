// SPDX-License-Identifier: MIT
/*
 * Registration and lookup of a VM's device ranges (bus.h).  Lookups are
 * a linear search of a few entries; the exit paths keep a per-vCPU hint
 * of the last port range (core/io.c), so a device the guest polls costs
 * one compare.
 */
#include "bus.h"

/* A port no device serves reads as all ones and ignores writes, as an
 * empty ISA port does. */
static u32 no_device_in(void *dev, struct vcpu *vcpu, u16 offset, u8 size)
{
	return ~0u;
}

static void no_device_out(void *dev, struct vcpu *vcpu, u16 offset, u8 size, u32 val)
{
}

const struct bus_ports bus_no_ports = {
	.name = "no device",
	.in = no_device_in,
	.out = no_device_out,
};

/* The device a new range [base, base + len) would share an address with:
 * NULL when none. */
static const char *overlapped(const struct bus *bus, bool mmio, u64 base, u64 len)
{
	u32 i, n = mmio ? bus->nr_mmio : bus->nr_ports;

	for (i = 0; i < n; i++) {
		u64 b = mmio ? bus->mmio[i].base : bus->ports[i].base;
		u64 l = mmio ? bus->mmio[i].size : bus->ports[i].count;

		if (base < b + l && b < base + len)
			return mmio ? bus->mmio[i].name : bus->ports[i].name;
	}
	return NULL;
}

/* Whether [base, base + len) may join the bus: not empty, below @limit
 * (the end of its address space), on no other device, and room left. */
static enum bus_error may_add(const struct bus *bus, bool mmio, u64 base, u64 len, u64 limit,
			      const char **clash)
{
	*clash = NULL;
	if (!len || len > limit || base > limit - len)
		return BUS_EMPTY;
	*clash = overlapped(bus, mmio, base, len);
	if (*clash)
		return BUS_OVERLAP;
	if (mmio ? bus->nr_mmio == BUS_MAX_MMIO : bus->nr_ports == BUS_MAX_PORTS)
		return BUS_FULL;
	return BUS_OK;
}

enum bus_error bus_add_ports(struct bus *bus, const struct bus_ports *p, const char **clash)
{
	enum bus_error err = may_add(bus, false, p->base, p->count, 0x10000, clash);

	if (!err)
		bus->ports[bus->nr_ports++] = *p;
	return err;
}

enum bus_error bus_add_mmio(struct bus *bus, const struct bus_mmio *m, const char **clash)
{
	enum bus_error err = may_add(bus, true, m->base, m->size, ~0ull, clash);

	if (!err)
		bus->mmio[bus->nr_mmio++] = *m;
	return err;
}

enum bus_error bus_add_timer(struct bus *bus, const struct bus_timer *t)
{
	if (bus->timer.poll)
		return BUS_FULL; /* one host-timer slot per vCPU for the board */
	bus->timer = *t;
	return BUS_OK;
}

static const char *const bus_error_names[] = {
	[BUS_OK] = "registered",
	[BUS_OVERLAP] = "overlaps",
	[BUS_EMPTY] = "empty range",
	[BUS_FULL] = "bus full",
};

const char *bus_error_str(enum bus_error err)
{
	return (unsigned)err < ARRAY_SIZE(bus_error_names) ? bus_error_names[err] : "unknown error";
}

const struct bus_ports *bus_find_port(const struct bus *bus, u16 port)
{
	u32 i;

	for (i = 0; i < bus->nr_ports; i++)
		if (bus_ports_serve(&bus->ports[i], port))
			return &bus->ports[i];
	return &bus_no_ports;
}

const struct bus_mmio *bus_find_mmio(const struct bus *bus, u64 gpa)
{
	u32 i;

	for (i = 0; i < bus->nr_mmio; i++)
		if (gpa - bus->mmio[i].base < bus->mmio[i].size)
			return &bus->mmio[i];
	return NULL;
}
