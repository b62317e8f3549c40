/* SPDX-License-Identifier: MIT */
/*
 * The firmware's memory map into struct boot_info: each UEFI descriptor
 * classified (enum mem_kind), neighbours of the same kind merged, and
 * what does not fit counted, never lost in silence.  boot/ feeds it the
 * descriptors of GetMemoryMap; host tests feed it synthetic maps.
 */
#ifndef MHV_MEM_MAP_H
#define MHV_MEM_MAP_H

#include "boot_info.h"

/* What mhv may do with memory of UEFI type @efi_type (enum mem_kind). */
u32 mem_kind_of_efi(u32 efi_type);
/* bi's map emptied: no ranges, nothing dropped. */
void mem_map_reset(struct boot_info *bi);
/*
 * One descriptor appended to bi->mem: merged into the last range when it
 * follows on with the same kind (and, unless usable, the same UEFI type);
 * counted in bi->mem_dropped (and its usable pages) when the table is
 * full.
 */
void mem_map_add(struct boot_info *bi, u64 base, u64 pages, u32 efi_type);
/* Whether any of [base, base + len) is RAM in bi's map (usable, mhv's own
 * or ACPI's: UEFI 2.10 §7.2), where no device's registers can be. */
bool mem_map_overlaps_ram(const struct boot_info *bi, u64 base, u64 len);

#endif
