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

static bool ranges_overlap(u64 a, u64 a_len, u64 b, u64 b_len)
{
	return a < b + b_len && b < a + a_len;
}

enum bus_error bus_add_ports(struct bus *bus, const struct bus_ports *p, const char **clash)
{
	u32 i;

	if (!p->count || (u32)p->base + p->count > 0x10000)
		return BUS_EMPTY;
	for (i = 0; i < bus->nr_ports; i++) {
		const struct bus_ports *q = &bus->ports[i];

		if (ranges_overlap(p->base, p->count, q->base, q->count)) {
			if (clash)
				*clash = q->name;
			return BUS_OVERLAP;
		}
	}
	if (bus->nr_ports == BUS_MAX_PORTS)
		return BUS_FULL;
	bus->ports[bus->nr_ports++] = *p;
	return BUS_OK;
}

enum bus_error bus_add_mmio(struct bus *bus, const struct bus_mmio *m, const char **clash)
{
	u32 i;

	if (!m->size || m->base + m->size < m->base)
		return BUS_EMPTY;
	for (i = 0; i < bus->nr_mmio; i++) {
		const struct bus_mmio *q = &bus->mmio[i];

		if (ranges_overlap(m->base, m->size, q->base, q->size)) {
			if (clash)
				*clash = q->name;
			return BUS_OVERLAP;
		}
	}
	if (bus->nr_mmio == BUS_MAX_MMIO)
		return BUS_FULL;
	bus->mmio[bus->nr_mmio++] = *m;
	return BUS_OK;
}

enum bus_error bus_add_timer(struct bus *bus, const struct bus_timer *t)
{
	if (bus->timer.poll)
		return BUS_FULL; /* one host-timer slot per vCPU for the board */
	bus->timer = *t;
	return BUS_OK;
}

const char *bus_error_str(enum bus_error err)
{
	switch (err) {
	case BUS_OK:
		return "registered";
	case BUS_OVERLAP:
		return "overlaps";
	case BUS_EMPTY:
		return "empty range";
	case BUS_FULL:
		return "bus full";
	}
	return "unknown error";
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
