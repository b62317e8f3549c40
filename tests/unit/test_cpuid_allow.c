// SPDX-License-Identifier: MIT
/*
 * The guest CPUID allowlist (hv/core/cpuid_allow.c), judged by bit
 * positions restated here from the manuals (SDM Vol 2A CPUID; APM Vol 3
 * Appendix E), not by mhv's table: on a CPU with every bit set, the
 * features mhv does not back, the reserved bits and the unknown leaves
 * read 0; on the feature sets of recent server parts the bits Linux boots
 * with pass and nothing is ever added.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/cpuid_allow.h"
#include "arch/ctlreg.h"
#include "cpuid_cache_regs.h"

enum {
	EAX,
	EBX,
	ECX,
	EDX
};

struct bits {
	u32 leaf, subleaf;
	unsigned reg;
	u32 bits;
	const char *name;
};

/*
 * Never passed, whatever the host has.  Issue 27: UINTR, Key Locker, FRED
 * and LKGS; issue 30: the thermal and power features of leaf 06H and
 * leaf 01H (Linux reads IA32_THERM_INTERRUPT and
 * IA32_PACKAGE_THERM_INTERRUPT where it sees them); then the features whose
 * MSRs or controls mhv does not back, and the reserved bits (a future
 * CPU's features).
 */
static const struct bits never[] = {
	{ 0x7, 0, EDX, BIT(5), "UINTR" },
	{ 0x7, 0, ECX, BIT(23), "Key Locker (KL)" },
	{ 0x7, 1, EAX, BIT(17), "FRED" },
	{ 0x7, 1, EAX, BIT(18), "LKGS" },
	{ 0x7, 1, EDX, BIT(17), "UIRET_UIF" },
	{ 0x6, 0, EAX, ~(u32)BIT(2),
	  "leaf 06H EAX but ARAT: DTS, turbo, PLN, ECMD, PTM, HWP, HDC" },
	{ 0x6, 0, EBX, ~0u, "leaf 06H EBX: thermal interrupt thresholds" },
	{ 0x6, 0, ECX, ~0u, "leaf 06H ECX: APERF/MPERF (pmu), EPB" },
	{ 0x6, 0, EDX, ~0u, "leaf 06H EDX: hardware feedback" },
	{ 0x1, 0, EDX, BIT(22), "ACPI (thermal monitor MSRs)" },
	{ 0x1, 0, EDX, BIT(29), "TM" },
	{ 0x1, 0, EDX, BIT(31), "PBE" },
	{ 0x1, 0, ECX, BIT(5), "VMX" },
	{ 0x1, 0, ECX, BIT(6), "SMX" },
	{ 0x1, 0, ECX, BIT(7), "EIST" },
	{ 0x1, 0, ECX, BIT(8), "TM2" },
	{ 0x1, 0, ECX, BIT(18), "DCA" },
	{ 0x7, 0, EBX, BIT(2), "SGX" },
	{ 0x7, 0, EBX, BIT(12) | BIT(15), "RDT" },
	{ 0x7, 0, ECX, BIT(5), "WAITPKG" },
	{ 0x7, 0, ECX, BIT(7), "CET_SS" },
	{ 0x7, 0, ECX, BIT(29), "ENQCMD" },
	{ 0x7, 0, EDX, BIT(20), "CET_IBT" },
	{ 0x7, 0, EDX, BIT(18), "PCONFIG" },
	{ 0x7, 0, EDX, BIT(22) | BIT(24) | BIT(25), "AMX" },
	{ 0x7, 0, EDX, BIT(26) | BIT(27) | BIT(31), "IBRS/IBPB, STIBP, SSBD (IA32_SPEC_CTRL)" },
	{ 0x7, 0, EDX, BIT(28) | BIT(29) | BIT(30), "L1D_FLUSH, ARCH_CAPABILITIES, CORE_CAPS" },
	{ 0x7, 1, EAX, BIT(26), "LAM" },
	{ 0x7, 1, EAX, BIT(22), "HRESET" },
	{ 0x80000001, 0, ECX, BIT(2), "SVM" },
	{ 0x80000001, 0, ECX, BIT(15), "LWP" },
	{ 0x80000001, 0, EDX, BIT(25), "FFXSR" },
	{ 0x80000007, 0, EDX, BIT(7) | BIT(9) | BIT(14), "HwPstate, CPB, RAPL" },
	{ 0x80000008, 0, EBX, BIT(14) | BIT(15) | BIT(24) | BIT(25), "IBRS STIBP SSBD VIRT_SSBD" },
	{ 0x80000008, 0, EBX, BIT(3) | BIT(4), "INVLPGB, RDPRU" },
	{ 0x80000021, 0, EAX, BIT(7), "UpperAddressIgnore (EFER.UAIE)" },
	/* reserved in SDM Vol 2A (2024) and APM Vol 3 (2024) */
	{ 0x1, 0, ECX, BIT(16), "reserved 01H ECX[16]" },
	{ 0x1, 0, EDX, BIT(10) | BIT(20), "reserved 01H EDX[10], [20]" },
	{ 0x7, 0, EDX, BIT(0) | BIT(6) | BIT(7) | BIT(12) | BIT(17) | BIT(21), "reserved 07H EDX" },
	{ 0x7, 1, EAX, BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(9) | BIT(31), "reserved 07H.1 EAX" },
	{ 0x7, 1, ECX, ~0u, "07H.1 ECX" },
	{ 0x80000001, 0, ECX, BIT(14) | BIT(18) | BIT(19) | BIT(25) | BIT(31),
	  "reserved 8000_0001 ECX" },
	{ 0x80000001, 0, EDX, BIT(10) | BIT(18) | BIT(19) | BIT(21) | BIT(28),
	  "reserved 8000_0001 EDX" },
};

/* Leaves that read as zeros: no feature mhv backs, or not known to mhv. */
static const u32 zero_leaves[] = {
	0x3,	    0x8,	0x9,	    0xc,	0xe,	    0xf,	0x10,
	0x11,	    0x12,	0x13,	    0x19,	0x1b,	    0x1d,	0x1e,
	0x80000009, 0x8000000a, 0x8000000b, 0x80000010, 0x80000018, 0x8000001c, 0x8000001f,
	0x80000020, 0x80000023, 0x80000024, 0x80000025, 0x80000027, 0x80000028,
};

/* What Linux 6.1 boots with on these parts (arch/x86/kernel/cpu, the
 * kernel's required features, XSAVE and AVX for its FPU code), and what
 * mhv's own guests use. */
static const struct bits linux_needs[] = {
	{ 0x1, 0, EDX,
	  BIT(0) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(8) | BIT(9) | BIT(11) | BIT(12) |
	      BIT(13) | BIT(15) | BIT(16) | BIT(19) | BIT(24) | BIT(25) | BIT(26),
	  "FPU PSE TSC MSR PAE CX8 APIC SEP MTRR PGE CMOV PAT CLFSH FXSR SSE SSE2" },
	{ 0x1, 0, EDX, BIT(7) | BIT(14), "MCE MCA" },
	{ 0x1, 0, ECX, BIT(0) | BIT(13) | BIT(19) | BIT(20) | BIT(23) | BIT(26) | BIT(28),
	  "SSE3 CX16 SSE4.1 SSE4.2 POPCNT XSAVE AVX" },
	{ 0x1, 0, ECX, BIT(17), "PCID" },
	{ 0x7, 0, EBX, BIT(0) | BIT(3) | BIT(5) | BIT(7) | BIT(8) | BIT(9) | BIT(10) | BIT(20),
	  "FSGSBASE BMI1 AVX2 SMEP BMI2 ERMS INVPCID SMAP" },
	{ 0x7, 0, ECX, BIT(2) | BIT(3), "UMIP PKU" },
	{ 0x7, 0, EDX, BIT(4) | BIT(10), "FSRM MD_CLEAR" },
	{ 0x80000001, 0, EDX, BIT(11) | BIT(20) | BIT(26) | BIT(27) | BIT(29),
	  "SYSCALL NX 1G pages RDTSCP LM" },
	{ 0x80000001, 0, ECX, BIT(0) | BIT(5), "LahfSahf ABM" },
	{ 0x80000007, 0, EDX, BIT(8), "TscInvariant" },
	{ 0x6, 0, EAX, BIT(2), "ARAT" },
};

static void set(struct cpuid_cache *c, u32 leaf, u32 subleaf, unsigned reg, u32 v)
{
	*reg_of(c, leaf, subleaf, reg) = v;
}

static void all_ones(struct cpuid_cache *c)
{
	unsigned i;

	memset(c, 0xff, sizeof(*c));
	c->max_std = CPUID_STD_CACHED - 1;
	c->max_ext = CPUID_EXT_BASE + CPUID_EXT_CACHED - 1;
	c->subs.count = 4;
	for (i = 0; i < 3; i++)
		c->subs.sub[i] = (struct cpuid_sub){ 7, i + 1, { ~0u, ~0u, ~0u, ~0u } };
	c->subs.sub[3] = (struct cpuid_sub){ 0x10, 1, { ~0u, ~0u, ~0u, ~0u } };
}

/*
 * EPYC 9005 (Zen 5, "Turin"), family 1AH: the bits set are the features
 * AMD's documents list for the part (APM Vol 3 Appendix E, the PPR for
 * family 1AH models 00h-1Fh, AMD's product brief), SVM and SEV included,
 * set one by one; a transcription of the feature lists, not a dump taken
 * from a machine.
 */
static void zen5(struct cpuid_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->max_std = 0x10;
	c->max_ext = 0x80000028;
	c->std[0] = (struct cpuid_regs){ 0x10, 0x68747541, 0x444d4163, 0x69746e65 };
	set(c, 0x1, 0, EAX, 0x00b00f21);
	set(c, 0x1, 0, EBX, 0x00800800);
	set(c, 0x1, 0, ECX, 0x7ef8320b); /* SSE3 PCLMUL MONITOR SSSE3 FMA CX16 ... RDRAND */
	set(c, 0x1, 0, EDX, 0x178bfbff);
	set(c, 0x6, 0, EAX, BIT(2));
	set(c, 0x6, 0, ECX, BIT(0));
	set(c, 0x7, 0, EAX, 1);
	set(c, 0x7, 0, EBX, 0xf1bf97a9); /* FSGSBASE ... AVX-512, SHA, RDT */
	set(c, 0x7, 0, ECX, 0x1f4f5fce); /* VBMI UMIP PKU CET_SS GFNI ... LA57 RDPID MOVDIR */
	set(c, 0x7, 0, EDX, BIT(4) | BIT(8) | BIT(10));
	set(c, 0x7, 1, EAX, BIT(4) | BIT(5));
	set(c, 0x80000001, 0, EAX, 0x00b00f21);
	set(c, 0x80000001, 0, ECX, 0x75c237ff); /* LahfSahf ... SVM IBS PerfCtrExtCore */
	set(c, 0x80000001, 0, EDX, 0x2fd3fbff);
	set(c, 0x80000007, 0, EBX, 0xf);    /* McaOverflowRecov SUCCOR HWA ScalableMca */
	set(c, 0x80000007, 0, EDX, 0xe799); /* TS TTP TM HwPstate TscInvariant CPB EffFreqRO ... */
	set(c, 0x80000008, 0, EAX, 0x00003030);
	set(c, 0x80000008, 0, EBX, 0x391ef257); /* CLZERO IRPerf ... IBPB IBRS STIBP SSBD ... */
	set(c, 0x8000000a, 0, EAX, 1);
	set(c, 0x8000000a, 0, EBX, 0x8000);
	set(c, 0x8000000a, 0, EDX, 0x1ebfbcff);
	set(c, 0x8000001f, 0, EAX, 0x0101fd3f);
	/* NoNestedDataBp ... AutomaticIBRS ... ERAPS SBPB IBPB_BRTYPE SRSO_NO
	 * SRSO_USER_KERNEL_NO SRSO_MSR_FIX */
	set(c, 0x80000021, 0, EAX, 0xf91e2fcf);
	set(c, 0x80000021, 0, EBX, 0x00200da0);
	set(c, 0x80000022, 0, EAX, 0x7);
}

/*
 * Xeon 4th generation (Sapphire Rapids), family 6 model 8FH: the features
 * Intel's SDM and the part's documents list, AMX, UINTR, TSX, SGX and the
 * thermal and power leaf included, set one by one (a transcription of the
 * feature lists, not a machine's dump).
 */
static void sapphire_rapids(struct cpuid_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->max_std = 0x1f;
	c->max_ext = 0x80000008;
	c->std[0] = (struct cpuid_regs){ 0x20, 0x756e6547, 0x6c65746e, 0x49656e69 };
	set(c, 0x1, 0, EAX, 0x000806f8);
	set(c, 0x1, 0, EBX, 0x00800800);
	set(c, 0x1, 0, ECX, 0x7ffefbff); /* everything but bit 16, VMX SMX EIST TM2 DCA ... */
	set(c, 0x1, 0, EDX, 0xbfebfbff); /* ... DS ACPI TM PBE */
	set(c, 0x6, 0, EAX, 0x00df77f7); /* DTS turbo ARAT PLN ECMD PTM HWP ... HDC */
	set(c, 0x6, 0, EBX, 0x2);
	set(c, 0x6, 0, ECX, 0x9);
	set(c, 0x7, 0, EAX, 2);
	set(c, 0x7, 0, EBX, 0xf3bfbfff); /* ... SGX RTM RDT AVX-512 PT SHA */
	set(c, 0x7, 0, ECX, 0x1bc1bffe); /* ... WAITPKG CET_SS TME LA57 RDPID BUS_LOCK ... ENQCMD */
	set(c, 0x7, 0, EDX, 0xffc7cc38 | BIT(5)); /* UINTR ... AMX SPEC_CTRL ARCH_CAPS */
	set(c, 0x7, 1, EAX, BIT(4) | BIT(5) | BIT(10) | BIT(11) | BIT(12) | BIT(22) | BIT(26));
	set(c, 0x80000001, 0, ECX, 0x00000121); /* LahfSahf ABM 3DNowPrefetch */
	set(c, 0x80000001, 0, EDX, 0x2c100800); /* SYSCALL NX 1G RDTSCP LM */
	set(c, 0x80000007, 0, EDX, BIT(8));
	set(c, 0x80000008, 0, EAX, 0x0000302e);
	set(c, 0x80000008, 0, EBX, BIT(9)); /* WBNOINVD */
	c->subs.count = 1;
	c->subs.sub[0] = (struct cpuid_sub){ 7, 2, { 0, 0, 0, 0x3f } }; /* PSFD ... MCDT_NO */
}

static void check_never(struct cpuid_cache *c, const char *cpu)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(never); i++) {
		u32 v = *reg_of(c, never[i].leaf, never[i].subleaf, never[i].reg);

		if (v & never[i].bits)
			fail_msg("%s: %s (leaf 0x%x.%u reg %u bits 0x%x) passed: 0x%x", cpu,
				 never[i].name, never[i].leaf, never[i].subleaf, never[i].reg,
				 never[i].bits, v & never[i].bits);
	}
	for (i = 0; i < ARRAY_SIZE(zero_leaves); i++) {
		const struct cpuid_regs *r = regs_of(c, zero_leaves[i], 0);

		if (r->eax | r->ebx | r->ecx | r->edx)
			fail_msg("%s: leaf 0x%x is not zero", cpu, zero_leaves[i]);
	}
}

/* The allowlist only clears: no bit the host lacks appears (the one count
 * it lowers aside). */
static void check_only_clears(const struct cpuid_cache *host, const struct cpuid_cache *guest)
{
	const u32 *h = (const u32 *)(const void *)host->std;
	const u32 *g = (const u32 *)(const void *)guest->std;
	size_t i, n = sizeof(host->std) / 4;

	for (i = 0; i < n; i++) {
		if (i == 7 * 4) /* 7.0 EAX, the highest sub-leaf: a count, capped */
			assert_true(g[i] <= h[i]);
		else
			assert_int_equal(g[i] & ~h[i], 0);
	}
	h = (const u32 *)(const void *)host->ext;
	g = (const u32 *)(const void *)guest->ext;
	for (i = 0; i < sizeof(host->ext) / 4; i++)
		assert_int_equal(g[i] & ~h[i], 0);
	assert_int_equal(guest->leaf7_1.eax & ~host->leaf7_1.eax, 0);
	assert_int_equal(guest->leaf7_1.edx & ~host->leaf7_1.edx, 0);
}

static void check_linux_needs(struct cpuid_cache *host, struct cpuid_cache *guest, const char *cpu)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(linux_needs); i++) {
		const struct bits *b = &linux_needs[i];
		u32 want = *reg_of(host, b->leaf, b->subleaf, b->reg) & b->bits;
		u32 got = *reg_of(guest, b->leaf, b->subleaf, b->reg) & b->bits;

		if (got != want)
			fail_msg("%s: %s (leaf 0x%x reg %u) lost bits 0x%x", cpu, b->name, b->leaf,
				 b->reg, want & ~got);
	}
}

static void test_every_bit_set(void **state)
{
	struct cpuid_cache c;
	unsigned i;

	all_ones(&c);
	cpuid_allow_apply(&c);
	check_never(&c, "all ones");
	/* leaf 7: sub-leaves 0 and 1 only (7.0 EAX capped, 7.2 and 7.3 zero) */
	assert_int_equal(c.std[7].eax, 1);
	for (i = 0; i < 3; i++) {
		const struct cpuid_regs *r = &c.subs.sub[i].r;

		if (c.subs.sub[i].subleaf >= 2)
			assert_int_equal(r->eax | r->ebx | r->ecx | r->edx, 0);
	}
	/* RDT allocation's sub-leaves go with its leaf */
	assert_int_equal(c.subs.sub[3].r.eax | c.subs.sub[3].r.edx, 0);
	/* the leaves passed whole stay whole: the names, caches, topology */
	assert_int_equal(c.std[0].ebx, ~0u);
	assert_int_equal(c.std[4].eax, ~0u);
	assert_int_equal(c.std[0xb].edx, ~0u);
	assert_int_equal(c.ext[2].eax, ~0u);
	assert_int_equal(c.ext[0x1d].eax, ~0u);
	/* and the PMU's leaves are pmu_cpuid.c's, XSAVE's hv/xstate's */
	assert_int_equal(c.std[0xa].eax, ~0u);
	assert_int_equal(c.ext[0x22].ebx, ~0u);
}

/* Every bit passed or hidden has a reason. */
static void test_every_bit_has_a_reason(void **state)
{
	static const u32 leaves[] = { 0x1,	  0x6,	      0x7,  0x80000001, 0x80000007,
				      0x80000008, 0x80000021, 0x19, 0x8000001f };
	unsigned i, reg, bit;

	for (i = 0; i < ARRAY_SIZE(leaves); i++)
		for (reg = 0; reg < 4; reg++)
			for (bit = 0; bit < 32; bit++)
				assert_non_null(cpuid_allow_reason(leaves[i], 0, reg, bit));
	assert_string_equal(cpuid_allow_reason(0x7, 0, EDX, 5), "not known to mhv as safe");
	assert_string_equal(cpuid_allow_reason(0x80000027, 0, EAX, 0), "leaf not known to mhv");
}

static void test_zen5(void **state)
{
	struct cpuid_cache host, c;

	zen5(&host);
	c = host;
	cpuid_allow_apply(&c);
	check_never(&c, "Zen 5");
	check_only_clears(&host, &c);
	check_linux_needs(&host, &c, "Zen 5");
	/* the PMU bits stay for pmu_cpuid.c to decide */
	assert_true(c.ext[1].ecx & BIT(23));
	assert_int_equal(c.ext[0x22].eax, 7);
	/* AVX-512 and its VP2INTERSECT, AVX-VNNI pass */
	assert_true(c.std[7].ebx & BIT(16));
	assert_true(c.std[7].edx & BIT(8));
	assert_true(c.leaf7_1.eax & BIT(4));
	/* the speculation statements pass; the controls do not */
	assert_int_equal(c.ext[0x21].eax & (BIT(29) | BIT(30)), BIT(29) | BIT(30));
	assert_int_equal(c.ext[0x21].eax & (BIT(24) | BIT(27) | BIT(31)), 0);
	assert_true(c.ext[8].ebx & BIT(12)); /* IBPB: PRED_CMD is passed */
}

static void test_sapphire_rapids(void **state)
{
	struct cpuid_cache host, c;

	sapphire_rapids(&host);
	c = host;
	cpuid_allow_apply(&c);
	check_never(&c, "Sapphire Rapids");
	check_only_clears(&host, &c);
	check_linux_needs(&host, &c, "Sapphire Rapids");
	assert_int_equal(c.std[6].eax, BIT(2));
	assert_int_equal(c.std[7].eax, 1);
	assert_int_equal(c.subs.sub[0].r.edx, 0); /* 7.2 EDX: SPEC_CTRL's extra bits */
	assert_true(c.std[7].ebx & BIT(4));	  /* HLE, RTM: instructions */
	assert_true(c.std[7].edx & BIT(14));	  /* SERIALIZE */
	assert_true(c.std[1].edx & BIT(21));	  /* DS: IA32_DS_AREA is backed */
}

/*
 * CR4 follows the guest's CPUID (core/guest_cr.c reads the guest's view):
 * on a CPU with everything, CR4.UINTR, KL, FRED, CET and LAM_SUP are
 * refused, the CR4 bits of the features passed are not.  CR4 bits: SDM
 * Vol 3 §2.5.
 */
static void test_cr4_follows(void **state)
{
	struct cpuid_cache c;
	u64 valid;

	all_ones(&c);
	cpuid_allow_apply(&c);
	valid = ctlreg_cr4_valid(c.std[1].ecx, c.std[1].edx, c.std[7].ebx, c.std[7].ecx,
				 c.std[7].edx, c.leaf7_1.eax);
	assert_int_equal(
	    valid & (CR4_UINTR | CR4_KL | CR4_FRED | CR4_CET | CR4_LAM_SUP | CR4_VMXE | CR4_SMXE),
	    0);
	assert_int_equal(valid & (CR4_PAE | CR4_PGE | CR4_OSFXSR | CR4_OSXSAVE | CR4_PCIDE |
				  CR4_FSGSBASE | CR4_SMEP | CR4_SMAP | CR4_UMIP | CR4_PKE |
				  CR4_LA57 | CR4_PKS),
			 CR4_PAE | CR4_PGE | CR4_OSFXSR | CR4_OSXSAVE | CR4_PCIDE | CR4_FSGSBASE |
			     CR4_SMEP | CR4_SMAP | CR4_UMIP | CR4_PKE | CR4_LA57 | CR4_PKS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_bit_set), cmocka_unit_test(test_every_bit_has_a_reason),
		cmocka_unit_test(test_zen5),	      cmocka_unit_test(test_sapphire_rapids),
		cmocka_unit_test(test_cr4_follows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
