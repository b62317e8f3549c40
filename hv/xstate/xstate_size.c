// SPDX-License-Identifier: MIT
/*
 * The CPUID.0xD cache, XSAVE area sizes and the XCR0 / IA32_XSS validity
 * rules.  Pure data in, numbers out: no CPUID or XGETBV here, so the same code
 * runs on recorded tables in the host unit tests.
 */
#include "lib/types.h"
#include "xstate.h"

static const struct xstate_cpuid_leaf *find_subleaf(const struct xstate_cpuid_leaf *leaves,
						    unsigned n, u32 subleaf)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (leaves[i].subleaf == subleaf)
			return &leaves[i];
	}
	return NULL;
}

static u64 edx_eax(u32 hi, u32 lo)
{
	return (u64)hi << 32 | lo;
}

int xstate_cache_fill(struct xstate_cache *c, const struct xstate_cpuid_leaf *leaves, unsigned n)
{
	const struct xstate_cpuid_leaf *l0, *l1, *l;
	u64 mask;
	unsigned i;

	__builtin_memset(c, 0, sizeof(*c));
	l0 = find_subleaf(leaves, n, 0);
	l1 = find_subleaf(leaves, n, 1);
	if (!l0 || !l1)
		goto bad;

	/*
	 * Bit 63 is reserved for extending the bitmap (SDM Vol 1 §13.1): it
	 * has no subleaf, so it is never advertised onwards.
	 */
	c->xcr0_supported = edx_eax(l0->edx, l0->eax) & ~BIT(63);
	c->xss_supported = edx_eax(l1->edx, l1->ecx) & ~BIT(63);
	c->max_size_all = l0->ecx;
	c->leaf0_ebx_at_init = l0->ebx;
	c->leaf1_eax = l1->eax;

	/*
	 * x87 and SSE state are always supported when XSAVE is (SDM Vol 2A
	 * CPUID leaf 0DH: "bits 1:0 must be 1"), and a component is user
	 * (XCR0) or supervisor (IA32_XSS), never both.  Anything else is a
	 * host we do not understand: better no XSAVE than a wrong layout.
	 */
	if ((c->xcr0_supported & XSTATE_LEGACY) != XSTATE_LEGACY)
		goto bad;
	if (c->xss_supported & (c->xcr0_supported | XSTATE_LEGACY))
		goto bad;
	if (c->max_size_all < XSAVE_EXT_OFFSET)
		goto bad;

	mask = (c->xcr0_supported | c->xss_supported) & ~XSTATE_LEGACY;
	while (mask) {
		struct xstate_component *comp;

		i = __builtin_ctzll(mask);
		mask &= mask - 1;
		l = find_subleaf(leaves, n, i);
		if (!l || !l->eax)
			goto bad;
		/* ECX[0] must agree with the register the bit was enumerated in */
		if (!!(l->ecx & BIT(0)) != !!(c->xss_supported & BIT(i)))
			goto bad;
		/* A user component lies inside the area ECX sized for all of them. */
		if (!(l->ecx & BIT(0)) &&
		    (l->ebx < XSAVE_EXT_OFFSET || (u64)l->ebx + l->eax > c->max_size_all))
			goto bad;
		comp = &c->comp[i];
		comp->size = l->eax;
		comp->offset = l->ebx;
		comp->supervisor = l->ecx & BIT(0);
		comp->align64 = l->ecx & BIT(1);
	}
	c->valid = true;
	return 0;

bad:
	__builtin_memset(c, 0, sizeof(*c));
	return -1;
}

u32 xstate_size_standard(const struct xstate_cache *c, u64 xcr0)
{
	/*
	 * Each user component has a fixed offset in the standard format, so
	 * the area ends where the furthest enabled one ends; supervisor
	 * components have no place in it (SDM Vol 1 §13.4.3).
	 */
	u64 mask = xcr0 & c->xcr0_supported & ~XSTATE_LEGACY;
	u32 size = XSAVE_EXT_OFFSET;

	while (mask) {
		const struct xstate_component *comp = &c->comp[__builtin_ctzll(mask)];
		u32 end = comp->offset + comp->size;

		mask &= mask - 1;
		if (end > size)
			size = end;
	}
	return size;
}

u32 xstate_size_compacted(const struct xstate_cache *c, u64 xcr0_xss)
{
	/*
	 * SDM Vol 1 §13.4.3: the first component in XCOMP_BV[62:2] is at 576,
	 * each later one follows the previous, rounded up to 64 when its
	 * CPUID.(EAX=0DH,ECX=i):ECX[1] is set.  Same sum as Linux's
	 * xstate_calculate_size() and KVM's xstate_required_size().
	 */
	u64 mask = xcr0_xss & (c->xcr0_supported | c->xss_supported) & ~XSTATE_LEGACY;
	u32 size = XSAVE_EXT_OFFSET;

	while (mask) {
		const struct xstate_component *comp = &c->comp[__builtin_ctzll(mask)];

		mask &= mask - 1;
		if (comp->align64)
			size = ALIGN_UP(size, 64);
		size += comp->size;
	}
	return size;
}

/*
 * XCR0 dependencies XSETBV enforces on top of "only supported bits" (SDM Vol 1
 * §13.3, XSETBV "Operation" in SDM Vol 2B): when any bit of .any is set,
 * every bit of .all must be set as well.  Checked in order; the first failing
 * rule names the reason.
 */
struct xcr0_rule {
	u64 any;
	u64 all;
	enum xstate_bad bad;
	const char *why;
};

static const struct xcr0_rule xcr0_rules[] = {
	{ XSTATE_AVX, XSTATE_AVX | XSTATE_SSE, XSTATE_BAD_AVX_NO_SSE,
	  "AVX state (bit 2) requires SSE state (bit 1)" },
	{ XSTATE_MPX, XSTATE_MPX, XSTATE_BAD_MPX_PARTIAL,
	  "MPX BNDREGS (bit 3) and BNDCSR (bit 4) must be set together" },
	{ XSTATE_AVX512, XSTATE_AVX512, XSTATE_BAD_AVX512_PARTIAL,
	  "AVX-512 opmask/ZMM_Hi256/Hi16_ZMM (bits 7:5) must be set together" },
	{ XSTATE_AVX512, XSTATE_AVX512 | XSTATE_AVX | XSTATE_SSE, XSTATE_BAD_AVX512_NO_AVX,
	  "AVX-512 state (bits 7:5) requires SSE and AVX state (bits 2:1)" },
	{ XSTATE_AMX, XSTATE_AMX, XSTATE_BAD_AMX_PARTIAL,
	  "AMX TILECFG (bit 17) and TILEDATA (bit 18) must be set together" },
};

static int refuse(enum xstate_bad bad, const char *reason, const char **why)
{
	if (why)
		*why = reason;
	return -(int)bad;
}

int xstate_xcr0_check(const struct xstate_cache *c, u64 xcr0, const char **why)
{
	unsigned i;

	if (why)
		*why = NULL;
	if (!c->valid)
		return refuse(XSTATE_BAD_NO_XSAVE, "XSAVE not supported", why);
	/* Supervisor bits are reserved in XCR0; say so rather than "unsupported". */
	if (xcr0 & c->xss_supported)
		return refuse(XSTATE_BAD_SUPERVISOR, "supervisor (IA32_XSS) component in XCR0",
			      why);
	if (xcr0 & ~c->xcr0_supported)
		return refuse(XSTATE_BAD_UNSUPPORTED, "bit not in CPUID.(EAX=0DH,ECX=0):EDX:EAX",
			      why);
	if (!(xcr0 & XSTATE_X87))
		return refuse(XSTATE_BAD_NO_X87, "x87 state (bit 0) must be set", why);
	for (i = 0; i < ARRAY_SIZE(xcr0_rules); i++) {
		const struct xcr0_rule *r = &xcr0_rules[i];

		if ((xcr0 & r->any) && (xcr0 & r->all) != r->all)
			return refuse(r->bad, r->why, why);
	}
	return 0;
}

int xstate_xss_check(const struct xstate_cache *c, u64 xss, const char **why)
{
	if (why)
		*why = NULL;
	/*
	 * IA32_XSS exists only if CPUID.(EAX=0DH,ECX=1):EAX[3] (XSAVES) is
	 * set (SDM Vol 4 Table 2-2, IA32_XSS): any WRMSR to it faults, even 0.
	 */
	if (!c->valid || !(c->leaf1_eax & XSTATE_LEAF1_XSAVES))
		return refuse(XSTATE_BAD_NO_XSAVES, "IA32_XSS not supported (no XSAVES)", why);
	/* Only bits CPUID.(EAX=0DH,ECX=1):EDX:ECX enumerates (SDM Vol 1 §13.3). */
	if (xss & ~c->xss_supported)
		return refuse(XSTATE_BAD_UNSUPPORTED, "bit not in CPUID.(EAX=0DH,ECX=1):EDX:ECX",
			      why);
	return 0;
}
