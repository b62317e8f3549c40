/* SPDX-License-Identifier: MIT */
/*
 * Linux bzImages, started through the x86 boot protocol's 64-bit entry
 * (the kernel's Documentation/arch/x86/boot.rst, protocol 2.12 and later):
 * the setup header checked, the protected-mode kernel loaded at its
 * preferred address, the initrd at the top of RAM, and the "zero page"
 * (struct boot_params) with an E820 map, the command line and the initrd.
 * Pure: guest RAM is a host buffer; every field from the file is checked
 * before it is used.
 */
#ifndef MHV_LINUX_BOOT_H
#define MHV_LINUX_BOOT_H

#include "lib/types.h"

/*
 * Where mhv puts what the kernel reads at entry, below 640 KiB.  The page
 * tables and GDT sit where mhv's own guests have theirs (guest_abi.h), so
 * that the backends' 64-bit entry state (CR3, GDTR) is the same.
 */
#define LINUX_BOOT_PARAMS 0x10000u /* the zero page, RSI at entry */
#define LINUX_CMDLINE 0x11000u	   /* up to the kernel's cmdline_size */
#define LINUX_CMDLINE_MAX 0x1000u

struct linux_kernel {
	u64 load;    /* guest-physical address of the protected-mode kernel */
	u64 entry;   /* load + 0x200: the 64-bit entry point */
	u64 end;     /* load + init_size: what the kernel may use in place */
	u64 initrd;  /* 0 when none */
	u32 version; /* boot protocol, 0x020f for 2.15 */
	u32 init_size;
};

/* The file has a bzImage setup header (boot flag 0xAA55, "HdrS"): a
 * Linux kernel for this loader, not a multiboot one. */
bool linux_is_bzimage(const u8 *file, size_t size);

/*
 * Load the kernel in file[0..size) and the initrd (NULL when none) into
 * ram (guest-physical 0..ram_size), with the page tables, GDT and boot
 * parameters of the 64-bit entry.  With ram NULL only check.  0, or -1
 * with a one-line reason (not a bzImage, protocol older than 2.12, no
 * 64-bit entry, truncated, too large for the guest's RAM, command line
 * too long).
 */
int linux_load(const u8 *file, size_t size, const u8 *initrd, u64 initrd_size, const char *cmdline,
	       u8 *ram, u64 ram_size, struct linux_kernel *k, char *why, size_t why_size);

/* The zero page's acpi_rsdp_addr (protocol 2.14; older kernels scan for
 * the RSDP in the BIOS area, where it is as well). */
void linux_set_rsdp(u8 *ram, u64 rsdp);

#endif
