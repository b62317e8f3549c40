// SPDX-License-Identifier: MIT
/*
 * The fuzz guest's operations (fuzz.h): the PRNG and its operands, the
 * outcome record and ring, and the draw of each operation.  Each one
 * (ops_io.c, ops_cpu.c) draws its operands, runs through a probe that
 * catches its fault, records the outcome and puts back whatever would stop
 * the guest itself.  mhv must survive anything they do.
 */
#include "ops_priv.h"
#include "arch/apic.h"
#include "lib/fmt.h"

struct fuzz_ring *fuzz_ring;
static u64 rng;

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

u64 fuzz_below(u64 n)
{
	return n ? fuzz_rand() % n : 0;
}

/* An interesting 64-bit operand: boundaries, single bits, all-but-one
 * bit (MCi_CTL's K8 quirk is one), the old value with one bit flipped. */
u64 fuzz_value(u64 old)
{
	switch (fuzz_below(10)) {
	case 0:
		return 0;
	case 1:
		return ~0ull;
	case 2:
		return BIT(fuzz_below(64));
	case 3:
		return ~BIT(fuzz_below(64));
	case 4:
		return old ^ BIT(fuzz_below(64));
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
		return edges[fuzz_below(ARRAY_SIZE(edges))];
	}
	default:
		return fuzz_rand();
	}
}

void fuzz_record(struct fuzz_stats *st, unsigned op, int vec, u64 result)
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

void fuzz_ring_put(u32 n, unsigned op, u32 size, u64 a, u64 b)
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
u64 fuzz_seen_port[65536 / 64];
u64 fuzz_seen_msr[4096 / 64]; /* by a hash of the index: distinct up to collisions */

void fuzz_seen(u64 *map, u32 i, u32 *count)
{
	if (!(map[i / 64] & BIT(i % 64))) {
		map[i / 64] |= BIT(i % 64);
		(*count)++;
	}
}

void fuzz_diff(const struct fuzz_env *env, u32 n, const char *fmt, ...)
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
void fuzz_apic_sane(void)
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
	fuzz_io_init();
	fuzz_cpu_init();
	guest_nmi_ok = true; /* random LVT and ICR writes may send NMIs */
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
		r = fuzz_below(total);
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
