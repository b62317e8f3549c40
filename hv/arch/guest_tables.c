// SPDX-License-Identifier: MIT
#include "guest_tables.h"
#include "pagetable.h"
#include "lib/guest_abi.h"

struct guest_alloc_ctx {
	struct pt_ctx pt;
	u8 *ram;
	u64 next, end;
};

static void *guest_alloc_table(struct pt_ctx *ctx, u64 *gpa)
{
	struct guest_alloc_ctx *g = (struct guest_alloc_ctx *)ctx;

	if (g->next >= g->end)
		return NULL;
	*gpa = g->next;
	g->next += PAGE_SIZE;
	return g->ram + *gpa;
}

static void *build_table_hva(struct pt_ctx *ctx, u64 gpa)
{
	return ((struct guest_alloc_ctx *)ctx)->ram + gpa;
}

int guest_tables_build(u8 *ram)
{
	struct guest_alloc_ctx ctx = {
		.pt = { .alloc_page = guest_alloc_table,
			.phys_to_virt = build_table_hva,
			.table_flags = PTE_P | PTE_RW },
		.ram = ram,
		.next = GUEST_PDPT,
		.end = GUEST_GDT,
	};
	/*
	 * Segment descriptors (SDM Vol 3 §3.4.5): null, 64-bit code, data,
	 * and a 16-byte available 64-bit TSS descriptor (§8.2.3), because VMX
	 * requires a usable TR (§27.3.1.2).
	 */
	const u64 gdt[] = {
		0,
		0x00af9a000000ffffull,
		0x00cf92000000ffffull,
		0x0000890000000067ull | ((GUEST_TSS & 0xffffff) << 16) |
		    ((GUEST_TSS >> 24 & 0xff) << 56),
		GUEST_TSS >> 32,
	};

	if (pt_map_range(&ctx.pt, GUEST_PML4, 0, 0, GUEST_IDENTITY_MAP, PTE_P | PTE_RW, 21))
		return -1;
	__builtin_memcpy(ram + GUEST_GDT, gdt, sizeof(gdt));
	return 0;
}
