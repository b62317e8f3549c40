// SPDX-License-Identifier: MIT
/* The fuzz guest's CPUID, MSR, control/debug register, APIC, HLT, RDPMC
 * and XSAVE operations (ops.c). */
#include "ops_priv.h"
#include "xstate/xstate.h"

static u64 xcr0_start, xcr0_mask;
static u8 xbuf[16384] __aligned(64);
static void cr_bits_init(void);

void fuzz_cpu_init(void)
{
	xcr0_start = guest_has_xsave ? xgetbv(0) : XSTATE_X87;
	xcr0_mask = XSTATE_X87 | XSTATE_SSE;
	if (guest_has_xsave) {
		struct cpuid_regs r;

		cpuid_count(0xd, 0, &r);
		xcr0_mask = r.eax | ((u64)r.edx << 32);
	}
	cr_bits_init();
}

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

void op_cpuid(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u32 bases[] = { 0, 0x40000000, 0x80000000, 0xd, 0x7, 0xb, 0x1f, 0x4 };
	u32 b = bases[fuzz_below(ARRAY_SIZE(bases))], leaf, sub = (u32)fuzz_below(70);
	struct cpuid_regs r;

	leaf = b <= 0x1f && b ? b : b + (u32)fuzz_below(0x24);
	if (!fuzz_below(16))
		leaf = (u32)fuzz_rand();
	if (!fuzz_below(8))
		sub = (u32)fuzz_rand();
	fuzz_ring_put(n, OP_CPUID, 0, leaf, sub);
	cpuid_count(leaf, sub, &r);
	fuzz_record(st, OP_CPUID, -1, r.eax ^ (u64)r.ebx << 32 ^ r.ecx ^ (u64)r.edx << 16);
	fuzz_diff(env, n, "cpuid %x %x = %x %x %x %x", leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
}

static u32 pick_msr(void)
{
	switch (fuzz_below(8)) {
	case 0:
		return (u32)fuzz_rand();
	case 1:
		return 0x800 + (u32)fuzz_below(0x100); /* x2APIC */
	case 2:
		return 0x400 + (u32)fuzz_below(0x30); /* machine-check banks */
	default:
		return msrs[fuzz_below(ARRAY_SIZE(msrs))];
	}
}

/* MSRs a write to would stop the guest itself: restored after the write */
static bool msr_restore(u32 msr)
{
	return msr == MSR_EFER || msr == MSR_IA32_APIC_BASE || msr == MSR_IA32_PAT ||
	       msr == MSR_DEBUGCTL || (msr >= 0x800 && msr <= 0x8ff) ||
	       (msr >= 0x200 && msr <= 0x2ff) || msr == MSR_IA32_MISC_ENABLE;
}

void op_rdmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 msr = pick_msr();
	u64 v = 0;
	int vec;

	fuzz_seen(fuzz_seen_msr, (msr ^ msr >> 12 ^ msr >> 24) & 4095, &st->nr_msrs);
	fuzz_ring_put(n, OP_RDMSR, 8, msr, 0);
	vec = rdmsr_safe(msr, &v);
	fuzz_record(st, OP_RDMSR, vec, msr_volatile(msr) ? 0 : v);
	if (vec >= 0)
		fuzz_diff(env, n, "rdmsr %x #%d", msr, vec);
	else if (msr_volatile(msr))
		fuzz_diff(env, n, "rdmsr %x ok", msr);
	else
		fuzz_diff(env, n, "rdmsr %x = %llx", msr, (unsigned long long)v);
}

void op_wrmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 msr = pick_msr();
	u64 old = 0, v, back = 0;
	bool readable;
	int vec;

	fuzz_seen(fuzz_seen_msr, (msr ^ msr >> 12 ^ msr >> 24) & 4095, &st->nr_msrs);
	readable = rdmsr_safe(msr, &old) < 0;
	v = fuzz_value(old);
	if (msr == MSR_EFER)
		v = (v & ~(EFER_LME | EFER_LMA)) | (old & (EFER_LME | EFER_LMA));
	if (msr == X2APIC_ICR || (msr >= 0x832 && msr <= 0x837)) {
		v &= ~(u64)0x600; /* fixed or NMI delivery, never INIT/SIPI/SMI */
		if ((v & 0xff) < 0x20)
			v |= 0x20;
	}
	if (msr == X2APIC_SELF_IPI && (v & 0xff) >= 16 && (v & 0xff) < 0x20)
		v |= 0x20; /* vectors 16-31 would land on exception gates */
	fuzz_ring_put(n, OP_WRMSR, 8, msr, v);
	vec = wrmsr_safe(msr, v);
	if (rdmsr_safe(msr, &back) >= 0)
		back = 0;
	fuzz_record(st, OP_WRMSR, vec, msr_volatile(msr) ? 0 : back);
	if (vec >= 0)
		fuzz_diff(env, n, "wrmsr %x %llx #%d", msr, (unsigned long long)v, vec);
	else if (msr_volatile(msr))
		fuzz_diff(env, n, "wrmsr %x %llx ok", msr, (unsigned long long)v);
	else
		fuzz_diff(env, n, "wrmsr %x %llx ok = %llx", msr, (unsigned long long)v,
			  (unsigned long long)back);
	if (readable && (msr_restore(msr) || env->diff))
		wrmsr_safe(msr, old);
	if ((msr >= 0x800 && msr <= 0x8ff) || msr == MSR_IA32_APIC_BASE)
		fuzz_apic_sane();
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
void op_cr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	static const u32 crs[] = { 0, 3, 4, 8 };
	u32 cr = crs[fuzz_below(ARRAY_SIZE(crs))];
	u64 cr0 = read_cr0(), cr4 = read_cr4(), v;
	int vec;

	switch (cr) {
	case 0:
		v = fuzz_below(4) ? fuzz_value(cr0) : cr0 ^ BIT(fuzz_below(32));
		v = (cr0 & ~cr0_bits) | (v & cr0_bits) | CR0_PG | CR0_PE;
		break;
	case 3:
		/* bit 63 (no flush) without CR4.PCIDE: #GP, and on QEMU's SVM a
		 * VMEXIT_INVALID at once (its MOV CR3 check) */
		v = read_cr3() | (fuzz_below(2) && !guest_is_amd ? BIT(63) : 0);
		break;
	case 4:
		v = fuzz_below(2) ? cr4 ^ BIT(fuzz_below(32)) : fuzz_value(cr4);
		v = (cr4 & ~cr4_bits) | (v & cr4_bits);
		v = (v | CR4_PAE) & ~(CR4_SMEP | CR4_SMAP | CR4_PKE | CR4_CET);
		break;
	default:
		v = fuzz_below(4) ? fuzz_below(16) : fuzz_value(0);
		if (!cr8_ok)
			return;
		break;
	}
	fuzz_ring_put(n, OP_CR, cr, cr, v);
	vec = probe_cr_write(cr, v);
	fuzz_record(st, OP_CR, vec, 0);
	fuzz_diff(env, n, "cr%u %llx #%d", cr, (unsigned long long)v, vec);
	probe_cr_write(4, cr4);
	probe_cr_write(0, cr0);
	wrmsr_safe(X2APIC_TPR, 0);
}

void op_xcr0(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 v = fuzz_below(2) ? (fuzz_rand() & xcr0_mask) | XSTATE_X87 : fuzz_value(xcr0_mask);
	u32 index = fuzz_below(8) ? 0 : (u32)fuzz_below(3);
	int vec;

	fuzz_ring_put(n, OP_XCR0, index, index, v);
	vec = xsetbv_safe(index, v);
	fuzz_record(st, OP_XCR0, vec, 0);
	fuzz_diff(env, n, "xsetbv %u %llx #%d", index, (unsigned long long)v, vec);
	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_start);
}

/* DR0-DR7 writes.  DR7 (and DR5, its alias without CR4.DE) never enables
 * a breakpoint or general detect: one on the stack or the #DB handler's
 * own code recurses until the guest triple-faults (Bochs resets the whole
 * machine on that under SVM: suites.c triple_fault_runs_here). */
void op_dr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 dr = (u32)fuzz_below(8);
	u64 v = fuzz_value(0);
	int vec;

	if (dr == 7 || dr == 5)
		v &= ~(u64)(0xff | BIT(13));
	fuzz_ring_put(n, OP_DR, dr, dr, v);
	vec = probe_dr_write(dr, v);
	fuzz_record(st, OP_DR, vec, 0);
	fuzz_diff(env, n, "dr%u %llx #%d", dr, (unsigned long long)v, vec);
}

void op_invlpg(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 a = fuzz_below(2) ? (u64)(uintptr_t)fuzz_scratch + fuzz_below(8192) : fuzz_value(0);
	int vec;

	fuzz_ring_put(n, OP_INVLPG, 0, a, 0);
	vec = probe_invlpg(a);
	fuzz_record(st, OP_INVLPG, vec, 0);
}

void op_ipi(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 vector = fuzz_below(8) ? 0x20 + (u32)fuzz_below(0xe0) : (u32)fuzz_below(16);
	int vec;

	fuzz_ring_put(n, OP_IPI, 0, vector, 0);
	if (fuzz_below(2))
		vec = wrmsr_safe(X2APIC_SELF_IPI, vector);
	else /* fixed, to self (shorthand 01) */
		vec = wrmsr_safe(X2APIC_ICR, vector | (1u << 18));
	fuzz_record(st, OP_IPI, vec, 0);
}

void op_timer(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u64 lvt = TIMER_VECTOR | (fuzz_below(3) << 17) | (fuzz_below(4) ? 0 : BIT(16));
	u64 count = fuzz_below(2) ? fuzz_below(100000) : fuzz_value(0) & 0xffffffff;
	int vec;

	fuzz_ring_put(n, OP_TIMER, 0, lvt, count);
	wrmsr_safe(X2APIC_TDCR, fuzz_below(16) & 0xb);
	vec = wrmsr_safe(X2APIC_LVTT, lvt);
	if ((lvt & (3 << 17)) == (2 << 17))
		wrmsr_safe(MSR_IA32_TSC_DEADLINE, rdtsc() + fuzz_below(200000));
	else
		wrmsr_safe(X2APIC_TMICT, count);
	fuzz_record(st, OP_TIMER, vec, 0);
	/* a periodic timer with a tiny count would keep the next HLT busy */
	if ((lvt & (3 << 17)) == (1 << 17))
		wrmsr_safe(X2APIC_TMICT, 0);
}

/* HLT with IF set: woken by a self-IPI already pending, or else by a
 * one-shot timer armed first (the guest never halts with no wake-up). */
void op_hlt(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	bool pending = fuzz_below(2);

	fuzz_apic_sane();
	fuzz_ring_put(n, OP_HLT, pending, pending, 0);
	wrmsr_safe(X2APIC_TDCR, 0xb);
	wrmsr_safe(X2APIC_LVTT, TIMER_VECTOR);
	wrmsr_safe(X2APIC_TMICT, 1000 + fuzz_below(20000));
	if (pending)
		wrmsr_safe(X2APIC_SELF_IPI, IPI_VECTOR);
	probe_halt();
	wrmsr_safe(X2APIC_TMICT, 0);
	fuzz_record(st, OP_HLT, -1, 0);
}

void op_rdpmc(const struct fuzz_env *env, struct fuzz_stats *st, u32 n)
{
	u32 idx =
	    fuzz_below(2) ? (u32)fuzz_below(8) | (fuzz_below(4) ? 0 : BIT(30)) : (u32)fuzz_value(0);
	u64 v = 0;
	int vec;

	fuzz_ring_put(n, OP_RDPMC, 0, idx, 0);
	vec = rdpmc_safe(idx, &v);
	fuzz_record(st, OP_RDPMC, vec, 0);
	fuzz_diff(env, n, "rdpmc %x #%d", idx, vec);
}

/* XSAVE with a random mask; XRSTOR of what is in the buffer, its header
 * sometimes scrambled; XCR0 widened to what CPUID offers for both. */
void op_xsave(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool restore)
{
	u64 mask = fuzz_value(xcr0_mask), *hdr = (u64 *)(xbuf + 512);
	int vec;

	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_mask & ~(u64)0x60000); /* not AMX's tile state */
	fuzz_ring_put(n, restore ? OP_XRSTOR : OP_XSAVE, 0, mask, 0);
	if (restore) {
		if (!fuzz_below(4))
			hdr[fuzz_below(8)] = fuzz_value(hdr[0]);
		vec = probe_xrstor(xbuf, mask);
	} else {
		vec = probe_xsave(xbuf, mask);
	}
	fuzz_record(st, restore ? OP_XRSTOR : OP_XSAVE, vec, 0);
	if (guest_has_xsave)
		xsetbv_safe(0, xcr0_start);
	/* a bad x87/MXCSR image stays harmless: the guest uses neither */
}
