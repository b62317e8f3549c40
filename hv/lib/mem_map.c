// SPDX-License-Identifier: MIT
#include "mem_map.h"

/*
 * UEFI 2.10 §7.2.3 EFI_MEMORY_TYPE, by number.  Usable after
 * ExitBootServices: conventional and boot services code/data.  Runtime
 * services code/data stay the firmware's for good (mhv calls runtime
 * services later), as do reserved, MMIO, unusable and persistent memory.
 */
static const u8 efi_kind[] = {
	[0] = MEM_RESERVED,  /* EfiReservedMemoryType */
	[1] = MEM_IN_USE,    /* EfiLoaderCode */
	[2] = MEM_IN_USE,    /* EfiLoaderData */
	[3] = MEM_USABLE,    /* EfiBootServicesCode */
	[4] = MEM_USABLE,    /* EfiBootServicesData */
	[5] = MEM_RESERVED,  /* EfiRuntimeServicesCode */
	[6] = MEM_RESERVED,  /* EfiRuntimeServicesData */
	[7] = MEM_USABLE,    /* EfiConventionalMemory */
	[8] = MEM_RESERVED,  /* EfiUnusableMemory */
	[9] = MEM_ACPI,	     /* EfiACPIReclaimMemory */
	[10] = MEM_ACPI,     /* EfiACPIMemoryNVS */
	[11] = MEM_RESERVED, /* EfiMemoryMappedIO */
	[12] = MEM_RESERVED, /* EfiMemoryMappedIOPortSpace */
	[13] = MEM_RESERVED, /* EfiPalCode */
	[14] = MEM_RESERVED, /* EfiPersistentMemory */
	[15] = MEM_RESERVED, /* EfiUnacceptedMemoryType */
};

u32 mem_kind_of_efi(u32 efi_type)
{
	/* OEM and OS loader types (0x70000000 and up) are not ours either */
	return efi_type < sizeof(efi_kind) ? efi_kind[efi_type] : MEM_RESERVED;
}

void mem_map_reset(struct boot_info *bi)
{
	bi->nr_mem_ranges = 0;
	bi->mem_dropped = 0;
	bi->mem_dropped_usable_pages = 0;
}

void mem_map_add(struct boot_info *bi, u64 base, u64 pages, u32 efi_type)
{
	u32 kind = mem_kind_of_efi(efi_type);
	struct mem_range *last = bi->nr_mem_ranges ? &bi->mem[bi->nr_mem_ranges - 1] : NULL;

	if (!pages)
		return;
	if (last && last->kind == kind && last->base + last->pages * PAGE_SIZE == base &&
	    (kind == MEM_USABLE || last->efi_type == efi_type)) {
		last->pages += pages;
		return;
	}
	if (bi->nr_mem_ranges == BOOT_MAX_MEM_RANGES) {
		bi->mem_dropped++;
		if (kind == MEM_USABLE)
			bi->mem_dropped_usable_pages += pages;
		return;
	}
	bi->mem[bi->nr_mem_ranges++] =
	    (struct mem_range){ .base = base, .pages = pages, .kind = kind, .efi_type = efi_type };
}

bool mem_map_overlaps_ram(const struct boot_info *bi, u64 base, u64 len)
{
	const struct mem_range *r;
	u32 i;

	for (i = 0; i < bi->nr_mem_ranges; i++) {
		r = &bi->mem[i];
		if (r->kind != MEM_RESERVED && base < r->base + r->pages * PAGE_SIZE &&
		    r->base < base + len)
			return true;
	}
	return false;
}
