// SPDX-License-Identifier: MIT
/* The guest's MTRRs (see mtrr.h). */
#include "mtrr.h"
#include "arch/msr.h"
#include "lib/nospec.h"

/* Memory types (SDM Vol 3 §12.11.1 Table 12-8) */
#define MT_UC 0
#define MT_WC 1
#define MT_WT 4
#define MT_WP 5
#define MT_WB 6
#define MT_VALID (BIT(MT_UC) | BIT(MT_WC) | BIT(MT_WT) | BIT(MT_WP) | BIT(MT_WB))
#define MTRRCAP_WC BIT(10)
#define DEF_TYPE_FE BIT(10)
#define DEF_TYPE_E BIT(11)
#define DEF_TYPE_WRITABLE (0xffull | DEF_TYPE_FE | DEF_TYPE_E)
#define PHYSMASK_VALID BIT(11)
#define PHYS_TYPE_MASK 0xffull
#define PAGE_FRAME_LOW 0xfffull
#define FIXED_ALL(t) (0x0101010101010101ull * (t))
#define DEVICE_WINDOW 0xc0000000ull /* 3-4 GiB: the I/O APIC, local APIC, test devices */
#define DEVICE_WINDOW_SIZE 0x40000000ull

/* Fixed-range registers in order: 64K_00000, 16K_80000, 16K_A0000, 4K C0000.. F8000 */
static int fixed_index(u32 msr)
{
	if (msr == MSR_MTRR_FIX64K_00000)
		return 0;
	if (msr == MSR_MTRR_FIX16K_80000 || msr == MSR_MTRR_FIX16K_A0000)
		return 1 + (int)(msr - MSR_MTRR_FIX16K_80000);
	if (msr - MSR_MTRR_FIX4K(0) < 8)
		return 3 + (int)(msr - MSR_MTRR_FIX4K(0));
	return -1;
}

static bool valid_type(u64 t)
{
	return t < 8 && (MT_VALID & BIT(t));
}

/* Bits MAXPHYADDR-1:12, the page frame of a base or mask */
static u64 frame_bits(unsigned maxphyaddr)
{
	return ((1ull << maxphyaddr) - 1) & ~PAGE_FRAME_LOW;
}

void mtrr_reset(struct vcpu_mtrr *m, unsigned maxphyaddr)
{
	unsigned i;

	__builtin_memset(m, 0, sizeof(*m));
	m->def_type = DEF_TYPE_E | DEF_TYPE_FE | MT_WB;
	for (i = 0; i < MTRR_FIXED; i++)
		m->fixed[i] = FIXED_ALL(MT_WB);
	m->fixed[2] = FIXED_ALL(MT_UC); /* A0000-BFFFF: the VGA window */
	m->var[0] = DEVICE_WINDOW | MT_UC;
	m->var[1] = (~(DEVICE_WINDOW_SIZE - 1) & frame_bits(maxphyaddr)) | PHYSMASK_VALID;
}

bool mtrr_read(const struct vcpu_mtrr *m, u32 msr, u64 *val)
{
	int f = fixed_index(msr);

	if (msr == MSR_MTRRCAP)
		*val = MTRR_VCNT | MTRRCAP_FIX | MTRRCAP_WC;
	else if (msr == MSR_MTRR_DEF_TYPE)
		*val = m->def_type;
	else if (f >= 0)
		*val = m->fixed[array_index_nospec((u32)f, MTRR_FIXED)];
	else if (msr - MSR_MTRR_PHYSBASE(0) < 2 * MTRR_VCNT)
		*val = m->var[array_index_nospec(msr - MSR_MTRR_PHYSBASE(0), 2 * MTRR_VCNT)];
	else
		return false;
	return true;
}

/* Reserved bits and invalid types #GP (SDM Vol 3 §12.11.2, §12.11.2.3). */
bool mtrr_write(struct vcpu_mtrr *m, u32 msr, u64 val, unsigned maxphyaddr)
{
	int f = fixed_index(msr);
	unsigned i;

	if (msr == MSR_MTRR_DEF_TYPE) {
		if ((val & ~DEF_TYPE_WRITABLE) || !valid_type(val & PHYS_TYPE_MASK))
			return false;
		m->def_type = val;
		return true;
	}
	if (f >= 0) {
		for (i = 0; i < 64; i += 8)
			if (!valid_type((val >> i) & 0xff))
				return false;
		m->fixed[array_index_nospec((u32)f, MTRR_FIXED)] = val;
		return true;
	}
	if (msr - MSR_MTRR_PHYSBASE(0) >= 2 * MTRR_VCNT)
		return false; /* MTRRcap is read-only; not an MTRR */
	i = array_index_nospec(msr - MSR_MTRR_PHYSBASE(0), 2 * MTRR_VCNT);
	if (i % 2 == 0 ? (val & ~(frame_bits(maxphyaddr) | PHYS_TYPE_MASK)) ||
			     !valid_type(val & PHYS_TYPE_MASK)
		       : (val & ~(frame_bits(maxphyaddr) | PHYSMASK_VALID)))
		return false;
	m->var[i] = val;
	return true;
}
