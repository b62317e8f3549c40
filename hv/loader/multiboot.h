/* SPDX-License-Identifier: MIT */
/*
 * Multiboot (version 1) kernels, as kvm-unit-tests' x86 binaries are:
 * the header found and checked, the ELF32 program headers (or the header's
 * a.out-kludge addresses) loaded into guest RAM, and the boot information
 * the kernel reads at EBX (Multiboot Specification 0.6.96, §3.1, §3.3).
 * Everything here is pure: guest RAM is a host buffer, and every length
 * and address from the file is checked before it is used.
 */
#ifndef MHV_MULTIBOOT_H
#define MHV_MULTIBOOT_H

#include "lib/types.h"

#define MULTIBOOT_MAGIC 0x1badb002u	 /* in the header (§3.1.1) */
#define MULTIBOOT_BOOT_MAGIC 0x2badb002u /* in EAX at entry (§3.2) */
#define MULTIBOOT_SEARCH 8192		 /* the header lies in the first 8 KiB */

/* Guest-physical layout below 1 MiB that mhv uses for a multiboot guest. */
#define MB_INFO_GPA 0x9000u    /* struct multiboot_info */
#define MB_MODS_GPA 0x9100u    /* struct multiboot_module[MB_MAX_MODULES] */
#define MB_STRINGS_GPA 0x9200u /* command line, module names */
#define MB_STRINGS_END 0xa000u
#define MB_LOW_LIMIT 0x100000u /* a kernel loads at or above 1 MiB */
#define MB_MAX_MODULES 4

struct mb_kernel {
	u32 entry;
	u32 load_start, load_end; /* guest-physical, load_end includes the BSS */
};

struct mb_module_file {
	const u8 *data;
	u32 size;
	const char *name; /* passed as the module's string */
};

/*
 * Load the kernel in file[0..size) into ram (guest-physical 0..ram_size);
 * with ram NULL only check that it would load.  0, or -1 with a one-line
 * reason in why (not multiboot, malformed, truncated, outside the guest's
 * memory).
 */
int multiboot_load(const u8 *file, size_t size, u8 *ram, u64 ram_size, struct mb_kernel *k,
		   char *why, size_t why_size);

/*
 * The boot information at MB_INFO_GPA: memory sizes, the command line and
 * the modules (copied above the kernel, page-aligned).  0, or -1 with why.
 */
int multiboot_write_info(u8 *ram, u64 ram_size, const struct mb_kernel *k, const char *cmdline,
			 const struct mb_module_file *mods, unsigned nr_mods, char *why,
			 size_t why_size);

#endif
