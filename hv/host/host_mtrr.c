// SPDX-License-Identifier: MIT
/* The host's MTRRs, read once for the identity map (see host_mtrr.h). */
#include "host_mtrr.h"
#include "cpu_features.h"
#include "arch/mtrr_type.h"
#include "arch/msr.h"
#include "arch/x86.h"

static const u32 fixed_msrs[MTRR_SET_FIXED] = {
	MSR_MTRR_FIX64K_00000, MSR_MTRR_FIX16K_80000, MSR_MTRR_FIX16K_A0000, MSR_MTRR_FIX4K(0),
	MSR_MTRR_FIX4K(1),     MSR_MTRR_FIX4K(2),     MSR_MTRR_FIX4K(3),     MSR_MTRR_FIX4K(4),
	MSR_MTRR_FIX4K(5),     MSR_MTRR_FIX4K(6),     MSR_MTRR_FIX4K(7),
};

/* AMD: [4 GiB, TOM2) write-back by default (APM Vol 2 §7.9.1). */
static u64 read_tom2_wb(void)
{
	u64 syscfg, tom2;
	const u64 on = SYSCFG_MTRR_TOM2_EN | SYSCFG_TOM2_FORCE_WB;

	if (host_cpu.vendor != VENDOR_AMD || rdmsr_safe(MSR_AMD_SYSCFG, &syscfg) ||
	    (syscfg & on) != on || rdmsr_safe(MSR_AMD_TOM2, &tom2))
		return 0;
	return tom2 & ~0x7fffffull; /* bits 51:23 (8 MiB granularity) */
}

bool host_mtrr_read(struct mtrr_set *s)
{
	struct cpuid_regs r;
	u64 cap;
	unsigned i;
	bool ok = true;

	__builtin_memset(s, 0, sizeof(*s));
	cpuid_raw(1, 0, &r);
	if (!(r.edx & CPUID1_EDX_MTRR) || rdmsr_safe(MSR_MTRRCAP, &cap) ||
	    rdmsr_safe(MSR_MTRR_DEF_TYPE, &s->def_type))
		return false;
	s->has_fixed = cap & MTRRCAP_FIX;
	for (i = 0; i < MTRR_SET_FIXED && s->has_fixed; i++)
		ok &= !rdmsr_safe(fixed_msrs[i], &s->fixed[i]);
	s->nr_var = cap & MTRRCAP_VCNT;
	if (s->nr_var > MTRR_SET_VAR_MAX)
		s->nr_var = MTRR_SET_VAR_MAX;
	for (i = 0; i < s->nr_var; i++) {
		ok &= !rdmsr_safe(MSR_MTRR_PHYSBASE(i), &s->var[i].base);
		ok &= !rdmsr_safe(MSR_MTRR_PHYSMASK(i), &s->var[i].mask);
	}
	s->tom2_wb = read_tom2_wb();
	return ok;
}
