// SPDX-License-Identifier: MIT
/* The fuzz guest's port, string I/O, MMIO and hypercall operations (ops.c). */
#include "ops_priv.h"

u8 fuzz_scratch[2 * 4096] __aligned(4096);
static u32 ioregsel;

void fuzz_io_init(void)
{
	ioregsel = 0;
}

/* Ports mhv registers (hv/vdev/board.c) and some no device claims. */
static const u16 ports[] = {
	0xe0,	0xe1,	0xe2, 0xe3,  0x608, 0x3f8,  0x3f9, 0x3fa, 0x3fb,  0x3fc,  0x3fd,
	0x3fe,	0x3ff,	0xf4, 0x510, 0x511, 0x8900, 0x92,  0xcf9, 0x60,	  0x64,	  0x600,
	0x604,	0x605,	0x40, 0x41,  0x42,  0x43,   0x61,  0x70,  0x71,	  0x2000, 0x2002,
	0x2009, 0x2017, 0x80, 0x200, 0x3e0, 0xcf8,  0xcfc, 0xee0, 0xffff,
};

/* Ports both the bare emulator and mhv have, whose reads do not move with time. */
static const u16 diff_ports[] = { 0xe0, 0xe1, 0xe2, 0xe3, 0x3f9, 0x3fb, 0x3fc, 0x3ff, 0x92 };

/* Whether an OUT of size bytes at port reaches a port that ends or
 * resets the VM by design: the exit port, reset control (0xCF9), system
 * control A's fast reset (0x92), the 8042's pulse-reset commands (0x64),
 * ACPI PM1a control's SLP_EN (0x604). */
static bool port_ends_vm(u16 port, u32 size)
{
	u32 last = port + size - 1;

	return (last >= 0xf4 && port <= 0xf7) || (last >= 0xcf9 && port <= 0xcf9) ||
	       (last >= 0x92 && port <= 0x92) || (last >= 0x64 && port <= 0x64) ||
	       (last >= 0x604 && port <= 0x605);
}

/* The value an OUT writes: the console's registers get '.' in their low
 * byte, so the log stays readable. */
static u32 out_value(u16 port, u32 v)
{
	if (port >= 0x3f8 && port <= 0x3fe)
		v = (v & ~0xffu) | '.';
	return v;
}

static u16 pick_port(const struct fuzz_env *env)
{
	if (env->diff)
		return diff_ports[fuzz_below(ARRAY_SIZE(diff_ports))];
	return fuzz_below(4) ? ports[fuzz_below(ARRAY_SIZE(ports))] : (u16)fuzz_rand();
}

static u32 pick_size(void)
{
	return 1u << fuzz_below(3);
}

void op_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out)
{
	u16 port = pick_port(env);
	u32 size = pick_size(), v = 0;
	int vec;

	/* QEMU's 16550 asserts on wider accesses (serial_ioport_read: "size ==
	 * 1"): bare, the UART is read and written bytewise */
	if (env->diff && port >= 0x3f8 && port <= 0x3ff)
		size = 1;
	fuzz_seen(fuzz_seen_port, port, &st->nr_ports);
	if (out) {
		v = out_value(port, (u32)fuzz_value(0));
		if (port_ends_vm(port, size)) {
			fuzz_record(st, OP_OUT, -1, 0);
			return;
		}
		fuzz_ring_put(n, OP_OUT, size, port, v);
		vec = probe_out(port, size, v);
		fuzz_record(st, OP_OUT, vec, 0);
		fuzz_diff(env, n, "out %x/%u %x #%d", port, size, v, vec);
		return;
	}
	fuzz_ring_put(n, OP_IN, size, port, 0);
	vec = probe_in(port, size, &v);
	/* the clocks' ports (PM timer, PIT, port B's refresh bit, the RTC) move
	 * with time: out of the outcome hash, which equal seeds must repeat */
	fuzz_record(st, OP_IN, vec,
		    port == 0x608 || (port >= 0x40 && port <= 0x43) || port == 0x61 || port == 0x71
			? 0
			: v);
	fuzz_diff(env, n, "in %x/%u = %x #%d", port, size, v, vec);
}

/* REP INS/OUTS into and from the fuzz_scratch pages: counts from 0 to past a
 * page, buffers unaligned and across the page boundary. */
void op_string_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out)
{
	u16 port = pick_port(env);
	u32 size = pick_size(), i;
	u64 count = fuzz_below(4) ? fuzz_below(16) : fuzz_below(4096 / size + 8);
	u8 *buf = fuzz_scratch + (fuzz_below(2) ? fuzz_below(64) : 4096 - fuzz_below(64));
	int vec;

	if (port_ends_vm(port, size))
		port = 0xe0;
	if ((u64)(buf - fuzz_scratch) + count * size > sizeof(fuzz_scratch))
		count = (sizeof(fuzz_scratch) - (u64)(buf - fuzz_scratch)) / size;
	fuzz_seen(fuzz_seen_port, port, &st->nr_ports);
	fuzz_ring_put(n, out ? OP_OUTS : OP_INS, size, port, count);
	if (out) {
		for (i = 0; i < count * size; i++)
			buf[i] = '.';
		vec = probe_outs(port, size, buf, count);
	} else {
		vec = probe_ins(port, size, buf, count);
	}
	fuzz_record(st, out ? OP_OUTS : OP_INS, vec, count);
}

/* The windows: the MMIO test device, the xAPIC page, the I/O APIC. */
static const u64 windows[] = { GUEST_MMIO_BASE, XAPIC_BASE, IOAPIC_BASE };

void op_mmio(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool write)
{
	unsigned w = (unsigned)fuzz_below(ARRAY_SIZE(windows));
	u32 size = 1u << fuzz_below(4);
	u64 off =
	    fuzz_below(3) ? fuzz_below(0x40) & ~(u64)(size - 1) : fuzz_below(0x1000 - size + 1);
	u64 addr = windows[w] + off, v = 0;
	int vec;

	st->windows |= 1u << w;
	if (write) {
		v = fuzz_value(0);
		/* the I/O APIC's redirection entries: fixed delivery, vector 0x20+ */
		if (w == 2 && off == 0x10 && size == 4 && ioregsel >= 0x10 && ioregsel < 0x40 &&
		    !(ioregsel & 1)) {
			v &= ~(u64)0x700;
			if ((v & 0xff) < 0x20)
				v |= 0x20;
		}
		if (w == 2 && off == 0)
			ioregsel = (u32)v & 0xff;
		fuzz_ring_put(n, OP_MMIO_WRITE, size, addr, v);
		vec = probe_mmio_write(addr, size, v);
		fuzz_record(st, OP_MMIO_WRITE, vec, 0);
		fuzz_apic_sane();
		return;
	}
	fuzz_ring_put(n, OP_MMIO_READ, size, addr, 0);
	vec = probe_mmio_read(addr, size, &v);
	fuzz_record(st, OP_MMIO_READ, vec, w == 0 ? v : 0);
}

/* Random hypercall numbers and pointers; never the ones that report a
 * result, print or end the VM, and HC_PARAMS only into the fuzz_scratch pages
 * or outside RAM. */
void op_hypercall(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u64 nrs[] = { HC_NULL,	  HC_TEST_WANTED, HC_EXIT_COUNT,
				   HC_PARAMS,	  HC_TIMESTAMPS,  HC_COUNT,
				   HC_UNKNOWN_NR, 0x100000000ull, ~0ull };
	const u64 ptrs[] = { (u64)(uintptr_t)fuzz_scratch,
			     (u64)(uintptr_t)fuzz_scratch + 4096 - fuzz_below(32),
			     GUEST_RAM_SIZE - 8,
			     GUEST_RAM_SIZE,
			     GUEST_MMIO_BASE,
			     XAPIC_BASE,
			     0x800000000000ull,
			     ~0ull,
			     fuzz_below(2) ? 0 : fuzz_rand() };
	u64 nr = fuzz_below(8) ? nrs[fuzz_below(ARRAY_SIZE(nrs))] : fuzz_rand(), a0, ret = 0;
	bool vmcall = fuzz_below(8) ? hypercall_is_vmcall : !hypercall_is_vmcall;
	int vec;

	if (nr >= HC_PRINT && nr <= HC_EXIT)
		nr = HC_NULL;
	a0 = ptrs[fuzz_below(ARRAY_SIZE(ptrs))];
	if (nr == HC_EXIT_COUNT && fuzz_below(2))
		a0 = fuzz_below(32);
	if (nr == HC_PARAMS && a0 < GUEST_RAM_SIZE &&
	    (a0 < (u64)(uintptr_t)fuzz_scratch || a0 >= (u64)(uintptr_t)fuzz_scratch + 4096))
		a0 = (u64)(uintptr_t)fuzz_scratch;
	if (!env->mhv)
		return;
	fuzz_ring_put(n, OP_HYPERCALL, vmcall, nr, a0);
	vec = probe_hypercall(vmcall, nr, a0, fuzz_rand(), &ret);
	fuzz_record(st, OP_HYPERCALL, vec, nr == HC_TIMESTAMPS || nr == HC_EXIT_COUNT ? 0 : ret);
}
