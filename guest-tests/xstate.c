// SPDX-License-Identifier: MIT
/*
 * xstate: mhv's XSTATE promises, checked from inside a guest.  CPUID.0xD
 * follows XSETBV; invalid XSETBV values take #GP; SSE, AVX and AVX-512
 * register contents survive thousands of exits of every kind (the host is
 * built -mgeneral-regs-only and never switches them); XSAVE/XRSTOR round
 * trips are intact; on Zen 5 the CPUID.0xD sizes and offsets are the part's.
 */
#include "core/exit.h"
#include "rt.h"
#include "xstate/xstate.h"

#define VECTOR_GP 13
#define EXIT_ROUNDS 500 /* per exit kind: 7 kinds, so 3500 exits per check */
#define MSR_X2APIC_TPR 0x808

#define REGS_BYTES (32 * 64 + 8 * 8)

static u8 pattern[REGS_BYTES] __aligned(64);
static u8 readback[REGS_BYTES] __aligned(64);
static u8 xsave_buf[16384] __aligned(64);
static u64 xcr0_supported;

static void fill_pattern(u32 seed)
{
	u32 i, x = seed;

	for (i = 0; i < REGS_BYTES; i++) {
		x = x * 1103515245u + 12345u; /* any sequence that is not all-equal */
		pattern[i] = x >> 16;
	}
}

/* Every exit kind mhv handles on the way: CPUID, hypercall, I/O, MSR,
 * HLT, MMIO (nested page fault + decode), WBINVD, x2APIC write. */
static void many_exits(void)
{
	volatile u32 *mmio = (volatile u32 *)(uintptr_t)(GUEST_MMIO_BASE + MMIO_REG_ID);
	struct cpuid_regs r;
	unsigned i;

	for (i = 0; i < EXIT_ROUNDS; i++) {
		cpuid_count(0xd, 0, &r);
		hypercall(HC_NULL, 0, 0);
		outl(GUEST_TEST_PORT, i);
		(void)rdmsr(MSR_IA32_TSC_ADJUST);
		asm volatile("hlt");
		(void)*mmio;
		asm volatile("wbinvd" ::: "memory");
		wrmsr(MSR_X2APIC_TPR, 0);
	}
}

static bool same(u32 n)
{
	return !__builtin_memcmp(pattern, readback, n);
}

static void check_survival(const char *name, u64 need, void (*load)(const void *),
			   void (*store)(void *), u32 bytes, u64 xcr0)
{
	u64 before = exit_count(EXIT_CPUID);

	if ((xcr0_supported & need) != need) {
		test_report(name, TEST_SKIP, "XCR0 mask 0x%llx lacks 0x%llx",
			    (unsigned long long)xcr0_supported, (unsigned long long)need);
		return;
	}
	if (xsetbv_safe(0, xcr0) >= 0) {
		test_report(name, TEST_FAIL, "XSETBV 0x%llx refused", (unsigned long long)xcr0);
		return;
	}
	fill_pattern(bytes);
	load(pattern);
	many_exits();
	store(readback);
	if (same(bytes) && exit_count(EXIT_CPUID) - before >= EXIT_ROUNDS)
		test_report(name, TEST_PASS, "%s", "");
	else
		test_report(name, TEST_FAIL, "register contents changed across %u exits",
			    EXIT_ROUNDS * 8);
}

static void t_cpuid_follows_xcr0(const char *name)
{
	static const u64 masks[] = { XSTATE_LEGACY, XSTATE_LEGACY | XSTATE_AVX,
				     XSTATE_LEGACY | XSTATE_AVX | XSTATE_AVX512 };
	struct cpuid_regs r, comp;
	unsigned i, checked = 0;

	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		u64 m = masks[i], bit;
		u32 want = XSAVE_EXT_OFFSET;

		if ((xcr0_supported & m) != m)
			continue;
		/* expected: the end of the highest enabled component (sub-leaf offset + size) */
		for (bit = 2; bit < 63; bit++) {
			if (!(m & BIT(bit)))
				continue;
			cpuid_count(0xd, bit, &comp);
			if (comp.ebx + comp.eax > want)
				want = comp.ebx + comp.eax;
		}
		xsetbv_safe(0, m);
		cpuid_count(0xd, 0, &r);
		if (r.ebx != want) {
			test_report(name, TEST_FAIL, "XCR0 0x%llx: CPUID.0xD.0 EBX %u, want %u",
				    (unsigned long long)m, r.ebx, want);
			return;
		}
		checked++;
	}
	xsetbv_safe(0, XSTATE_X87);
	test_report(name, TEST_PASS, "%u XCR0 values", checked);
}

static void t_xsetbv_invalid(const char *name)
{
	static const u64 bad[] = { 0, XSTATE_SSE, XSTATE_X87 | XSTATE_AVX, BIT(63) };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int v = xsetbv_safe(0, bad[i]);

		if (v != VECTOR_GP) {
			test_report(name, TEST_FAIL, "XSETBV 0x%llx gave vector %d, want #GP",
				    (unsigned long long)bad[i], v);
			return;
		}
	}
	if ((xcr0_supported & XSTATE_AVX512) == XSTATE_AVX512 &&
	    xsetbv_safe(0, XSTATE_LEGACY | XSTATE_AVX | XSTATE_OPMASK) != VECTOR_GP) {
		test_report(name, TEST_FAIL, "partial AVX-512 accepted");
		return;
	}
	test_report(name, TEST_PASS, "%s", "");
}

static void t_sse(const char *name)
{
	check_survival(name, XSTATE_LEGACY, simd_load_xmm, simd_store_xmm, 16 * 16, XSTATE_LEGACY);
}

static void t_avx(const char *name)
{
	check_survival(name, XSTATE_LEGACY | XSTATE_AVX, simd_load_ymm, simd_store_ymm, 16 * 32,
		       XSTATE_LEGACY | XSTATE_AVX);
}

static void t_avx512(const char *name)
{
	u64 m = XSTATE_LEGACY | XSTATE_AVX | XSTATE_AVX512;

	check_survival(name, m, simd_load_zmm, simd_store_zmm, REGS_BYTES, m);
}

/* XSAVE, clobber, XRSTOR: the registers come back (SDM Vol 1 §13.7, §13.8). */
static void t_xsave_roundtrip(const char *name)
{
	u64 m = xcr0_supported & (XSTATE_LEGACY | XSTATE_AVX);
	u32 bytes = m & XSTATE_AVX ? 16 * 32 : 16 * 16;
	void (*load)(const void *) = m & XSTATE_AVX ? simd_load_ymm : simd_load_xmm;
	void (*store)(void *) = m & XSTATE_AVX ? simd_store_ymm : simd_store_xmm;
	static u8 zeros[16 * 32];

	xsetbv_safe(0, m);
	fill_pattern(7);
	load(pattern);
	__builtin_memset(xsave_buf, 0, sizeof(xsave_buf));
	xsave_area(xsave_buf, m);
	load(zeros);
	many_exits();
	xrstor_area(xsave_buf, m);
	store(readback);
	if (same(bytes))
		test_report(name, TEST_PASS, "XCR0 0x%llx", (unsigned long long)m);
	else
		test_report(name, TEST_FAIL, "XRSTOR did not bring back the XSAVEd registers");
}

/*
 * The standard-format XSAVE layout of an AMD Family 1Ah (Zen 5) part, as
 * its CPUID.0xD reports it: EPYC 9655 (00B00F21) in InstLatx64's dump
 * https://github.com/InstLatx64/InstLatx64/blob/b499237d7176ef086fc205345d6214fbd0aff972/AuthenticAMD/AuthenticAMD0B00F21_K20_Turin_01_CPUID.txt
 * (sub-leaves 2, 5, 6, 7, 9: EAX size, EBX offset; 0.ECX 0x988).  No MPX,
 * so the AVX-512 and PKRU states sit 256 bytes below Intel's offsets.
 */
static const struct {
	u8 comp;
	u16 size, offset;
} zen5_layout[] = {
	{ 2, 0x100, 0x240 }, { 5, 0x40, 0x340 }, { 6, 0x200, 0x380 },
	{ 7, 0x400, 0x580 }, { 9, 0x8, 0x980 },
};

static bool cpu_is_zen5(void)
{
	struct cpuid_regs r;
	u32 family;

	cpuid_count(1, 0, &r);
	family = (r.eax >> 8) & 0xf;
	if (family == 0xf)
		family += (r.eax >> 20) & 0xff;
	return guest_is_amd && family == 0x1a;
}

/*
 * On Zen 5: mhv's CPUID.0xD answers (its cache of the host's) carry the
 * part's sizes and offsets, and XSAVE puts opmask, ZMM_Hi256 and Hi16_ZMM
 * state where they say (SDM Vol 1 §13.4.3: standard format).
 */
static void t_avx512_xsave_layout(const char *name)
{
	u64 m = XSTATE_LEGACY | XSTATE_AVX | XSTATE_AVX512;
	struct cpuid_regs r, d0;
	u32 off[8] = { 0 };
	unsigned i;

	if (!cpu_is_zen5()) {
		test_report(name, TEST_SKIP, "not an AMD Family 1Ah (Zen 5) CPU");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(zen5_layout); i++) {
		u32 c = zen5_layout[i].comp;

		if (!(xcr0_supported & BIT(c))) {
			test_report(name, TEST_FAIL, "XCR0 mask 0x%llx lacks component %u",
				    (unsigned long long)xcr0_supported, c);
			return;
		}
		cpuid_count(0xd, c, &r);
		if (r.eax != zen5_layout[i].size || r.ebx != zen5_layout[i].offset) {
			test_report(name, TEST_FAIL,
				    "CPUID.0xD.%u: size 0x%x offset 0x%x, Zen 5 has 0x%x at 0x%x",
				    c, r.eax, r.ebx, zen5_layout[i].size, zen5_layout[i].offset);
			return;
		}
		if (c < ARRAY_SIZE(off))
			off[c] = r.ebx;
	}
	cpuid_count(0xd, 0, &d0);
	if (d0.ecx != 0x988) {
		test_report(name, TEST_FAIL, "CPUID.0xD.0 ECX 0x%x, Zen 5 has 0x988", d0.ecx);
		return;
	}
	if (xsetbv_safe(0, m) >= 0) {
		test_report(name, TEST_FAIL, "XSETBV 0x%llx refused", (unsigned long long)m);
		return;
	}
	fill_pattern(11);
	simd_load_zmm(pattern);
	many_exits();
	__builtin_memset(xsave_buf, 0, sizeof(xsave_buf));
	xsave_area(xsave_buf, m);
	/* opmask: k0-7; ZMM_Hi256: bits 511:256 of zmm0-15; Hi16_ZMM: zmm16-31 */
	for (i = 0; i < 16; i++) {
		if (__builtin_memcmp(xsave_buf + off[6] + 32 * i, pattern + 64 * i + 32, 32)) {
			test_report(name, TEST_FAIL, "ZMM_Hi256 of zmm%u not at 0x%x", i,
				    off[6] + 32 * i);
			return;
		}
	}
	if (__builtin_memcmp(xsave_buf + off[7], pattern + 16 * 64, 16 * 64) ||
	    __builtin_memcmp(xsave_buf + off[5], pattern + 32 * 64, 8 * 8)) {
		test_report(name, TEST_FAIL, "Hi16_ZMM or opmask not at 0x%x, 0x%x", off[7],
			    off[5]);
		return;
	}
	test_report(name, TEST_PASS, "opmask 0x%x, ZMM_Hi256 0x%x, Hi16_ZMM 0x%x, size 0x%x",
		    off[5], off[6], off[7], d0.ecx);
}

static const struct {
	const char *name;
	void (*fn)(const char *name);
} xstate_tests[] = {
	{ "cpuid_0xd_follows_xcr0", t_cpuid_follows_xcr0 },
	{ "xsetbv_invalid_gp", t_xsetbv_invalid },
	{ "sse_survives_exits", t_sse },
	{ "avx_survives_exits", t_avx },
	{ "avx512_survives_exits", t_avx512 },
	{ "xsave_xrstor_roundtrip", t_xsave_roundtrip },
	{ "avx512_xsave_layout", t_avx512_xsave_layout },
};

/* its results are tests, no benchmark rows */
GUEST_BENCH_ROWS();

u64 guest_main(u64 variant)
{
	struct cpuid_regs r;
	unsigned i;

	guest_rt_init();
	if (!guest_has_xsave) {
		test_report("xsave", TEST_SKIP, "the CPU (or mhv's cache) offers no XSAVE");
		return 0;
	}
	cpuid_count(0xd, 0, &r);
	xcr0_supported = ((u64)r.edx << 32) | r.eax;
	gprintf("xstate guest: XCR0 mask 0x%llx\n", (unsigned long long)xcr0_supported);
	for (i = 0; i < ARRAY_SIZE(xstate_tests); i++)
		if (test_wanted(xstate_tests[i].name))
			xstate_tests[i].fn(xstate_tests[i].name);
	xsetbv_safe(0, XSTATE_X87);
	return 0;
}
