// SPDX-License-Identifier: MIT
/*
 * 4-level page-table mapper; see pagetable.h for the three users.
 * Entry formats: SDM Vol 3 §4.5 tables 4-15..4-20, APM Vol 2 §5.3.
 */
#include "pagetable.h"

#define PT_ENTRIES 512
#define PT_LEVEL_BITS 9
#define PT_TOP_SHIFT 39 /* PML4 index: va[47:39] */
#define PT_PA_LIMIT BIT(52)

static bool canonical(u64 va)
{
	return (u64)((s64)(va << (64 - PT_VA_BITS)) >> (64 - PT_VA_BITS)) == va;
}

static bool leaf_shift_ok(unsigned shift)
{
	return shift == 12 || shift == 21 || shift == 30;
}

static u64 *table_at(struct pt_ctx *ctx, u64 phys)
{
	return ctx->phys_to_virt(ctx, phys & PTE_ADDR_MASK);
}

static unsigned pt_index(u64 va, unsigned shift)
{
	return (va >> shift) & (PT_ENTRIES - 1);
}

/* Install one leaf, creating the tables above it. */
static int map_one(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 leaf, unsigned shift,
		   long *allocated)
{
	u64 *table = table_at(ctx, root_phys);
	u64 *e;

	for (unsigned s = PT_TOP_SHIFT; s > shift; s -= PT_LEVEL_BITS) {
		e = &table[pt_index(va, s)];
		if (!(*e & PTE_P)) {
			u64 phys;

			if (!ctx->alloc_page(ctx, &phys))
				return PT_ERR_NOMEM;
			(*allocated)++;
			*e = (phys & PTE_ADDR_MASK) | ctx->table_flags;
		} else if (*e & PTE_PS) {
			/* A larger leaf covers va (PS in a PML4E is reserved). */
			return PT_ERR_CONFLICT;
		}
		table = table_at(ctx, *e);
	}
	e = &table[pt_index(va, shift)];
	/* A table here holds smaller leaves; freeing it is not our call. */
	if (shift > PAGE_SHIFT && (*e & PTE_P) && !(*e & PTE_PS))
		return PT_ERR_CONFLICT;
	*e = leaf;
	return 0;
}

static int map_range(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 pa, u64 size, u64 leaf_flags,
		     unsigned page_shift, long *allocated)
{
	u64 leaf_size, last, addr_bits;
	int ret;

	if (!leaf_shift_ok(page_shift))
		return PT_ERR_INVAL;
	leaf_size = BIT(page_shift);
	if ((va | pa | size) & (leaf_size - 1))
		return PT_ERR_INVAL;
	if (!(ctx->table_flags & PTE_P) || (ctx->table_flags & PTE_ADDR_MASK))
		return PT_ERR_INVAL;
	/* Bit 12 is PAT in a large leaf, an address bit in a 4 KiB one. */
	addr_bits = PTE_ADDR_MASK & ~(page_shift > PAGE_SHIFT ? PTE_PAT_LARGE : 0);
	if (!(leaf_flags & PTE_P) || (leaf_flags & addr_bits))
		return PT_ERR_INVAL;
	if (!size)
		return 0;
	if (size - 1 > ~va || pa >= PT_PA_LIMIT || size > PT_PA_LIMIT - pa)
		return PT_ERR_INVAL;
	/* Both ends canonical and on the same side means no hole in between. */
	last = va + size - 1;
	if (!canonical(va) || !canonical(last) || ((va ^ last) & BIT(PT_VA_BITS - 1)))
		return PT_ERR_INVAL;

	if (page_shift > PAGE_SHIFT)
		leaf_flags |= PTE_PS;
	for (u64 off = 0; off < size; off += leaf_size) {
		ret = map_one(ctx, root_phys, va + off, (pa + off) | leaf_flags, page_shift,
			      allocated);
		if (ret)
			return ret;
	}
	return 0;
}

int pt_map_range(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 pa, u64 size, u64 leaf_flags,
		 unsigned page_shift)
{
	long allocated = 0;

	return map_range(ctx, root_phys, va, pa, size, leaf_flags, page_shift, &allocated);
}

int pt_translate(struct pt_ctx *ctx, u64 root_phys, u64 va, u64 *pa, u64 *leaf_flags,
		 unsigned *page_shift)
{
	u64 *table = table_at(ctx, root_phys);
	u64 e, offset_mask;
	unsigned s;

	if (!canonical(va))
		return -1;
	for (s = PT_TOP_SHIFT;; s -= PT_LEVEL_BITS) {
		/* phys_to_virt may refuse: a guest's tables can point anywhere. */
		if (!table)
			return -1;
		e = table[pt_index(va, s)];
		if (!(e & PTE_P))
			return -1;
		if (s == PAGE_SHIFT)
			break;
		if (e & PTE_PS) {
			/* 1 GiB and 2 MiB leaves only; PS is reserved in a PML4E. */
			if (s == PT_TOP_SHIFT)
				return -1;
			break;
		}
		table = table_at(ctx, e);
	}
	offset_mask = BIT(s) - 1;
	*pa = (e & PTE_ADDR_MASK & ~offset_mask) | (va & offset_mask);
	if (leaf_flags)
		*leaf_flags = e & ~(PTE_ADDR_MASK & ~offset_mask);
	if (page_shift)
		*page_shift = s;
	return 0;
}

/* The identity map's end: va == pa must stay canonical, only the lower
 * half (see the header); 0 for a bad width. */
static u64 identity_end(unsigned phys_bits, unsigned shift)
{
	/* CPUID 0x80000008 EAX[7:0]; SDM Vol 3 §4.1.4: MAXPHYADDR <= 52. */
	if (!phys_bits || phys_bits > 52)
		return 0;
	if (phys_bits > PT_VA_BITS - 1)
		phys_bits = PT_VA_BITS - 1;
	return ALIGN_UP(BIT(phys_bits), BIT(shift));
}

long pt_build_identity(struct pt_ctx *ctx, u64 root_phys, unsigned phys_bits, bool gb_pages,
		       u64 leaf_flags)
{
	unsigned shift = gb_pages ? 30 : 21;
	u64 end = identity_end(phys_bits, shift);
	long allocated = 0;
	int ret;

	if (!end)
		return PT_ERR_INVAL;
	ret = map_range(ctx, root_phys, 0, 0, end, leaf_flags, shift, &allocated);
	return ret ? ret : allocated;
}

struct split_map {
	struct pt_ctx *ctx;
	u64 root_phys, leaf_flags;
	bool (*uniform)(const void *arg, u64 base, u64 size);
	const void *arg;
	u64 *leaves;
	long allocated;
};

/* One leaf of 1 << shift at base, or its 512 smaller pieces. */
static int map_split(struct split_map *m, u64 base, unsigned shift)
{
	u64 i;
	int ret;

	if (shift == PAGE_SHIFT || m->uniform(m->arg, base, BIT(shift))) {
		ret = map_range(m->ctx, m->root_phys, base, base, BIT(shift), m->leaf_flags, shift,
				&m->allocated);
		if (!ret && m->leaves)
			m->leaves[(shift - PAGE_SHIFT) / PT_LEVEL_BITS]++;
		return ret;
	}
	for (i = 0; i < PT_ENTRIES; i++) {
		ret = map_split(m, base + (i << (shift - PT_LEVEL_BITS)), shift - PT_LEVEL_BITS);
		if (ret)
			return ret;
	}
	return 0;
}

long pt_build_identity_split(struct pt_ctx *ctx, u64 root_phys, unsigned phys_bits, bool gb_pages,
			     u64 leaf_flags, bool (*uniform)(const void *arg, u64 base, u64 size),
			     const void *arg, u64 leaves[3])
{
	struct split_map m = { ctx, root_phys, leaf_flags, uniform, arg, leaves, 0 };
	unsigned shift = gb_pages ? 30 : 21;
	u64 end = identity_end(phys_bits, shift), base;
	int ret;

	if (!end)
		return PT_ERR_INVAL;
	for (base = 0; base < end; base += BIT(shift)) {
		ret = map_split(&m, base, shift);
		if (ret)
			return ret;
	}
	return m.allocated;
}
