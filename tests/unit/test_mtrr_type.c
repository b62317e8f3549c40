// SPDX-License-Identifier: MIT
/*
 * The memory type of a range from synthetic MTRR sets modelled on real
 * firmware's (SDM Vol 3 §12.11), and the host identity map built from
 * them: no leaf may span two types (SDM Vol 3 §12.11.9).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/mtrr_type.h"
#include "arch/pagetable.h"

#define PHYS_BITS 46
#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define E_FE 0xc00ull /* MTRRdefType: MTRRs on, fixed ranges on */
#define VALID BIT(11)
#define FIXED(t) (0x0101010101010101ull * (t))

enum {
	UC = MTRR_TYPE_UC,
	WC = MTRR_TYPE_WC,
	WT = MTRR_TYPE_WT,
	WP = MTRR_TYPE_WP,
	WB = MTRR_TYPE_WB
};

/* A variable range of a power-of-two size, aligned */
static struct mtrr_var var(u64 base, u64 size, unsigned type)
{
	u64 frames = ((1ull << PHYS_BITS) - 1) & ~0xfffull;

	return (struct mtrr_var){ base | type, (~(size - 1) & frames) | VALID };
}

/*
 * A PC's firmware: default UC; the first MiB in fixed ranges (RAM WB, the
 * VGA window UC, option ROMs and the BIOS WP); 0-2 GiB WB less an 8 MiB
 * UC SMRAM (TSEG) at its top; 2-4 GiB the UC MMIO hole (the default) with
 * a 256 MiB WC framebuffer in it; RAM WB from 4 to 9 GiB.
 */
static void pc_firmware(struct mtrr_set *s)
{
	unsigned i;

	memset(s, 0, sizeof(*s));
	s->def_type = E_FE | UC;
	s->has_fixed = true;
	s->fixed[0] = FIXED(WB); /* 00000-7FFFF */
	s->fixed[1] = FIXED(WB); /* 80000-9FFFF */
	s->fixed[2] = FIXED(UC); /* A0000-BFFFF */
	s->fixed[3] = FIXED(WP); /* C0000-C7FFF: the video BIOS */
	for (i = 4; i < 9; i++)
		s->fixed[i] = FIXED(UC);
	s->fixed[9] = FIXED(WP); /* F0000-FFFFF: the BIOS */
	s->fixed[10] = FIXED(WP);
	s->var[0] = var(0, 2 * GIB, WB);
	s->var[1] = var(0x7f800000, 8 * MIB, UC);
	s->var[2] = var(0xc0000000, 256 * MIB, WC);
	s->var[3] = var(4 * GIB, 4 * GIB, WB);
	s->var[4] = var(8 * GIB, GIB, WB);
	s->nr_var = 10; /* VCNT 10, five unused (mask not valid) */
}

static void types_of_ranges(void **state)
{
	struct mtrr_set s;

	pc_firmware(&s);
	/* the fixed ranges, 4 KiB apart */
	assert_int_equal(mtrr_range_type(&s, 0, 4096), WB);
	assert_int_equal(mtrr_range_type(&s, 0x80000, 128 * 1024), WB);
	assert_int_equal(mtrr_range_type(&s, 0xa0000, 128 * 1024), UC);
	assert_int_equal(mtrr_range_type(&s, 0xc0000, 32 * 1024), WP);
	assert_int_equal(mtrr_range_type(&s, 0xc8000, 4096), UC);
	assert_int_equal(mtrr_range_type(&s, 0xf8000, 4096), WP);
	assert_int_equal(mtrr_range_type(&s, 0x80000, 512 * 1024), -1);
	/* a range across the 1 MiB line counts as mixed */
	assert_int_equal(mtrr_range_type(&s, 0, 2 * MIB), -1);
	assert_int_equal(mtrr_range_type(&s, 0x100000, MIB), WB);
	assert_int_equal(mtrr_range_type(&s, 2 * MIB, 2 * MIB), WB);
	/* TSEG: UC over WB wins; the GiB around it is mixed */
	assert_int_equal(mtrr_range_type(&s, 0x7f800000, 8 * MIB), UC);
	assert_int_equal(mtrr_range_type(&s, 0x7f800000, 2 * MIB), UC);
	assert_int_equal(mtrr_range_type(&s, 0x7f600000, 2 * MIB), WB);
	assert_int_equal(mtrr_range_type(&s, 0x7f000000, 16 * MIB), -1);
	assert_int_equal(mtrr_range_type(&s, GIB, GIB), -1);
	assert_int_equal(mtrr_range_type(&s, GIB, GIB / 2), WB);
	/* the hole: the default, and the framebuffer in it */
	assert_int_equal(mtrr_range_type(&s, 2 * GIB, GIB), UC);
	assert_int_equal(mtrr_range_type(&s, 3 * GIB, GIB), -1);
	assert_int_equal(mtrr_range_type(&s, 3 * GIB, 256 * MIB), WC);
	assert_int_equal(mtrr_range_type(&s, 3 * GIB + 256 * MIB, 256 * MIB), UC);
	/* RAM above 4 GiB, and the default above it */
	assert_int_equal(mtrr_range_type(&s, 4 * GIB, GIB), WB);
	assert_int_equal(mtrr_range_type(&s, 8 * GIB, GIB), WB);
	assert_int_equal(mtrr_range_type(&s, 8 * GIB, 2 * GIB), -1);
	assert_int_equal(mtrr_range_type(&s, 9 * GIB, GIB), UC);
	assert_int_equal(mtrr_range_type(&s, 1ull << 45, GIB), UC);
}

static void precedence_and_switches(void **state)
{
	struct mtrr_set s;

	pc_firmware(&s);
	/* SDM Vol 3 §12.11.4.1: WT over WB; UC over anything; the rest undefined (UC) */
	s.var[5] = var(4 * GIB, GIB, WT);
	assert_int_equal(mtrr_range_type(&s, 4 * GIB, GIB), WT);
	s.var[5] = var(5 * GIB, GIB, UC);
	assert_int_equal(mtrr_range_type(&s, 5 * GIB, GIB), UC);
	s.var[5] = var(3 * GIB, 128 * MIB, WP);
	assert_int_equal(mtrr_range_type(&s, 3 * GIB, 128 * MIB), UC);
	/* a range that is not valid (PHYSMASK bit 11 clear) does not count */
	s.var[5].mask &= ~VALID;
	assert_int_equal(mtrr_range_type(&s, 3 * GIB, 128 * MIB), WC);
	/* fixed ranges off (FE clear): the variable ranges cover the first MiB */
	s.def_type = 0x800 | UC;
	assert_int_equal(mtrr_range_type(&s, 0, GIB), WB);
	assert_int_equal(mtrr_range_type(&s, 0xa0000, 4096), WB);
	/* no fixed ranges (MTRRcap.FIX clear) though FE is set: the same */
	s.def_type = E_FE | UC;
	s.has_fixed = false;
	assert_int_equal(mtrr_range_type(&s, 0, GIB), WB);
	/* MTRRs off (E clear): all UC, one type everywhere */
	s.def_type = FIXED(0) | WB;
	assert_int_equal(mtrr_range_type(&s, 0, GIB), UC);
	assert_int_equal(mtrr_range_type(&s, GIB, GIB), UC);
}

/* A mask with a bit inside the range matches every other piece of it. */
static void non_contiguous_mask(void **state)
{
	struct mtrr_set s;

	memset(&s, 0, sizeof(s));
	s.def_type = 0x800 | UC;
	s.nr_var = 1;
	s.var[0] = var(0, 2 * GIB, WB);
	s.var[0].mask |= BIT(20); /* only where bit 20 is 0 */
	assert_int_equal(mtrr_range_type(&s, 0, 2 * MIB), -1);
	assert_int_equal(mtrr_range_type(&s, 2 * MIB, MIB), WB);
	assert_int_equal(mtrr_range_type(&s, 3 * MIB, MIB), UC);
	/* outside the range's upper bits: no match at all, whatever bit 20 */
	assert_int_equal(mtrr_range_type(&s, 2 * GIB, 2 * MIB), UC);
}

/* AMD: with Tom2ForceMemTypeWB, 4 GiB .. TOM2 is WB where no range matches. */
static void amd_tom2(void **state)
{
	struct mtrr_set s;

	memset(&s, 0, sizeof(s));
	s.def_type = E_FE | UC;
	s.nr_var = 2;
	s.var[0] = var(0, 2 * GIB, WB);
	s.var[1] = var(8 * GIB, GIB, UC);
	s.tom2_wb = 9 * GIB - 8 * MIB;
	assert_int_equal(mtrr_range_type(&s, 3 * GIB, GIB), UC);
	assert_int_equal(mtrr_range_type(&s, 4 * GIB, 4 * GIB), WB);
	assert_int_equal(mtrr_range_type(&s, 0, 8 * GIB), -1);
	assert_int_equal(mtrr_range_type(&s, 8 * GIB, GIB), UC); /* a range wins */
	s.var[1].mask &= ~VALID;
	assert_int_equal(mtrr_range_type(&s, 8 * GIB, GIB), -1);
	assert_int_equal(mtrr_range_type(&s, 9 * GIB - 10 * MIB, 2 * MIB), WB);
	assert_int_equal(mtrr_range_type(&s, 9 * GIB - 8 * MIB, 2 * MIB), UC);
}

/* ---- the identity map ---- */

struct tctx {
	struct pt_ctx pt;
	void **pages;
	size_t n, cap;
};

static void *talloc(struct pt_ctx *pt, u64 *phys)
{
	struct tctx *t = (struct tctx *)pt;
	void *p = aligned_alloc(4096, 4096);

	assert_non_null(p);
	memset(p, 0, 4096);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->pages = realloc(t->pages, t->cap * sizeof(*t->pages));
		assert_non_null(t->pages);
	}
	t->pages[t->n++] = p;
	*phys = (u64)(uintptr_t)p;
	return p;
}

static void *tvirt(struct pt_ctx *pt, u64 phys)
{
	return (void *)(uintptr_t)phys;
}

static void tfree(struct tctx *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->pages[i]);
	free(t->pages);
}

static bool one_type(const void *s, u64 base, u64 size)
{
	return mtrr_range_type(s, base, size) >= 0;
}

/* Every leaf of the tree at table (level shift) has one memory type. */
static unsigned long mixed_leaves(const struct mtrr_set *s, const u64 *table, unsigned shift)
{
	unsigned long bad = 0;

	for (unsigned i = 0; i < 512; i++) {
		u64 e = table[i];

		if (!(e & PTE_P))
			continue;
		if (shift == 12 || (e & PTE_PS)) {
			u64 base = e & PTE_ADDR_MASK & ~(BIT(shift) - 1);

			bad += mtrr_range_type(s, base, BIT(shift)) < 0;
		} else {
			bad +=
			    mixed_leaves(s, (const u64 *)(uintptr_t)(e & PTE_ADDR_MASK), shift - 9);
		}
	}
	return bad;
}

static unsigned leaf_shift(u64 root, struct tctx *t, u64 pa)
{
	u64 out, flags;
	unsigned shift;

	assert_int_equal(pt_translate(&t->pt, root, pa, &out, &flags, &shift), 0);
	assert_int_equal(out, pa);
	return shift;
}

static void identity_map_split(void **state)
{
	struct tctx t = { { talloc, tvirt, PTE_P | PTE_RW }, NULL, 0, 0 };
	struct mtrr_set s;
	u64 root, leaves[3] = { 0, 0, 0 };
	long n;

	pc_firmware(&s);
	talloc(&t.pt, &root);
	n = pt_build_identity_split(&t.pt, root, PHYS_BITS, true, PTE_P | PTE_RW, one_type, &s,
				    leaves);
	assert_true(n > 0);
	assert_int_equal(mixed_leaves(&s, (u64 *)(uintptr_t)root, 39), 0);
	/* the first MiB in 4 KiB pages, the rest of its 2 MiB too */
	assert_int_equal(leaf_shift(root, &t, 0xa0000), 12);
	assert_int_equal(leaf_shift(root, &t, 0x1ff000), 12);
	assert_int_equal(leaf_shift(root, &t, 2 * MIB), 21);
	/* TSEG's GiB and the framebuffer's in 2 MiB pages, the others whole */
	assert_int_equal(leaf_shift(root, &t, 0x7f800000), 21);
	assert_int_equal(leaf_shift(root, &t, GIB), 21);
	assert_int_equal(leaf_shift(root, &t, 2 * GIB), 30);
	assert_int_equal(leaf_shift(root, &t, 3 * GIB + 0x123000), 21);
	assert_int_equal(leaf_shift(root, &t, 4 * GIB), 30);
	assert_int_equal(leaf_shift(root, &t, (1ull << 46) - 4096), 30);
	/* three GiBs split: 0-1 GiB into 511 2 MiB leaves and 512 4 KiB ones,
	 * 1-2 GiB and 3-4 GiB into 512 2 MiB leaves each */
	assert_int_equal(leaves[0], 512);
	assert_int_equal(leaves[1], 511 + 2 * 512);
	assert_int_equal(leaves[2], (1ull << (PHYS_BITS - 30)) - 3);
	/* tables: the root's PML4 entries (128 PDPTs), 3 PDs, 1 PT */
	assert_int_equal(n, 128 + 3 + 1);
	assert_int_equal(n + 1, (long)t.n);
	tfree(&t);
}

/* Without 1 GiB pages (and 39 bits, as the host maps then): 2 MiB leaves. */
static void identity_map_split_2m(void **state)
{
	struct tctx t = { { talloc, tvirt, PTE_P | PTE_RW }, NULL, 0, 0 };
	struct mtrr_set s;
	u64 root, leaves[3] = { 0, 0, 0 };
	long n;

	pc_firmware(&s);
	talloc(&t.pt, &root);
	n = pt_build_identity_split(&t.pt, root, 39, false, PTE_P | PTE_RW, one_type, &s, leaves);
	assert_true(n > 0);
	assert_int_equal(mixed_leaves(&s, (u64 *)(uintptr_t)root, 39), 0);
	assert_int_equal(leaf_shift(root, &t, 0xc0000), 12);
	assert_int_equal(leaf_shift(root, &t, 0x7f800000), 21);
	assert_int_equal(leaves[0], 512);
	assert_int_equal(leaves[2], 0);
	assert_int_equal(leaves[1], (1ull << (39 - 21)) - 1);
	tfree(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types_of_ranges),     cmocka_unit_test(precedence_and_switches),
		cmocka_unit_test(non_contiguous_mask), cmocka_unit_test(amd_tom2),
		cmocka_unit_test(identity_map_split),  cmocka_unit_test(identity_map_split_2m),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
