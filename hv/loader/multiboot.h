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

/*
 * The guest's physical memory as a PC's firmware reports it (and as the
 * boot information's memory map says): RAM below 640 KiB, the legacy VGA
 * and BIOS area up to 1 MiB (mhv's ACPI tables live in its BIOS part,
 * reserved), RAM from 1 MiB to the end of the guest's RAM.  A kernel's
 * segments and modules must lie in RAM.
 */
#define MB_LOW_RAM_END 0xa0000u /* conventional memory: 640 KiB */
#define MB_BIOS_AREA 0xe0000u	/* reserved: the BIOS area, the ACPI tables */
#define MB_HIGH_RAM 0x100000u	/* extended memory from 1 MiB */

/*
 * The boot information: one page, at MB_INFO_GPA unless the kernel loads
 * there, then in the first free page after the kernel (Multiboot leaves
 * its place to the boot loader, §3.3).  Offsets inside that page:
 */
#define MB_INFO_GPA 0x9000u /* where it goes when free */
#define MB_INFO_SIZE 0x1000u
#define MB_MMAP_OFF 0x40u     /* struct multiboot_mmap_entry[MB_MMAP_MAX] */
#define MB_MODS_OFF 0x100u    /* struct multiboot_module[MB_MAX_MODULES] */
#define MB_STRINGS_OFF 0x200u /* command line, module names, to the page's end */
#define MB_MMAP_MAX 4
#define MB_MAX_MODULES 4

struct mb_kernel {
	u32 entry;
	u32 load_start, load_end; /* guest-physical, load_end includes the BSS */
	u32 info;		  /* where multiboot_write_info put the boot information */
};

/* [start, start + len) lies in the guest's RAM (below 640 KiB or from 1 MiB). */
static inline bool multiboot_in_ram(u64 start, u64 len, u64 ram_size)
{
	u64 end = start + len;

	if (len > ram_size || start > ram_size - len)
		return false;
	return end <= MB_LOW_RAM_END || start >= MB_HIGH_RAM;
}

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
 * The boot information (k->info says where): memory sizes and map, the
 * command line and the modules (copied after the kernel, page-aligned).
 * 0, or -1 with why.
 */
int multiboot_write_info(u8 *ram, u64 ram_size, struct mb_kernel *k, const char *cmdline,
			 const struct mb_module_file *mods, unsigned nr_mods, char *why,
			 size_t why_size);

#endif
