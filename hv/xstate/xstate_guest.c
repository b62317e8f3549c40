// SPDX-License-Identifier: MIT
/*
 * The guest side of XSTATE: CPUID.0xD answered from the init-time cache
 * (never host CPUID on an exit, unless a VM asks for the uncached A/B
 * path), XSETBV and IA32_XSS checked as hardware checks them.
 */
#include "xstate_guest.h"
#include "xss_allow.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "lib/fmt.h"
#include "core/vm.h"
#include "arch/msr.h"
#include "arch/regs.h"

#define CPUID_COST_REPEATS 8

struct xstate_cache host_xstate;
/* Components CPUID announced without a size, left out of the cache. */
static u64 host_xstate_dropped;
/* The host's IA32_XSS components guests do not get (xss_allow.c). */
static u64 host_xss_withheld;
/*
 * The init state of every supervisor component guests may have: a compacted
 * XSAVE header with XSTATE_BV = 0 (SDM Vol 1 §13.4.3, §13.12).  XCOMP_BV
 * (bit 63 and the cache's IA32_XSS bits) is written once the cache is filled.
 */
static u8 xss_init_image[XSAVE_LEGACY_SIZE + XSAVE_HEADER_SIZE] __aligned(64);
#define XSAVE_XCOMP_BV (XSAVE_LEGACY_SIZE + 8)
#define XCOMP_BV_COMPACTED BIT(63)

static inline void xsetbv(u32 index, u64 value)
{
	asm volatile("xsetbv" ::"c"(index), "a"((u32)value), "d"((u32)(value >> 32)) : "memory");
}

static u64 cpuid_cost(u32 subleaf)
{
	struct cpuid_regs r;
	u64 best = ~0ull;
	unsigned i;

	for (i = 0; i < CPUID_COST_REPEATS; i++) {
		u64 t0 = rdtsc();

		cpuid_raw(0xd, subleaf, &r);
		t0 = rdtsc() - t0;
		if (t0 < best)
			best = t0;
	}
	return best;
}

/* The seed's table: what one CPUID.0xD sub-leaf costs on this host. */
static void print_costs(void)
{
	u64 mask = host_xstate.xcr0_supported | host_xstate.xss_supported, t0, t_cache;
	struct cpuid_regs r;
	unsigned i;

	console_printf("mhv: xstate: XCR0 mask 0x%llx, XSS mask 0x%llx, max size %u; host "
		       "CPUID.0xD cost (min of %u, TSC ticks incl. RDTSC):\n",
		       host_xstate.xcr0_supported, host_xstate.xss_supported,
		       host_xstate.max_size_all, CPUID_COST_REPEATS);
	for (i = 0; i < XSTATE_MAX_COMPONENTS; i++)
		if (i < 2 || (mask & BIT(i)))
			console_printf("mhv:   CPUID.0xD.%u = %llu ticks\n", i, cpuid_cost(i));
	/* once untimed: an emulator's first run of the code is translation */
	(void)xstate_size_standard(&host_xstate, host_xstate.xcr0_supported);
	t0 = rdtsc();
	(void)xstate_size_standard(&host_xstate, host_xstate.xcr0_supported);
	t_cache = rdtsc() - t0;
	t0 = rdtsc();
	for (i = 2; i < XSTATE_MAX_COMPONENTS; i++)
		if (host_xstate.xcr0_supported & BIT(i))
			cpuid_raw(0xd, i, &r);
	console_printf("mhv:   size of the full XCR0 area: %llu ticks from the cache, %llu ticks "
		       "re-executing CPUID\n",
		       t_cache, rdtsc() - t0);
}

static void print_withheld(void)
{
	const char *name, *why;
	unsigned i;

	for (i = 0; i < XSTATE_MAX_COMPONENTS; i++) {
		if (!(host_xss_withheld & BIT(i)))
			continue;
		why = xstate_xss_withheld(i, &name);
		console_printf("mhv: xstate: IA32_XSS component %u (%s) withheld from guests: %s\n",
			       i, name, why);
	}
}

void xstate_init(void)
{
	struct xstate_cpuid_leaf leaves[XSTATE_MAX_COMPONENTS];
	struct cpuid_regs r;
	unsigned n = 0, i;
	u64 mask;

	if (!host_cpu.has.xsave || host_cpu.cpuid.max_std < 0xd) {
		console_printf("mhv: xstate: no XSAVE: guests get none\n");
		return;
	}
	for (i = 0; i < 2; i++) {
		cpuid_raw(0xd, i, &r);
		leaves[n++] = (struct xstate_cpuid_leaf){ i, r.eax, r.ebx, r.ecx, r.edx };
	}
	/* IA32_XSS offers guests only the components mhv virtualizes */
	host_xss_withheld = xstate_xss_restrict(leaves, n);
	mask =
	    ((u64)leaves[0].edx << 32 | leaves[0].eax) | ((u64)leaves[1].edx << 32 | leaves[1].ecx);
	for (i = 2; i < XSTATE_MAX_COMPONENTS; i++) {
		if (!(mask & BIT(i)))
			continue;
		cpuid_raw(0xd, i, &r);
		if (!r.eax) {
			/* Bochs 2.7 tigerlake advertises PKRU (bit 9) with an empty
			 * sub-leaf: a component without a size is left out. */
			console_printf("mhv: xstate: component %u is in the supported mask but "
				       "CPUID.0xD.%u gives no size: left out\n",
				       i, i);
			host_xstate_dropped |= BIT(i);
			if (i < 32) {
				leaves[0].eax &= ~(u32)BIT(i);
				leaves[1].ecx &= ~(u32)BIT(i);
			} else {
				leaves[0].edx &= ~(u32)BIT(i - 32);
				leaves[1].edx &= ~(u32)BIT(i - 32);
			}
			continue;
		}
		leaves[n++] = (struct xstate_cpuid_leaf){ i, r.eax, r.ebx, r.ecx, r.edx };
	}
	if (xstate_cache_fill(&host_xstate, leaves, n)) {
		console_printf("mhv: xstate: CPUID.0xD answers are inconsistent; guests get no "
			       "XSAVE.  The answers (sub-leaf: eax ebx ecx edx):\n");
		for (i = 0; i < n; i++)
			console_printf("mhv:   0xD.%u: %08x %08x %08x %08x\n", leaves[i].subleaf,
				       leaves[i].eax, leaves[i].ebx, leaves[i].ecx, leaves[i].edx);
		return;
	}
	/* XSETBV on behalf of guests needs CR4.OSXSAVE on the host (OVMF leaves it clear). */
	write_cr4(read_cr4() | CR4_OSXSAVE);
	*(u64 *)(xss_init_image + XSAVE_XCOMP_BV) = XCOMP_BV_COMPACTED | host_xstate.xss_supported;
	print_costs();
	print_withheld();
}

/*
 * On an AP: does this CPU's CPUID.0xD agree with the cache the BSP filled?
 * Guests run on any chosen CPU with one cached answer, so a CPU whose
 * XSTATE layout differs (a hybrid part) must not run them.
 */
bool xstate_matches_this_cpu(char *why, size_t size)
{
	const struct xstate_cache *c = &host_xstate;
	struct cpuid_regs r;
	unsigned i;

	if (!c->valid)
		return true;
	cpuid_raw(0xd, 0, &r);
	if (((u64)r.edx << 32 | r.eax) != (c->xcr0_supported | host_xstate_dropped)) {
		fmt_snprintf(why, size, "CPUID.0xD.0 XCR0 mask 0x%llx, the BSP's 0x%llx",
			     (u64)r.edx << 32 | r.eax, c->xcr0_supported);
		return false;
	}
	for (i = 2; i < XSTATE_MAX_COMPONENTS; i++) {
		if (!((c->xcr0_supported | c->xss_supported) & BIT(i)))
			continue;
		cpuid_raw(0xd, i, &r);
		if (r.eax != c->comp[i].size ||
		    (!c->comp[i].supervisor && r.ebx != c->comp[i].offset)) {
			fmt_snprintf(why, size,
				     "XSTATE component %u: size %u offset %u, the BSP's %u at %u",
				     i, r.eax, r.ebx, c->comp[i].size, c->comp[i].offset);
			return false;
		}
	}
	return true;
}

void xstate_vcpu_reset(struct vcpu *vcpu, bool uncached)
{
	vcpu->xstate = (struct vcpu_xstate){ .xcr0 = XSTATE_X87, .uncached = uncached };
}

/*
 * An XSAVE image whose header says every component is in its init state
 * (XSTATE_BV = 0, standard form): XRSTOR then loads each component's
 * initial configuration without reading its area (SDM Vol 1 §13.6,
 * §13.8.1).  MXCSR is read from the legacy area whenever RFBM[1] or
 * RFBM[2] is set, and FXRSTOR reads all of it: both hold the init values
 * (FCW 037FH, FTW empty, MXCSR 1F80H).
 */
#define FXSAVE_FCW 0
#define FXSAVE_MXCSR 24
static const u8 init_image[XSAVE_LEGACY_SIZE + XSAVE_HEADER_SIZE] __aligned(64) = {
	[FXSAVE_FCW] = 0x7f,
	[FXSAVE_FCW + 1] = 0x03,
	[FXSAVE_MXCSR] = 0x80,
	[FXSAVE_MXCSR + 1] = 0x1f,
};

void xstate_cpu_reset(void)
{
	const struct xstate_cache *c = &host_xstate;
	u64 all = c->xcr0_supported, sup;

	if (!c->valid) {
		asm volatile("fxrstor64 %0" ::"m"(*(const u8(*)[XSAVE_LEGACY_SIZE])init_image));
		return;
	}
	/* every user component enabled, so that one XRSTOR inits them all */
	xsetbv(0, all);
	asm volatile("xrstor64 %0" ::"m"(init_image), "a"((u32)all), "d"((u32)(all >> 32)));
	xsetbv(0, XSTATE_X87); /* XCR0 after reset (SDM Vol 1 §13.3) */
	if (!(c->leaf1_eax & XSTATE_LEAF1_XSAVES))
		return;
	/*
	 * The supervisor components a guest may have set in IA32_XSS: XRSTORS
	 * acts on RFBM = (XCR0 | IA32_XSS) & EDX:EAX and puts each component
	 * whose XSTATE_BV bit is 0 in its init state (SDM Vol 1 §13.12), so
	 * what the VM before loaded with XRSTORS does not reach this one.
	 */
	sup = c->xss_supported;
	if (sup) {
		wrmsr(MSR_IA32_XSS, sup);
		asm volatile("xrstors64 %0" ::"m"(xss_init_image), "a"((u32)sup),
			     "d"((u32)(sup >> 32)));
	}
	wrmsr(MSR_IA32_XSS, 0);
}

static inline u64 xgetbv0(void)
{
	u32 lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((u64)hi << 32) | lo;
}

/*
 * Sizes memoised per (XCR0, XSS).  XCR0 is read back with XGETBV (cheap,
 * unlike CPUID) rather than trusted from the XSETBV handler: the guest's
 * XCR0 is the one loaded, and QEMU 7.2's SVM lets XSETBV through even when
 * intercepted.
 */
static void refresh_memo(struct vcpu_xstate *x)
{
	u64 xcr0 = xgetbv0();

	if (x->memo_valid && x->xcr0 == xcr0)
		return;
	x->xcr0 = xcr0;
	x->memo_standard = xstate_size_standard(&host_xstate, x->xcr0);
	x->memo_compacted = xstate_size_compacted(&host_xstate, x->xcr0 | x->xss);
	x->memo_valid = true;
}

/* A host CPUID.0xD answer less the IA32_XSS components guests do not get. */
static __attribute__((noinline, cold)) void withhold_uncached(u32 subleaf, struct cpuid_regs *r)
{
	if (subleaf == 1) {
		r->ecx = (u32)host_xstate.xss_supported;
		r->edx = host_xstate.xss_supported >> 32;
	} else if (subleaf < XSTATE_MAX_COMPONENTS && (host_xss_withheld & BIT(subleaf))) {
		*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	}
}

void xstate_guest_cpuid(struct vcpu *vcpu, u32 subleaf, struct cpuid_regs *r)
{
	const struct xstate_cache *c = &host_xstate;
	struct vcpu_xstate *x = &vcpu->xstate;

	*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	if (!c->valid)
		return;
	/* The A/B path: the guest's XCR0 is loaded, so the host answer fits,
	 * less the supervisor components guests do not get (one test where
	 * the host has none: the path is benchmarked). */
	if (unlikely(x->uncached)) {
		cpuid_raw(0xd, subleaf, r);
		if (unlikely(host_xss_withheld))
			withhold_uncached(subleaf, r);
		return;
	}
	refresh_memo(x);
	switch (subleaf) {
	case 0:
		r->eax = (u32)c->xcr0_supported;
		r->edx = c->xcr0_supported >> 32;
		r->ebx = x->memo_standard;
		r->ecx = c->max_size_all;
		return;
	case 1:
		r->eax = c->leaf1_eax;
		r->ebx = c->leaf1_eax & (XSTATE_LEAF1_XSAVEC | XSTATE_LEAF1_XSAVES)
			     ? x->memo_compacted
			     : 0;
		r->ecx = (u32)c->xss_supported;
		r->edx = c->xss_supported >> 32;
		return;
	default:
		if (subleaf < XSTATE_MAX_COMPONENTS &&
		    ((c->xcr0_supported | c->xss_supported) & BIT(subleaf))) {
			const struct xstate_component *comp = &c->comp[subleaf];

			r->eax = comp->size;
			r->ebx = comp->offset;
			r->ecx = (comp->supervisor ? 1 : 0) | (comp->align64 ? 2 : 0);
		}
	}
}

bool xstate_xsetbv(struct vcpu *vcpu, u32 index, u64 value)
{
	/* Only XCR0 exists (SDM Vol 2B XSETBV); the cache says what is valid */
	if (index != 0 || xstate_xcr0_check(&host_xstate, value, NULL))
		return false;
	vcpu->xstate.xcr0 = value;
	vcpu->xstate.memo_valid = false;
	xsetbv(0, value);
	return true;
}

bool xstate_xss_read(struct vcpu *vcpu, u64 *val)
{
	if (!(host_xstate.leaf1_eax & XSTATE_LEAF1_XSAVES))
		return false;
	*val = vcpu->xstate.xss;
	return true;
}

bool xstate_xss_write(struct vcpu *vcpu, u64 val)
{
	if (xstate_xss_check(&host_xstate, val, NULL))
		return false;
	vcpu->xstate.xss = val;
	vcpu->xstate.memo_valid = false;
	wrmsr(MSR_IA32_XSS, val);
	return true;
}
