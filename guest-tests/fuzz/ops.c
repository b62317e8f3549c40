// SPDX-License-Identifier: MIT
/*
 * The fuzz guest's operations (fuzz.h): each draws its operands from the
 * PRNG, runs through a probe that catches its fault, records the outcome
 * and puts back whatever would stop the guest itself (CR0/CR4/XCR0/CR8,
 * EFER, the APIC's mode and timer).  mhv must survive anything they do.
 */
#include "fuzz.h"
#include "arch/apic.h"
#include "lib/fmt.h"
#include "xstate/xstate.h"

#define MSR_DEBUGCTL 0x1d9
#define X2APIC_TPR 0x808
#define X2APIC_SVR 0x80f
#define X2APIC_ESR 0x828
#define X2APIC_ICR 0x830
#define X2APIC_LVTT 0x832
#define X2APIC_TMICT 0x838
#define X2APIC_TDCR 0x83e
#define X2APIC_SELF_IPI 0x83f
#define TIMER_VECTOR 0x40
#define IPI_VECTOR 0x41
#define IOAPIC_BASE 0xfec00000ull
#define XAPIC_BASE 0xfee00000ull
#define CR4_PAE BIT(5)
#define CR4_SMEP BIT(20)
#define CR4_SMAP BIT(21)
#define CR4_PKE BIT(22)
#define CR4_CET BIT(23)
#define CR0_PE BIT(0)
#define CR0_PG BIT(31)
#define CR0_WP BIT(16)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)

struct fuzz_ring *fuzz_ring;
static u64 rng;
static u64 xcr0_start, cr0_start, cr4_start, xcr0_mask;
static u8 xbuf[16384] __aligned(64);
static u8 scratch[2 * 4096] __aligned(4096);
static u32 ioregsel;
static void cr_bits_init(void);

/* Ports mhv registers (hv/vdev/board.c) and some no device claims. */
static const u16 ports[] = {
	0xe0,	0xe1,	0xe2, 0xe3,  0x608, 0x3f8,  0x3f9, 0x3fa, 0x3fb,  0x3fc,  0x3fd,
	0x3fe,	0x3ff,	0xf4, 0x510, 0x511, 0x8900, 0x92,  0xcf9, 0x60,	  0x64,	  0x600,
	0x604,	0x605,	0x40, 0x41,  0x42,  0x43,   0x61,  0x70,  0x71,	  0x2000, 0x2002,
	0x2009, 0x2017, 0x80, 0x200, 0x3e0, 0xcf8,  0xcfc, 0xee0, 0xffff,
};

/* Ports both the bare emulator and mhv have, whose reads do not move with time. */
static const u16 diff_ports[] = { 0xe0, 0xe1, 0xe2, 0xe3, 0x3f9, 0x3fb, 0x3fc, 0x3ff, 0x92 };

/* mhv's MSR table (hv/core/msr.c), the PMU's, the CPU's passed through. */
static const u32 msrs[] = {
	0x10,	    0x1b,	0x3a,	    0x3b,	0x48,	    0x49,	0x8b,
	0xe7,	    0xe8,	0xfe,	    0x10a,	0x174,	    0x175,	0x176,
	0x179,	    0x17a,	0x1a0,	    0x1d9,	0x200,	    0x201,	0x20e,
	0x20f,	    0x250,	0x258,	    0x259,	0x268,	    0x26f,	0x277,
	0x2ff,	    0x400,	0x401,	    0x402,	0x403,	    0x410,	0x411,
	0x41c,	    0x600,	0x6e0,	    0x6e1,	0xda0,	    0xc1,	0xc2,
	0xc8,	    0x186,	0x187,	    0x18d,	0x309,	    0x30a,	0x30c,
	0x345,	    0x38d,	0x38e,	    0x38f,	0x390,	    0x391,	0x4c1,
	0xc0000080, 0xc0000081, 0xc0000082, 0xc0000083, 0xc0000084, 0xc0000100, 0xc0000101,
	0xc0000102, 0xc0000103, 0xc0000300, 0xc0000301, 0xc0000302, 0xc0000303, 0xc0010000,
	0xc0010004, 0xc0010007, 0xc0010010, 0xc0010015, 0xc001001d, 0xc001001f, 0xc0010055,
	0xc0010111, 0xc0010113, 0xc0010114, 0xc0010117, 0xc001011f, 0xc0010140, 0xc0010141,
	0xc0010200, 0xc0010201, 0xc001020b, 0xc0011029, 0xc001102e, 0xc0002000, 0x34,
	0x802,	    0x803,	0x808,	    0x80a,	0x80b,	    0x80d,	0x80f,
	0x810,	    0x820,	0x828,	    0x82f,	0x830,	    0x832,	0x833,
	0x834,	    0x835,	0x836,	    0x837,	0x838,	    0x839,	0x83e,
	0x83f,	    0x840,	0x8ff,	    0x4b564d00, 0x40000000, 0xffffffff,
};

/* MSRs whose reads move with time: the differential run prints only
 * whether they fault. */
static bool msr_volatile(u32 msr)
{
	return msr == 0x10 || msr == 0xe7 || msr == 0xe8 || msr == 0x34 || msr == 0x839 ||
	       (msr >= 0xc1 && msr <= 0xc8) || (msr >= 0x309 && msr <= 0x30c) ||
	       (msr >= 0x4c1 && msr <= 0x4c8) || (msr >= 0xc0010004 && msr <= 0xc0010007) ||
	       (msr >= 0xc0010200 && msr <= 0xc001020b && (msr & 1)) || msr == 0x38e ||
	       msr == 0xc0000300;
}

static const char *const op_names[NR_FUZZ_OPS] = {
	[OP_CPUID] = "cpuid",
	[OP_RDMSR] = "rdmsr",
	[OP_WRMSR] = "wrmsr",
	[OP_IN] = "in",
	[OP_OUT] = "out",
	[OP_INS] = "ins",
	[OP_OUTS] = "outs",
	[OP_MMIO_READ] = "mmio-read",
	[OP_MMIO_WRITE] = "mmio-write",
	[OP_CR] = "cr",
	[OP_XCR0] = "xcr0",
	[OP_DR] = "dr",
	[OP_HYPERCALL] = "hcall",
	[OP_INVLPG] = "invlpg",
	[OP_IPI] = "ipi",
	[OP_TIMER] = "timer",
	[OP_HLT] = "hlt",
	[OP_RDPMC] = "rdpmc",
	[OP_XSAVE] = "xsave",
	[OP_XRSTOR] = "xrstor",
};

const char *fuzz_op_name(unsigned op)
{
	return op < NR_FUZZ_OPS ? op_names[op] : "?";
}

/* splitmix64 of the seed, then xorshift64* (Vigna 2016) */
void fuzz_seed(u32 seed)
{
	u64 z = seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	rng = (z ^ (z >> 31)) | 1;
}

u64 fuzz_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static u64 below(u64 n)
{
	return n ? fuzz_rand() % n : 0;
}

/* An interesting 64-bit operand: boundaries, single bits, all-but-one
 * bit (MCi_CTL's K8 quirk is one), the old value with one bit flipped. */
static u64 value(u64 old)
{
	switch (below(10)) {
	case 0:
		return 0;
	case 1:
		return ~0ull;
	case 2:
		return BIT(below(64));
	case 3:
		return ~BIT(below(64));
	case 4:
		return old ^ BIT(below(64));
	case 5:
		return old;
	case 6:
		return (u32)fuzz_rand();
	case 7: {
		static const u64 edges[] = { 0x7fffffff,
					     0x80000000,
					     0xffffffff,
					     0x100000000ull,
					     0x7fffffffffffull,
					     0x800000000000ull,
					     0xffff800000000000ull,
					     0x8000000000000000ull,
					     1 };
		return edges[below(ARRAY_SIZE(edges))];
	}
	default:
		return fuzz_rand();
	}
}

static void record(struct fuzz_stats *st, unsigned op, int vec, u64 result)
{
	st->tried[op]++;
	if (vec >= 0) {
		st->faulted[op]++;
		if (vec < 32)
			st->vectors[vec]++;
	}
	st->outcome_hash =
	    (st->outcome_hash ^ ((u64)op << 56 ^ (u64)(vec + 1) << 48 ^ result)) * 0x100000001b3ull;
}

static void ring_put(u32 n, unsigned op, u32 size, u64 a, u64 b)
{
	struct fuzz_ring_op *r;

	if (!fuzz_ring)
		return;
	r = &fuzz_ring->ops[n % FUZZ_RING_LEN];
	*r = (struct fuzz_ring_op){ .n = n, .op = op, .size = size, .a = a, .b = b };
	fuzz_ring->done = n;
#ifdef FUZZ_TRACE
	gprintf("op #%u %s/%u 0x%llx 0x%llx\n", n, op_names[op], size, (unsigned long long)a,
		(unsigned long long)b);
#endif
}

/* Distinct-value counters for the coverage line: a bitmap of 64 Ki. */
static u64 seen_port[65536 / 64];
static u64 seen_msr[4096 / 64]; /* by a hash of the index: distinct up to collisions */

static void seen(u64 *map, u32 i, u32 *count)
{
	if (!(map[i / 64] & BIT(i % 64))) {
		map[i / 64] |= BIT(i % 64);
		(*count)++;
	}
}

static void diff(const struct fuzz_env *env, u32 n, const char *fmt, ...) __printf(3, 4);
static void diff(const struct fuzz_env *env, u32 n, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	if (!env->diff)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gprintf("fz %u %s\n", n, buf);
}

/* The APIC as the guest needs it to take interrupts: x2APIC mode,
 * software-enabled, TPR 0, the timer stopped. */
static void apic_sane(void)
{
	u64 base;

	if (rdmsr_safe(MSR_IA32_APIC_BASE, &base) >= 0)
		return;
	if ((base & (BIT(10) | BIT(11))) != (BIT(10) | BIT(11))) {
		wrmsr_safe(MSR_IA32_APIC_BASE, APIC_DEFAULT_BASE | BIT(11) | (base & BIT(8)));
		wrmsr_safe(MSR_IA32_APIC_BASE,
			   APIC_DEFAULT_BASE | BIT(11) | BIT(10) | (base & BIT(8)));
	}
	wrmsr_safe(X2APIC_SVR, 0x1ff);
	wrmsr_safe(X2APIC_TPR, 0);
	wrmsr_safe(X2APIC_TMICT, 0);
}

void fuzz_init(const struct fuzz_env *env)
{
	cr0_start = read_cr0();
	cr4_start = read_cr4();
	xcr0_start = guest_has_xsave ? xgetbv(0) : XSTATE_X87;
	xcr0_mask = XSTATE_X87 | XSTATE_SSE;
	if (guest_has_xsave) {
		struct cpuid_regs r;

		cpuid_count(0xd, 0, &r);
		xcr0_mask = r.eax | ((u64)r.edx << 32);
	}
	ioregsel = 0;
	cr_bits_init();
	guest_nmi_ok = true; /* random LVT and ICR writes may send NMIs */
}

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
		return diff_ports[below(ARRAY_SIZE(diff_ports))];
	return below(4) ? ports[below(ARRAY_SIZE(ports))] : (u16)fuzz_rand();
}

static u32 pick_size(void)
{
	return 1u << below(3);
}

static void op_cpuid(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u32 bases[] = { 0, 0x40000000, 0x80000000, 0xd, 0x7, 0xb, 0x1f, 0x4 };
	u32 b = bases[below(ARRAY_SIZE(bases))], leaf, sub = (u32)below(70);
	struct cpuid_regs r;

	leaf = b <= 0x1f && b ? b : b + (u32)below(0x24);
	if (!below(16))
		leaf = (u32)fuzz_rand();
	if (!below(8))
		sub = (u32)fuzz_rand();
	ring_put(n, OP_CPUID, 0, leaf, sub);
	cpuid_count(leaf, sub, &r);
	record(st, OP_CPUID, -1, r.eax ^ (u64)r.ebx << 32 ^ r.ecx ^ (u64)r.edx << 16);
	diff(env, n, "cpuid %x %x = %x %x %x %x", leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
}

static u32 pick_msr(void)
{
	switch (below(8)) {
	case 0:
		return (u32)fuzz_rand();
	case 1:
		return 0x800 + (u32)below(0x100); /* x2APIC */
	case 2:
		return 0x400 + (u32)below(0x30); /* machine-check banks */
	default:
		return msrs[below(ARRAY_SIZE(msrs))];
	}
}

/* MSRs a write to would stop the guest itself: restored after the write */
static bool msr_restore(u32 msr)
{
	return msr == MSR_EFER || msr == MSR_IA32_APIC_BASE || msr == MSR_IA32_PAT ||
	       msr == MSR_DEBUGCTL || (msr >= 0x800 && msr <= 0x8ff) ||
	       (msr >= 0x200 && msr <= 0x2ff) || msr == MSR_IA32_MISC_ENABLE;
}

static void op_rdmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 msr = pick_msr();
	u64 v = 0;
	int vec;

	seen(seen_msr, (msr ^ msr >> 12 ^ msr >> 24) & 4095, &st->nr_msrs);
	ring_put(n, OP_RDMSR, 8, msr, 0);
	vec = rdmsr_safe(msr, &v);
	record(st, OP_RDMSR, vec, msr_volatile(msr) ? 0 : v);
	if (vec >= 0)
		diff(env, n, "rdmsr %x #%d", msr, vec);
	else if (msr_volatile(msr))
		diff(env, n, "rdmsr %x ok", msr);
	else
		diff(env, n, "rdmsr %x = %llx", msr, (unsigned long long)v);
}

static void op_wrmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 msr = pick_msr();
	u64 old = 0, v, back = 0;
	bool readable;
	int vec;

	seen(seen_msr, (msr ^ msr >> 12 ^ msr >> 24) & 4095, &st->nr_msrs);
	readable = rdmsr_safe(msr, &old) < 0;
	v = value(old);
	if (msr == MSR_EFER)
		v = (v & ~(EFER_LME | EFER_LMA)) | (old & (EFER_LME | EFER_LMA));
	if (msr == X2APIC_ICR || (msr >= 0x832 && msr <= 0x837)) {
		v &= ~(u64)0x600; /* fixed or NMI delivery, never INIT/SIPI/SMI */
		if ((v & 0xff) < 0x20)
			v |= 0x20;
	}
	if (msr == X2APIC_SELF_IPI && (v & 0xff) >= 16 && (v & 0xff) < 0x20)
		v |= 0x20; /* vectors 16-31 would land on exception gates */
	ring_put(n, OP_WRMSR, 8, msr, v);
	vec = wrmsr_safe(msr, v);
	if (rdmsr_safe(msr, &back) >= 0)
		back = 0;
	record(st, OP_WRMSR, vec, msr_volatile(msr) ? 0 : back);
	if (vec >= 0)
		diff(env, n, "wrmsr %x %llx #%d", msr, (unsigned long long)v, vec);
	else if (msr_volatile(msr))
		diff(env, n, "wrmsr %x %llx ok", msr, (unsigned long long)v);
	else
		diff(env, n, "wrmsr %x %llx ok = %llx", msr, (unsigned long long)v,
		     (unsigned long long)back);
	if (readable && (msr_restore(msr) || env->diff))
		wrmsr_safe(msr, old);
	if ((msr >= 0x800 && msr <= 0x8ff) || msr == MSR_IA32_APIC_BASE)
		apic_sane();
}

static void op_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out)
{
	u16 port = pick_port(env);
	u32 size = pick_size(), v = 0;
	int vec;

	/* QEMU's 16550 asserts on wider accesses (serial_ioport_read: "size ==
	 * 1"): bare, the UART is read and written bytewise */
	if (env->diff && port >= 0x3f8 && port <= 0x3ff)
		size = 1;
	seen(seen_port, port, &st->nr_ports);
	if (out) {
		v = out_value(port, (u32)value(0));
		if (port_ends_vm(port, size)) {
			record(st, OP_OUT, -1, 0);
			return;
		}
		ring_put(n, OP_OUT, size, port, v);
		vec = probe_out(port, size, v);
		record(st, OP_OUT, vec, 0);
		diff(env, n, "out %x/%u %x #%d", port, size, v, vec);
		return;
	}
	ring_put(n, OP_IN, size, port, 0);
	vec = probe_in(port, size, &v);
	/* the clocks' ports (PM timer, PIT, port B's refresh bit, the RTC) move
	 * with time: out of the outcome hash, which equal seeds must repeat */
	record(st, OP_IN, vec,
	       port == 0x608 || (port >= 0x40 && port <= 0x43) || port == 0x61 || port == 0x71 ? 0
											       : v);
	diff(env, n, "in %x/%u = %x #%d", port, size, v, vec);
}

/* REP INS/OUTS into and from the scratch pages: counts from 0 to past a
 * page, buffers unaligned and across the page boundary. */
static void op_string_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out)
{
	u16 port = pick_port(env);
	u32 size = pick_size(), i;
	u64 count = below(4) ? below(16) : below(4096 / size + 8);
	u8 *buf = scratch + (below(2) ? below(64) : 4096 - below(64));
	int vec;

	if (port_ends_vm(port, size))
		port = 0xe0;
	if ((u64)(buf - scratch) + count * size > sizeof(scratch))
		count = (sizeof(scratch) - (u64)(buf - scratch)) / size;
	seen(seen_port, port, &st->nr_ports);
	ring_put(n, out ? OP_OUTS : OP_INS, size, port, count);
	if (out) {
		for (i = 0; i < count * size; i++)
			buf[i] = '.';
		vec = probe_outs(port, size, buf, count);
	} else {
		vec = probe_ins(port, size, buf, count);
	}
	record(st, out ? OP_OUTS : OP_INS, vec, count);
}

/* The windows: the MMIO test device, the xAPIC page, the I/O APIC. */
static const u64 windows[] = { GUEST_MMIO_BASE, XAPIC_BASE, IOAPIC_BASE };

static void op_mmio(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool write)
{
	unsigned w = (unsigned)below(ARRAY_SIZE(windows));
	u32 size = 1u << below(4);
	u64 off = below(3) ? below(0x40) & ~(u64)(size - 1) : below(0x1000 - size + 1);
	u64 addr = windows[w] + off, v = 0;
	int vec;

	st->windows |= 1u << w;
	if (write) {
		v = value(0);
		/* the I/O APIC's redirection entries: fixed delivery, vector 0x20+ */
		if (w == 2 && off == 0x10 && size == 4 && ioregsel >= 0x10 && ioregsel < 0x40 &&
		    !(ioregsel & 1)) {
			v &= ~(u64)0x700;
			if ((v & 0xff) < 0x20)
				v |= 0x20;
		}
		if (w == 2 && off == 0)
			ioregsel = (u32)v & 0xff;
		ring_put(n, OP_MMIO_WRITE, size, addr, v);
		vec = probe_mmio_write(addr, size, v);
		record(st, OP_MMIO_WRITE, vec, 0);
		apic_sane();
		return;
	}
	ring_put(n, OP_MMIO_READ, size, addr, 0);
	vec = probe_mmio_read(addr, size, &v);
	record(st, OP_MMIO_READ, vec, w == 0 ? v : 0);
}

/*
 * The CR bits a write may flip.  On Intel every bit: mhv's CR0/CR4
 * guest/host masks make the writes exit and mhv checks them
 * (hv/core/guest_cr.c).  On AMD the CPU checks most writes itself, and
 * QEMU 7.2's TCG SVM does not: a reserved CR0/CR4 bit gets into the VMCB
 * and the next VMRUN fails (hostile's cr_invalid) or QEMU aborts
 * (docs/fuzz.md): there only bits the CPU defines and CPUID offers.
 */
static u64 cr0_bits, cr4_bits;
/*
 * MOV to CR8: not on QEMU TCG's SVM, which aborts on one while a virtual
 * interrupt is pending (QEMU 7.2 helper_write_crN calls cpu_interrupt
 * without the iothread lock: "tcg_handle_interrupt: assertion failed");
 * known there by mhv's loose-windows flag (lib/guest_abi.h).
 */
static bool cr8_ok;

static void cr_bits_init(void)
{
	struct cpuid_regs l1, l7 = { 0 };

	cpuid_count(1, 0, &l1);
	cpuid_count(0, 0, &l7);
	if (l7.eax >= 7)
		cpuid_count(7, 0, &l7);
	else
		l7 = (struct cpuid_regs){ 0 };
	cpuid_count(0x40000001, 0, &l1);
	cr8_ok = !guest_is_amd || !(l1.ebx & HV_FEATURE_LOOSE_WINDOWS);
	cpuid_count(1, 0, &l1);
	if (!guest_is_amd) {
		cr0_bits = ~0ull;
		cr4_bits = ~0ull;
		return;
	}
	/* MP EM TS NE WP AM CD (SDM Vol 3 §2.5; NW without CD would #GP) */
	cr0_bits = BIT(1) | BIT(2) | BIT(3) | BIT(5) | BIT(16) | BIT(18) | BIT(30);
	/* TSD PCE OSFXSR OSXMMEXCPT always; VME/PVI, DE, PGE, OSXSAVE,
	 * FSGSBASE, UMIP where CPUID offers them */
	cr4_bits = BIT(2) | BIT(8) | BIT(9) | BIT(10);
	if (l1.edx & BIT(1))
		cr4_bits |= BIT(0) | BIT(1);
	if (l1.edx & BIT(2))
		cr4_bits |= BIT(3);
	if (l1.edx & BIT(13))
		cr4_bits |= BIT(7);
	if (l1.ecx & BIT(26))
		cr4_bits |= BIT(18);
	if (l7.ebx & BIT(0))
		cr4_bits |= BIT(16);
	if (l7.ecx & BIT(2))
		cr4_bits |= BIT(11);
}

/* CR0/CR3/CR4/CR8 with random bits, never PG, PE or PAE cleared, nor the
 * SMEP/SMAP/PKE/CET that would fault the guest's own code; put back after. */
static void op_cr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u32 crs[] = { 0, 3, 4, 8 };
	u32 cr = crs[below(ARRAY_SIZE(crs))];
	u64 cr0 = read_cr0(), cr4 = read_cr4(), v;
	int vec;

	switch (cr) {
	case 0:
		v = below(4) ? value(cr0) : cr0 ^ BIT(below(32));
		v = (cr0 & ~cr0_bits) | (v & cr0_bits) | CR0_PG | CR0_PE;
		break;
	case 3:
		/* bit 63 (no flush) without CR4.PCIDE: #GP, and on QEMU's SVM a
		 * VMEXIT_INVALID at once (its MOV CR3 check) */
		v = read_cr3() | (below(2) && !guest_is_amd ? BIT(63) : 0);
		break;
	case 4:
		v = below(2) ? cr4 ^ BIT(below(32)) : value(cr4);
		v = (cr4 & ~cr4_bits) | (v & cr4_bits);
		v = (v | CR4_PAE) & ~(CR4_SMEP | CR4_SMAP | CR4_PKE | CR4_CET);
		break;
	default:
		v = below(4) ? below(16) : value(0);
		if (!cr8_ok)
			return;
		break;
	}
	ring_put(n, OP_CR, cr, cr, v);
	vec = probe_cr_write(cr, v);
	record(st, OP_CR, vec, 0);
	diff(env, n, "cr%u %llx #%d", cr, (unsigned long long)v, vec);
	probe_cr_write(4, cr4);
	probe_cr_write(0, cr0);
	wrmsr_safe(X2APIC_TPR, 0);
}

static void op_xcr0(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 v = below(2) ? (fuzz_rand() & xcr0_mask) | XSTATE_X87 : value(xcr0_mask);
	u32 index = below(8) ? 0 : (u32)below(3);
	int vec;

	ring_put(n, OP_XCR0, index, index, v);
	vec = xsetbv_safe(index, v);
	record(st, OP_XCR0, vec, 0);
	diff(env, n, "xsetbv %u %llx #%d", index, (unsigned long long)v, vec);
	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_start);
}

/* DR0-DR7 writes.  DR7 (and DR5, its alias without CR4.DE) never enables
 * a breakpoint or general detect: one on the stack or the #DB handler's
 * own code recurses until the guest triple-faults (Bochs resets the whole
 * machine on that under SVM: suites.c triple_fault_runs_here). */
static void op_dr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 dr = (u32)below(8);
	u64 v = value(0);
	int vec;

	if (dr == 7 || dr == 5)
		v &= ~(u64)(0xff | BIT(13));
	ring_put(n, OP_DR, dr, dr, v);
	vec = probe_dr_write(dr, v);
	record(st, OP_DR, vec, 0);
	diff(env, n, "dr%u %llx #%d", dr, (unsigned long long)v, vec);
}

/* Random hypercall numbers and pointers; never the ones that report a
 * result, print or end the VM, and HC_PARAMS only into the scratch pages
 * or outside RAM. */
static void op_hypercall(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u64 nrs[] = { HC_NULL,	  HC_TEST_WANTED, HC_EXIT_COUNT,
				   HC_PARAMS,	  HC_TIMESTAMPS,  HC_COUNT,
				   HC_UNKNOWN_NR, 0x100000000ull, ~0ull };
	const u64 ptrs[] = { (u64)(uintptr_t)scratch,	(u64)(uintptr_t)scratch + 4096 - below(32),
			     GUEST_RAM_SIZE - 8,	GUEST_RAM_SIZE,
			     GUEST_MMIO_BASE,		XAPIC_BASE,
			     0x800000000000ull,		~0ull,
			     below(2) ? 0 : fuzz_rand() };
	u64 nr = below(8) ? nrs[below(ARRAY_SIZE(nrs))] : fuzz_rand(), a0, ret = 0;
	bool vmcall = below(8) ? hypercall_is_vmcall : !hypercall_is_vmcall;
	int vec;

	if (nr >= HC_PRINT && nr <= HC_EXIT)
		nr = HC_NULL;
	a0 = ptrs[below(ARRAY_SIZE(ptrs))];
	if (nr == HC_EXIT_COUNT && below(2))
		a0 = below(32);
	if (nr == HC_PARAMS && a0 < GUEST_RAM_SIZE &&
	    (a0 < (u64)(uintptr_t)scratch || a0 >= (u64)(uintptr_t)scratch + 4096))
		a0 = (u64)(uintptr_t)scratch;
	if (!env->mhv)
		return;
	ring_put(n, OP_HYPERCALL, vmcall, nr, a0);
	vec = probe_hypercall(vmcall, nr, a0, fuzz_rand(), &ret);
	record(st, OP_HYPERCALL, vec, nr == HC_TIMESTAMPS || nr == HC_EXIT_COUNT ? 0 : ret);
}

static void op_invlpg(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 a = below(2) ? (u64)(uintptr_t)scratch + below(8192) : value(0);
	int vec;

	ring_put(n, OP_INVLPG, 0, a, 0);
	vec = probe_invlpg(a);
	record(st, OP_INVLPG, vec, 0);
}

static void op_ipi(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 vector = below(8) ? 0x20 + (u32)below(0xe0) : (u32)below(16);
	int vec;

	ring_put(n, OP_IPI, 0, vector, 0);
	if (below(2))
		vec = wrmsr_safe(X2APIC_SELF_IPI, vector);
	else /* fixed, to self (shorthand 01) */
		vec = wrmsr_safe(X2APIC_ICR, vector | (1u << 18));
	record(st, OP_IPI, vec, 0);
}

static void op_timer(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 lvt = TIMER_VECTOR | (below(3) << 17) | (below(4) ? 0 : BIT(16));
	u64 count = below(2) ? below(100000) : value(0) & 0xffffffff;
	int vec;

	ring_put(n, OP_TIMER, 0, lvt, count);
	wrmsr_safe(X2APIC_TDCR, below(16) & 0xb);
	vec = wrmsr_safe(X2APIC_LVTT, lvt);
	if ((lvt & (3 << 17)) == (2 << 17))
		wrmsr_safe(MSR_IA32_TSC_DEADLINE, rdtsc() + below(200000));
	else
		wrmsr_safe(X2APIC_TMICT, count);
	record(st, OP_TIMER, vec, 0);
	/* a periodic timer with a tiny count would keep the next HLT busy */
	if ((lvt & (3 << 17)) == (1 << 17))
		wrmsr_safe(X2APIC_TMICT, 0);
}

/* HLT with IF set: woken by a self-IPI already pending, or else by a
 * one-shot timer armed first (the guest never halts with no wake-up). */
static void op_hlt(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	bool pending = below(2);
	u64 irqs = guest_irqs;

	apic_sane();
	ring_put(n, OP_HLT, pending, pending, 0);
	wrmsr_safe(X2APIC_TDCR, 0xb);
	wrmsr_safe(X2APIC_LVTT, TIMER_VECTOR);
	wrmsr_safe(X2APIC_TMICT, 1000 + below(20000));
	if (pending)
		wrmsr_safe(X2APIC_SELF_IPI, IPI_VECTOR);
	probe_halt();
	wrmsr_safe(X2APIC_TMICT, 0);
	record(st, OP_HLT, -1, 0);
	(void)irqs;
}

static void op_rdpmc(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 idx = below(2) ? (u32)below(8) | (below(4) ? 0 : BIT(30)) : (u32)value(0);
	u64 v = 0;
	int vec;

	ring_put(n, OP_RDPMC, 0, idx, 0);
	vec = rdpmc_safe(idx, &v);
	record(st, OP_RDPMC, vec, 0);
	diff(env, n, "rdpmc %x #%d", idx, vec);
}

/* XSAVE with a random mask; XRSTOR of what is in the buffer, its header
 * sometimes scrambled; XCR0 widened to what CPUID offers for both. */
static void op_xsave(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool restore)
{
	u64 mask = value(xcr0_mask), *hdr = (u64 *)(xbuf + 512);
	int vec;

	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_mask & ~(u64)0x60000); /* not AMX's tile state */
	ring_put(n, restore ? OP_XRSTOR : OP_XSAVE, 0, mask, 0);
	if (restore) {
		if (!below(4))
			hdr[below(8)] = value(hdr[0]);
		vec = probe_xrstor(xbuf, mask);
	} else {
		vec = probe_xsave(xbuf, mask);
	}
	record(st, restore ? OP_XRSTOR : OP_XSAVE, vec, 0);
	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_start);
	/* a bad x87/MXCSR image stays harmless: the guest uses neither */
}

/* The operations' weights: exits above all, the costly ones rarer. */
static const u8 weights[NR_FUZZ_OPS] = {
	[OP_CPUID] = 10, [OP_RDMSR] = 14, [OP_WRMSR] = 14,    [OP_IN] = 8,	   [OP_OUT] = 8,
	[OP_INS] = 2,	 [OP_OUTS] = 2,	  [OP_MMIO_READ] = 6, [OP_MMIO_WRITE] = 6, [OP_CR] = 5,
	[OP_XCR0] = 3,	 [OP_DR] = 3,	  [OP_HYPERCALL] = 5, [OP_INVLPG] = 2,	   [OP_IPI] = 3,
	[OP_TIMER] = 2,	 [OP_HLT] = 2,	  [OP_RDPMC] = 3,     [OP_XSAVE] = 1,	   [OP_XRSTOR] = 1,
};

/* The differential run: only what both the bare emulator and mhv answer
 * the same way by design (docs/fuzz.md). */
static bool diff_op(unsigned op)
{
	return op == OP_CPUID || op == OP_RDMSR || op == OP_WRMSR || op == OP_IN || op == OP_OUT ||
	       op == OP_CR || op == OP_XCR0 || op == OP_DR || op == OP_RDPMC;
}

void fuzz_one(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	unsigned total = 0, op;
	u64 r;

	for (op = 0; op < NR_FUZZ_OPS; op++)
		total += weights[op];
	do {
		r = below(total);
		for (op = 0; r >= weights[op]; op++)
			r -= weights[op];
	} while (env->diff && !diff_op(op));
	switch (op) {
	case OP_CPUID:
		return op_cpuid(env, st, n);
	case OP_RDMSR:
		return op_rdmsr(env, st, n);
	case OP_WRMSR:
		return op_wrmsr(env, st, n);
	case OP_IN:
	case OP_OUT:
		return op_io(env, st, n, op == OP_OUT);
	case OP_INS:
	case OP_OUTS:
		return op_string_io(env, st, n, op == OP_OUTS);
	case OP_MMIO_READ:
	case OP_MMIO_WRITE:
		return op_mmio(env, st, n, op == OP_MMIO_WRITE);
	case OP_CR:
		return op_cr(env, st, n);
	case OP_XCR0:
		return op_xcr0(env, st, n);
	case OP_DR:
		return op_dr(env, st, n);
	case OP_HYPERCALL:
		return op_hypercall(env, st, n);
	case OP_INVLPG:
		return op_invlpg(env, st, n);
	case OP_IPI:
		return op_ipi(env, st, n);
	case OP_TIMER:
		return op_timer(env, st, n);
	case OP_HLT:
		return op_hlt(env, st, n);
	case OP_RDPMC:
		return op_rdpmc(env, st, n);
	default:
		return op_xsave(env, st, n, op == OP_XRSTOR);
	}
}
