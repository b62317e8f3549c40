// SPDX-License-Identifier: MIT
/*
 * The CPUID.0xD cache and XSAVE size math (SDM Vol 1 §13.4.3), fed with
 * recorded CPUID.0xD tables in `cpuid -1 --raw` order: subleaf, EAX..EDX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "xstate/xstate.h"
#include "xstate/xss_allow.h"

#define L(sub, a, b, c, d)                                                       \
	{                                                                        \
		.subleaf = (sub), .eax = (a), .ebx = (b), .ecx = (c), .edx = (d) \
	}

/*
 * QEMU 7.2 TCG, -cpu EPYC: x87/SSE/AVX only.  The EPYC model asks for
 * XSAVEOPT|XSAVEC|XGETBV1 but TCG_XSAVE_FEATURES (XSAVEOPT|XGETBV1) filters
 * XSAVEC, hence 0xD.1 EAX = 5 (under KVM it would be 7).  EBX of subleaf 0 is
 * for XCR0 = 1, its reset value; QEMU leaves 0xD.1 EBX 0 under TCG.
 */
static const struct xstate_cpuid_leaf qemu_epyc[] = {
	L(0x00, 0x00000007, 0x00000240, 0x00000340, 0x00000000),
	L(0x01, 0x00000005, 0x00000000, 0x00000000, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
};

/*
 * QEMU 7.2 TCG, -cpu max: XCR0 mask 0x21f (x87, SSE, AVX, MPX, PKRU) at the
 * Intel standard offsets QEMU's X86XSaveArea hard-codes (AVX 0x240, BNDREGS
 * 0x3c0, BNDCSR 0x400, PKRU 0xa80); no XSAVEC/XSAVES, so no IA32_XSS.
 * ECX = 0xa80 + 8 = 0xa88.
 */
static const struct xstate_cpuid_leaf qemu_max[] = {
	L(0x00, 0x0000021f, 0x00000240, 0x00000a88, 0x00000000),
	L(0x01, 0x00000005, 0x00000000, 0x00000000, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
	L(0x03, 0x00000040, 0x000003c0, 0x00000000, 0x00000000),
	L(0x04, 0x00000040, 0x00000400, 0x00000000, 0x00000000),
	L(0x09, 0x00000008, 0x00000a80, 0x00000000, 0x00000000),
};

/*
 * Zen 3 (Ryzen 9 5900X), verbatim from John Baldwin's reply on LKML, March
 * 2024 ("x86/elf: Add a new .note section containing xfeatures buffer layout
 * info").  No MPX gap: PKRU at 0x980.  Running XCR0 = 0x207, XSS = 0 then:
 * 0xD.1 EBX = 576 + 256 + 8 = 840 = 0x348.
 */
static const struct xstate_cpuid_leaf zen3[] = {
	L(0x00, 0x00000207, 0x00000988, 0x00000988, 0x00000000),
	L(0x01, 0x0000000f, 0x00000348, 0x00001800, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
	L(0x09, 0x00000008, 0x00000980, 0x00000000, 0x00000000),
	L(0x0b, 0x00000010, 0x00000000, 0x00000001, 0x00000000),
	L(0x0c, 0x00000018, 0x00000000, 0x00000001, 0x00000000),
};

/*
 * Zen 4/5-like: the Zen 3 table above plus AVX-512 packed right after AVX
 * (opmask 64@0x340, ZMM_Hi256 512@0x380, Hi16_ZMM 1024@0x580), which ends at
 * 0x980 where Zen 3 already puts PKRU.  Constructed, not a dump: 0xD.1 EBX is
 * the compacted size for XCR0 = 0x2e7, XSS = 0 (2440 = 0x988, see below).
 */
static const struct xstate_cpuid_leaf zen4[] = {
	L(0x00, 0x000002e7, 0x00000988, 0x00000988, 0x00000000),
	L(0x01, 0x0000000f, 0x00000988, 0x00001800, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
	L(0x05, 0x00000040, 0x00000340, 0x00000000, 0x00000000),
	L(0x06, 0x00000200, 0x00000380, 0x00000000, 0x00000000),
	L(0x07, 0x00000400, 0x00000580, 0x00000000, 0x00000000),
	L(0x09, 0x00000008, 0x00000980, 0x00000000, 0x00000000),
	L(0x0b, 0x00000010, 0x00000000, 0x00000001, 0x00000000),
	L(0x0c, 0x00000018, 0x00000000, 0x00000001, 0x00000000),
};

/*
 * Sapphire Rapids, the "Intel host" dump Yang Zhong posted to the KVM list
 * during AMX enabling (2022).  IA32_XSS bits 0xdd00: PT (8, 128 bytes),
 * PASID (10, 8), CET_U (11, 16), CET_S (12, 24), UINTR (14, 48), LBR (15,
 * 808).  TILECFG/TILEDATA carry ECX[1] (align64); TILEDATA also ECX[2] (XFD).
 * 0xD.1 EBX = 0x2d00 fits XCR0 = 0x602e7 with XSS = PASID|LBR (0x8400):
 *   576 +256 AVX = 832, +64 = 896, +512 = 1408, +1024 = 2432, +8 PKRU = 2440,
 *   +8 PASID = 2448, +808 LBR = 3256, align 3264 +64 TILECFG = 3328,
 *   +8192 TILEDATA = 11520 = 0x2d00.
 */
static const struct xstate_cpuid_leaf spr[] = {
	L(0x00, 0x000602e7, 0x00002b00, 0x00002b00, 0x00000000),
	L(0x01, 0x0000001f, 0x00002d00, 0x0000dd00, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
	L(0x05, 0x00000040, 0x00000440, 0x00000000, 0x00000000),
	L(0x06, 0x00000200, 0x00000480, 0x00000000, 0x00000000),
	L(0x07, 0x00000400, 0x00000680, 0x00000000, 0x00000000),
	L(0x08, 0x00000080, 0x00000000, 0x00000001, 0x00000000),
	L(0x09, 0x00000008, 0x00000a80, 0x00000000, 0x00000000),
	L(0x0a, 0x00000008, 0x00000000, 0x00000001, 0x00000000),
	L(0x0b, 0x00000010, 0x00000000, 0x00000001, 0x00000000),
	L(0x0c, 0x00000018, 0x00000000, 0x00000001, 0x00000000),
	L(0x0e, 0x00000030, 0x00000000, 0x00000001, 0x00000000),
	L(0x0f, 0x00000328, 0x00000000, 0x00000001, 0x00000000),
	L(0x11, 0x00000040, 0x00000ac0, 0x00000002, 0x00000000),
	L(0x12, 0x00002000, 0x00000b00, 0x00000006, 0x00000000),
};

/*
 * Intel client (Dave Hansen's laptop), verbatim from the same LKML thread as
 * zen3: AVX-512, PKRU, supervisor PT/CET/HDC (0x3900).  0xD.1 EBX = 0x998 =
 * XCR0 0x2e7 with XSS = CET_U: 2432 +8 PKRU = 2440, +16 CET_U = 2456.
 */
static const struct xstate_cpuid_leaf intel_client[] = {
	L(0x00, 0x000002e7, 0x00000a88, 0x00000a88, 0x00000000),
	L(0x01, 0x0000000f, 0x00000998, 0x00003900, 0x00000000),
	L(0x02, 0x00000100, 0x00000240, 0x00000000, 0x00000000),
	L(0x05, 0x00000040, 0x00000440, 0x00000000, 0x00000000),
	L(0x06, 0x00000200, 0x00000480, 0x00000000, 0x00000000),
	L(0x07, 0x00000400, 0x00000680, 0x00000000, 0x00000000),
	L(0x08, 0x00000080, 0x00000000, 0x00000001, 0x00000000),
	L(0x09, 0x00000008, 0x00000a80, 0x00000000, 0x00000000),
	L(0x0b, 0x00000010, 0x00000000, 0x00000001, 0x00000000),
	L(0x0c, 0x00000018, 0x00000000, 0x00000001, 0x00000000),
	L(0x0d, 0x00000008, 0x00000000, 0x00000001, 0x00000000),
};

struct table {
	const char *name;
	const struct xstate_cpuid_leaf *leaves;
	unsigned n;
};

#define TABLE(t)                     \
	{                            \
#t, t, ARRAY_SIZE(t) \
	}

static const struct table tables[] = {
	TABLE(qemu_epyc), TABLE(qemu_max), TABLE(zen3),
	TABLE(zen4),	  TABLE(spr),	   TABLE(intel_client),
};

static struct xstate_cache cache;

static void fill_ok(const struct xstate_cpuid_leaf *leaves, unsigned n)
{
	assert_int_equal(xstate_cache_fill(&cache, leaves, n), 0);
	assert_true(cache.valid);
}

#define FILL(t) fill_ok(t, ARRAY_SIZE(t))

static int setup(void **state)
{
	(void)state;
	memset(&cache, 0xa5, sizeof(cache));
	return 0;
}

static void fill_fields(void **state)
{
	(void)state;
	FILL(qemu_epyc);
	assert_int_equal(cache.xcr0_supported, 0x7);
	assert_int_equal(cache.xss_supported, 0);
	assert_int_equal(cache.max_size_all, 832);
	assert_int_equal(cache.leaf0_ebx_at_init, 576);
	assert_int_equal(cache.leaf1_eax, XSTATE_LEAF1_XSAVEOPT | XSTATE_LEAF1_XGETBV1);
	assert_int_equal(cache.comp[2].size, 256);
	assert_int_equal(cache.comp[2].offset, 576);
	assert_false(cache.comp[2].supervisor);
	assert_int_equal(cache.comp[3].size, 0); /* unsupported: left zero */

	FILL(spr);
	assert_int_equal(cache.xcr0_supported, 0x602e7);
	assert_int_equal(cache.xss_supported, 0xdd00);
	assert_int_equal(cache.max_size_all, 0x2b00);
	assert_int_equal(cache.leaf0_ebx_at_init, 0x2b00);
	assert_int_equal(cache.leaf1_eax, 0x1f);
	assert_int_equal(cache.comp[15].size, 808);
	assert_int_equal(cache.comp[15].offset, 0);
	assert_true(cache.comp[15].supervisor);
	assert_false(cache.comp[15].align64);
	assert_int_equal(cache.comp[17].size, 64);
	assert_int_equal(cache.comp[17].offset, 2752);
	assert_true(cache.comp[17].align64);
	assert_false(cache.comp[17].supervisor);
	assert_int_equal(cache.comp[18].size, 8192);
	assert_int_equal(cache.comp[18].offset, 2816);
	assert_true(cache.comp[18].align64);	  /* ECX = 6: XFD bit not kept */
	assert_int_equal(cache.comp[13].size, 0); /* no HDC on this part */

	FILL(zen4);
	assert_int_equal(cache.xcr0_supported, 0x2e7);
	assert_int_equal(cache.xss_supported, XSTATE_CET_U | XSTATE_CET_S);
	assert_int_equal(cache.comp[9].offset, 2432);
	assert_true(cache.comp[12].supervisor);
	assert_int_equal(cache.comp[12].size, 24);
}

/* CPUID.0xD.0 ECX is by definition the standard size for every XCR0 bit. */
static void standard_full_mask_is_leaf0_ecx(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		fill_ok(tables[i].leaves, tables[i].n);
		assert_int_equal(xstate_size_standard(&cache, cache.xcr0_supported),
				 cache.max_size_all);
	}
}

/*
 * The real dumps' EBX values for the XCR0 (and XSS, deduced above) the host
 * ran with: the model must reproduce what the hardware computed.
 */
static void matches_recorded_ebx(void **state)
{
	(void)state;
	FILL(zen3);
	assert_int_equal(xstate_size_standard(&cache, 0x207), 0x988);
	assert_int_equal(xstate_size_compacted(&cache, 0x207), 0x348);
	FILL(spr);
	assert_int_equal(xstate_size_standard(&cache, 0x602e7), 0x2b00);
	assert_int_equal(xstate_size_compacted(&cache, 0x602e7 | 0x8400), 0x2d00);
	FILL(intel_client);
	assert_int_equal(xstate_size_standard(&cache, 0x2e7), 0xa88);
	assert_int_equal(xstate_size_compacted(&cache, 0x2e7 | XSTATE_CET_U), 0x998);
	FILL(qemu_epyc);
	assert_int_equal(xstate_size_standard(&cache, 0x1), 0x240);
}

struct size_case {
	u64 mask;
	u32 standard;  /* for XCR0 = mask & user bits */
	u32 compacted; /* for XCR0 | XSS = mask */
};

static void check_sizes(const struct xstate_cpuid_leaf *leaves, unsigned n,
			const struct size_case *cases, size_t count)
{
	size_t i;

	fill_ok(leaves, n);
	for (i = 0; i < count; i++) {
		u64 m = cases[i].mask;

		assert_int_equal(xstate_size_standard(&cache, m), cases[i].standard);
		assert_int_equal(xstate_size_compacted(&cache, m), cases[i].compacted);
	}
}

#define CHECK_SIZES(t, c) check_sizes(t, ARRAY_SIZE(t), c, ARRAY_SIZE(c))

static void sizes_qemu(void **state)
{
	static const struct size_case epyc[] = {
		{ 0x1, 576, 576 },
		{ 0x3, 576, 576 },
		{ 0x7, 832, 832 },   /* 576 + 256 either way */
		{ 0x21f, 832, 832 }, /* unsupported bits ignored */
	};
	static const struct size_case max[] = {
		{ 0x3, 576, 576 },
		{ 0x7, 832, 832 },
		/* standard: BNDCSR ends 1024 + 64; compacted 576 + 64 + 64 */
		{ 0x1b, 1088, 704 },
		/* standard: 0x400 + 64; compacted: 832 + 64 + 64 (no MPX gap) */
		{ 0x1f, 1088, 960 },
		/* standard: PKRU ends 2688 + 8; compacted: 576 + 8 */
		{ 0x203, 2696, 584 },
		{ 0x21f, 2696, 968 }, /* 960 + 8 */
	};

	(void)state;
	CHECK_SIZES(qemu_epyc, epyc);
	CHECK_SIZES(qemu_max, max);
}

static void sizes_zen4(void **state)
{
	static const struct size_case cases[] = {
		{ 0x3, 576, 576 },
		{ 0x7, 832, 832 },
		/* Hi16_ZMM ends 1408 + 1024; compacted 832 + 64 + 512 + 1024 */
		{ 0xe7, 2432, 2432 },
		/* PKRU ends 2432 + 8; compacted 576 + 256 + 8 */
		{ 0x207, 2440, 840 },
		{ 0x2e7, 2440, 2440 },
		/* supervisor bits: no standard-format place; compacted +16 +24 */
		{ 0x2e7 | 0x1800, 2440, 2480 },
		{ 0x7 | 0x1800, 832, 872 }, /* 832 + 16 + 24 */
		{ 0x3 | XSTATE_CET_S, 576, 600 },
	};

	(void)state;
	CHECK_SIZES(zen4, cases);
}

static void sizes_spr(void **state)
{
	static const struct size_case cases[] = {
		{ 0x3, 576, 576 },
		{ 0x7, 832, 832 },
		/* Hi16_ZMM ends 1664 + 1024 = 2688; compacted as on Zen 4 */
		{ 0xe7, 2688, 2432 },
		{ 0x2e7, 2696, 2440 },
		/* TILEDATA ends 2816 + 8192; compacted 576 (aligned) +64 +8192 */
		{ 0x60003, 11008, 8832 },
		/* standard: TILECFG ends 2752 + 64 */
		{ 0x20003, 2816, 640 },
		/* 2440, align 2496 +64 = 2560, +8192 */
		{ 0x602e7, 11008, 10752 },
		/*
		 * Everything: 2432 +128 PT = 2560, +8 PKRU = 2568, +8 PASID =
		 * 2576, +16 = 2592, +24 = 2616, +48 UINTR = 2664, +808 LBR =
		 * 3472, align 3520 +64 = 3584, +8192 = 11776.
		 */
		{ 0x602e7 | 0xdd00, 11008, 11776 },
		{ 0x3 | XSTATE_PT | XSTATE_LBR, 576, 576 + 128 + 808 },
	};

	(void)state;
	CHECK_SIZES(spr, cases);
}

/*
 * An align64 component after one that leaves the running size off a 64-byte
 * boundary is pushed up; one without the flag is not.
 */
static void compacted_alignment(void **state)
{
	(void)state;
	FILL(spr);
	/* 832 + 8 PKRU = 840, TILECFG aligned to 896: 960, +8192 = 9152 (not 9096) */
	assert_int_equal(xstate_size_compacted(&cache, 0x60207), 9152);
	/* 576 +16 CET_U +24 CET_S = 616, aligned to 640: 704, +8192 = 8896 */
	assert_int_equal(xstate_size_compacted(&cache, 0x60003 | 0x1800), 8896);
	/* TILECFG alone after PKRU: 840 -> 896 + 64 */
	assert_int_equal(xstate_size_compacted(&cache, 0x20207), 960);

	/* Zen 4 flags no component: CET_U follows PKRU unaligned (2440 + 16) */
	FILL(zen4);
	assert_int_equal(xstate_size_compacted(&cache, 0x2e7 | XSTATE_CET_U), 2456);

	/* Take the flag away on SPR: the sum loses its padding. */
	FILL(spr);
	cache.comp[17].align64 = false;
	assert_int_equal(xstate_size_compacted(&cache, 0x20207), 904);
}

static void expect_xcr0(u64 xcr0, int expected)
{
	const char *why = (const char *)1;
	int rc = xstate_xcr0_check(&cache, xcr0, &why);

	if (rc != expected)
		print_error("XCR0 %#llx: got %d (%s), want %d\n", xcr0, rc, why ? why : "-",
			    expected);
	assert_int_equal(rc, expected);
	if (expected)
		assert_non_null(why);
	else
		assert_null(why);
}

static void xcr0_rules(void **state)
{
	(void)state;
	FILL(spr);
	/* x87 */
	expect_xcr0(0x1, 0);
	expect_xcr0(0x0, -XSTATE_BAD_NO_X87);
	expect_xcr0(0x2, -XSTATE_BAD_NO_X87);
	expect_xcr0(0x6, -XSTATE_BAD_NO_X87);
	/* AVX requires SSE */
	expect_xcr0(0x3, 0);
	expect_xcr0(0x7, 0);
	expect_xcr0(0x5, -XSTATE_BAD_AVX_NO_SSE);
	/* AVX-512 all or none */
	expect_xcr0(0xe7, 0);
	expect_xcr0(0x27, -XSTATE_BAD_AVX512_PARTIAL);
	expect_xcr0(0x67, -XSTATE_BAD_AVX512_PARTIAL);
	expect_xcr0(0xc7, -XSTATE_BAD_AVX512_PARTIAL);
	/* AVX-512 requires AVX (and SSE) */
	expect_xcr0(0xe3, -XSTATE_BAD_AVX512_NO_AVX);
	expect_xcr0(0xe1, -XSTATE_BAD_AVX512_NO_AVX);
	/* AMX TILECFG and TILEDATA together */
	expect_xcr0(0x60003, 0);
	expect_xcr0(0x602e7, 0);
	expect_xcr0(0x20003, -XSTATE_BAD_AMX_PARTIAL);
	expect_xcr0(0x40003, -XSTATE_BAD_AMX_PARTIAL);
	/* Only supported bits: SPR has no MPX, nothing above 18, never bit 63 */
	expect_xcr0(0x1b, -XSTATE_BAD_UNSUPPORTED);
	expect_xcr0(0x3 | BIT(19), -XSTATE_BAD_UNSUPPORTED);
	expect_xcr0(0x3 | BIT(63), -XSTATE_BAD_UNSUPPORTED);
	/* No supervisor bits */
	expect_xcr0(0x3 | XSTATE_CET_U, -XSTATE_BAD_SUPERVISOR);
	expect_xcr0(0x3 | XSTATE_PT, -XSTATE_BAD_SUPERVISOR);
	expect_xcr0(0x602e7 | XSTATE_LBR, -XSTATE_BAD_SUPERVISOR);

	/* MPX BNDREGS/BNDCSR together, where MPX exists */
	FILL(qemu_max);
	expect_xcr0(0x1b, 0);
	expect_xcr0(0x21f, 0);
	expect_xcr0(0x0b, -XSTATE_BAD_MPX_PARTIAL);
	expect_xcr0(0x13, -XSTATE_BAD_MPX_PARTIAL);
	expect_xcr0(0xe7, -XSTATE_BAD_UNSUPPORTED); /* no AVX-512 on TCG 7.2 */

	/* Without IA32_XSS, a CET bit is merely unsupported. */
	FILL(qemu_epyc);
	expect_xcr0(0x7, 0);
	expect_xcr0(0x3 | XSTATE_CET_U, -XSTATE_BAD_UNSUPPORTED);
	expect_xcr0(0x207, -XSTATE_BAD_UNSUPPORTED);

	/* why may be NULL */
	assert_int_equal(xstate_xcr0_check(&cache, 0x5, NULL), -XSTATE_BAD_AVX_NO_SSE);

	/* No XSAVE at all: XSETBV is #UD, reported as its own code */
	memset(&cache, 0, sizeof(cache));
	expect_xcr0(0x1, -XSTATE_BAD_NO_XSAVE);
}

static void expect_xss(u64 xss, int expected)
{
	const char *why = (const char *)1;
	int rc = xstate_xss_check(&cache, xss, &why);

	assert_int_equal(rc, expected);
	if (expected)
		assert_non_null(why);
	else
		assert_null(why);
}

static void xss_rules(void **state)
{
	(void)state;
	FILL(spr);
	expect_xss(0, 0);
	expect_xss(0xdd00, 0);
	expect_xss(XSTATE_PT | XSTATE_LBR, 0);
	expect_xss(XSTATE_HDC, -XSTATE_BAD_UNSUPPORTED); /* not on this part */
	expect_xss(XSTATE_X87, -XSTATE_BAD_UNSUPPORTED);
	expect_xss(XSTATE_PKRU, -XSTATE_BAD_UNSUPPORTED); /* user bit */
	expect_xss(XSTATE_TILEDATA, -XSTATE_BAD_UNSUPPORTED);
	expect_xss(BIT(63), -XSTATE_BAD_UNSUPPORTED);

	FILL(zen4);
	expect_xss(XSTATE_CET_U | XSTATE_CET_S, 0);
	expect_xss(XSTATE_PT, -XSTATE_BAD_UNSUPPORTED);

	/* No XSAVES: IA32_XSS does not exist, so even 0 is refused */
	FILL(qemu_max);
	expect_xss(0, -XSTATE_BAD_NO_XSAVES);
	memset(&cache, 0, sizeof(cache));
	expect_xss(0, -XSTATE_BAD_NO_XSAVES);
}

/* Fill from a copy of t with subleaf `drop` removed (or ~0u: none). */
static int fill_edited(const struct xstate_cpuid_leaf *t, unsigned n, u32 drop,
		       void (*edit)(struct xstate_cpuid_leaf *l, unsigned n))
{
	struct xstate_cpuid_leaf copy[64];
	unsigned i, m = 0;

	assert_true(n <= ARRAY_SIZE(copy));
	for (i = 0; i < n; i++) {
		if (t[i].subleaf != drop)
			copy[m++] = t[i];
	}
	if (edit)
		edit(copy, m);
	return xstate_cache_fill(&cache, copy, m);
}

static struct xstate_cpuid_leaf *subleaf(struct xstate_cpuid_leaf *l, unsigned n, u32 sub)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (l[i].subleaf == sub)
			return &l[i];
	}
	fail_msg("subleaf %u not in table", sub);
	return NULL;
}

static void cet_u_not_supervisor(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 11)->ecx = 0;
}

static void pkru_as_supervisor(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 9)->ecx = 1;
}

static void avx_size_zero(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 2)->eax = 0;
}

static void tiledata_past_ecx(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 18)->eax = 0x2008; /* 2816 + 8200 > 11008 */
}

static void avx_inside_legacy(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 2)->ebx = 0x200; /* inside the XSAVE header */
}

static void no_sse(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 0)->eax &= ~2u;
}

static void xss_claims_user_bit(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 1)->ecx |= XSTATE_PKRU;
}

static void bit63_in_xcr0(struct xstate_cpuid_leaf *l, unsigned n)
{
	subleaf(l, n, 0)->edx = 0x80000000;
}

static void assert_cleared(void)
{
	size_t i;

	assert_false(cache.valid);
	assert_int_equal(cache.xcr0_supported, 0);
	assert_int_equal(cache.xss_supported, 0);
	for (i = 0; i < ARRAY_SIZE(cache.comp); i++)
		assert_int_equal(cache.comp[i].size, 0);
}

#define FILL_BAD(t, drop, edit)                                                  \
	do {                                                                     \
		FILL(t); /* a failure must also forget an earlier success */     \
		assert_int_equal(fill_edited(t, ARRAY_SIZE(t), drop, edit), -1); \
		assert_cleared();                                                \
	} while (0)

static void fill_errors(void **state)
{
	(void)state;
	/* Missing subleaves */
	FILL_BAD(qemu_epyc, 0, NULL);
	FILL_BAD(qemu_epyc, 1, NULL);
	FILL_BAD(qemu_epyc, 2, NULL);
	FILL_BAD(spr, 18, NULL);  /* user component */
	FILL_BAD(zen4, 12, NULL); /* supervisor component */
	FILL_BAD(qemu_max, 4, NULL);
	assert_int_equal(xstate_cache_fill(&cache, spr, 0), -1);
	assert_cleared();

	/* Self-contradicting answers */
	FILL_BAD(zen4, ~0u, cet_u_not_supervisor);
	FILL_BAD(zen4, ~0u, pkru_as_supervisor);
	FILL_BAD(zen4, ~0u, xss_claims_user_bit);
	FILL_BAD(zen4, ~0u, no_sse);
	FILL_BAD(qemu_epyc, ~0u, avx_size_zero);
	FILL_BAD(qemu_epyc, ~0u, avx_inside_legacy);
	FILL_BAD(spr, ~0u, tiledata_past_ecx);

	/* Subleaves for components not enumerated are ignored: SPR's AMX rows on EPYC */
	{
		struct xstate_cpuid_leaf mixed[ARRAY_SIZE(qemu_epyc) + 2];

		memcpy(mixed, qemu_epyc, sizeof(qemu_epyc));
		mixed[3] = spr[13]; /* subleaf 0x11 */
		mixed[4] = spr[14]; /* subleaf 0x12 */
		fill_ok(mixed, ARRAY_SIZE(mixed));
		assert_int_equal(cache.comp[17].size, 0);
		assert_int_equal(xstate_size_standard(&cache, 0x60007), 832);
	}

	/* Bit 63 extends the bitmap: no component, dropped rather than refused */
	assert_int_equal(fill_edited(qemu_epyc, ARRAY_SIZE(qemu_epyc), ~0u, bit63_in_xcr0), 0);
	assert_true(cache.valid);
	assert_int_equal(cache.xcr0_supported, 0x7);
}

/*
 * The IA32_XSS allowlist (hv/xstate/xss_allow.c): guests get CET_U and
 * CET_S, the components xstate_cpu_reset puts back in their init state at
 * every vCPU start; every other supervisor component, known or not, is
 * withheld with a reason.
 */
static void xss_allowlist(void **state)
{
	const char *name, *why;
	unsigned bit;

	(void)state;
	assert_int_equal(xstate_xss_allowed(), XSTATE_CET_U | XSTATE_CET_S);
	for (bit = 0; bit < XSTATE_MAX_COMPONENTS; bit++) {
		name = NULL;
		why = xstate_xss_withheld(bit, &name);
		assert_non_null(name);
		if (BIT(bit) & xstate_xss_allowed())
			assert_null(why);
		else
			assert_non_null(why);
	}
	xstate_xss_withheld(14, &name);
	assert_string_equal(name, "UINTR");
	why = xstate_xss_withheld(40, &name);
	assert_string_equal(why, "not known to mhv");
}

/* Restrict a copy of t, fill the cache from it; returns what was withheld. */
static u64 fill_restricted(const struct xstate_cpuid_leaf *t, unsigned n, u32 add_xss)
{
	struct xstate_cpuid_leaf copy[64];
	unsigned i;
	u64 withheld;

	assert_true(n <= ARRAY_SIZE(copy));
	memcpy(copy, t, n * sizeof(*t));
	for (i = 0; i < n; i++)
		if (copy[i].subleaf == 1)
			copy[i].ecx |= add_xss;
	withheld = xstate_xss_restrict(copy, n);
	assert_int_equal(xstate_cache_fill(&cache, copy, n), 0);
	return withheld;
}

/*
 * What guests see of leaf 0xD after the allowlist: sub-leaf 1's ECX/EDX (the
 * cache's xss_supported) and the IA32_XSS values WRMSR takes are CET only.
 */
static void xss_restricted(void **state)
{
	(void)state;
	/* SPR: PT, PASID, UINTR, LBR withheld; CET_U, CET_S kept */
	assert_int_equal(fill_restricted(spr, ARRAY_SIZE(spr), 0),
			 XSTATE_PT | XSTATE_PASID | XSTATE_UINTR | XSTATE_LBR);
	assert_int_equal(cache.xss_supported, XSTATE_CET_U | XSTATE_CET_S);
	expect_xss(XSTATE_CET_U | XSTATE_CET_S, 0);
	expect_xss(XSTATE_PT, -XSTATE_BAD_UNSUPPORTED);
	expect_xss(XSTATE_PASID, -XSTATE_BAD_UNSUPPORTED);
	expect_xss(XSTATE_UINTR, -XSTATE_BAD_UNSUPPORTED);
	expect_xss(XSTATE_LBR, -XSTATE_BAD_UNSUPPORTED);
	/* no size cached for a withheld component: it never counts */
	assert_int_equal(cache.comp[14].size, 0);
	/* 2440 +16 CET_U +24 CET_S */
	assert_int_equal(xstate_size_compacted(&cache, 0x2e7 | 0xdd00), 2480);
	/* user components untouched */
	assert_int_equal(cache.xcr0_supported, 0x602e7);

	/* the client part: PT and HDC withheld */
	assert_int_equal(fill_restricted(intel_client, ARRAY_SIZE(intel_client), 0),
			 XSTATE_PT | XSTATE_HDC);
	assert_int_equal(cache.xss_supported, XSTATE_CET_U | XSTATE_CET_S);
	expect_xss(XSTATE_HDC, -XSTATE_BAD_UNSUPPORTED);

	/* HWP and a bit no manual names yet: withheld without a sub-leaf read */
	assert_int_equal(fill_restricted(zen3, ARRAY_SIZE(zen3), XSTATE_HWP | BIT(30)),
			 XSTATE_HWP | BIT(30));
	assert_int_equal(cache.xss_supported, XSTATE_CET_U | XSTATE_CET_S);

	/* no IA32_XSS bits at all: nothing to take away */
	assert_int_equal(fill_restricted(qemu_max, ARRAY_SIZE(qemu_max), 0), 0);
	assert_int_equal(cache.xss_supported, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(fill_fields, setup),
		cmocka_unit_test_setup(standard_full_mask_is_leaf0_ecx, setup),
		cmocka_unit_test_setup(matches_recorded_ebx, setup),
		cmocka_unit_test_setup(sizes_qemu, setup),
		cmocka_unit_test_setup(sizes_zen4, setup),
		cmocka_unit_test_setup(sizes_spr, setup),
		cmocka_unit_test_setup(compacted_alignment, setup),
		cmocka_unit_test_setup(xcr0_rules, setup),
		cmocka_unit_test_setup(xss_rules, setup),
		cmocka_unit_test_setup(fill_errors, setup),
		cmocka_unit_test_setup(xss_allowlist, setup),
		cmocka_unit_test_setup(xss_restricted, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
