// SPDX-License-Identifier: MIT
#include "linux_boot.h"
#include "arch/pagetable.h"
#include "arch/x86.h"
#include "lib/fmt.h"
#include "lib/guest_abi.h"
#include "lib/unaligned.h"
#include "multiboot.h"

/* Offsets in the zero page (boot.rst "The zero page", zero-page.rst);
 * the setup header sits at 0x1f1 in both the image and the zero page. */
#define BP_ACPI_RSDP 0x070
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE 0x0c4
#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES 0x1e8
#define BP_E820_TABLE 0x2d0
#define BP_E820_MAX 128
#define HDR_SETUP_SECTS 0x1f1
#define HDR_SYSSIZE 0x1f4
#define HDR_BOOT_FLAG 0x1fe
#define HDR_JUMP 0x200
#define HDR_MAGIC 0x202
#define HDR_VERSION 0x206
#define HDR_TYPE_OF_LOADER 0x210
#define HDR_LOADFLAGS 0x211
#define HDR_RAMDISK_IMAGE 0x218
#define HDR_RAMDISK_SIZE 0x21c
#define HDR_CMD_LINE_PTR 0x228
#define HDR_INITRD_ADDR_MAX 0x22c
#define HDR_KERNEL_ALIGNMENT 0x230
#define HDR_XLOADFLAGS 0x236
#define HDR_CMDLINE_SIZE 0x238
#define HDR_PREF_ADDRESS 0x258
#define HDR_INIT_SIZE 0x260
#define HDR_END_2_12 0x264 /* the last field a 2.12 header has ends here */

#define BOOT_FLAG 0xaa55
#define HDRS_MAGIC 0x53726448 /* "HdrS" */
#define PROTOCOL_64BIT_ENTRY 0x020c
#define LOADED_HIGH BIT(0)	    /* loadflags: protected-mode code at 1 MiB or above */
#define XLF_KERNEL_64 BIT(0)	    /* xloadflags: the 64-bit entry at +0x200 */
#define TYPE_OF_LOADER_UNKNOWN 0xff /* no boot loader ID assigned */
#define ENTRY_64_OFFSET 0x200
#define E820_RAM 1
#define E820_RESERVED 2

struct e820_entry {
	u64 addr, size;
	u32 type;
} __attribute__((packed));

_Static_assert(sizeof(struct e820_entry) == 20, "boot_params e820 entry");
_Static_assert(LINUX_BOOT_PARAMS + PAGE_SIZE <= LINUX_CMDLINE, "zero page before command line");
_Static_assert(GUEST_GDT + GUEST_GDT_LIMIT < GUEST_TSS, "GDT before the TSS");

bool linux_is_bzimage(const u8 *file, size_t size)
{
	return size >= HDR_MAGIC + 4 && get_le16(file + HDR_BOOT_FLAG) == BOOT_FLAG &&
	       get_le32(file + HDR_MAGIC) == HDRS_MAGIC;
}

/* The setup header's length: it ends where the jump at 0x200 lands (boot.rst). */
static size_t header_end(const u8 *file)
{
	return HDR_MAGIC + file[HDR_JUMP + 1];
}

static int check_header(const u8 *file, size_t size, struct linux_kernel *k, u64 *pm_off, char *why,
			size_t why_size)
{
	u32 setup_sects, align;
	u64 pref;

	if (!linux_is_bzimage(file, size))
		return fmt_refuse(why, why_size,
				  "not a Linux bzImage: no boot flag 0xaa55 and \"HdrS\" at 0x1fe");
	/* the version at 0x206 lies past the magic: the file must hold it */
	if (size < HDR_END_2_12)
		return fmt_refuse(why, why_size, "Linux setup header truncated");
	k->version = get_le16(file + HDR_VERSION);
	if (k->version < PROTOCOL_64BIT_ENTRY)
		return fmt_refuse(
		    why, why_size,
		    "Linux boot protocol %u.%02u: mhv needs 2.12 or later (64-bit entry)",
		    k->version >> 8, k->version & 0xff);
	if (header_end(file) < HDR_END_2_12)
		return fmt_refuse(why, why_size, "Linux setup header truncated");
	if (!(file[HDR_LOADFLAGS] & LOADED_HIGH))
		return fmt_refuse(why, why_size, "a zImage (loaded low): mhv loads only bzImages");
	if (!(get_le16(file + HDR_XLOADFLAGS) & XLF_KERNEL_64))
		return fmt_refuse(why, why_size,
				  "the kernel has no 64-bit entry point (xloadflags)");
	setup_sects = file[HDR_SETUP_SECTS] ? file[HDR_SETUP_SECTS] : 4;
	*pm_off = (u64)(setup_sects + 1) * 512;
	if (*pm_off >= size || (u64)get_le32(file + HDR_SYSSIZE) * 16 > size - *pm_off)
		return fmt_refuse(why, why_size,
				  "Linux image truncated: %zu bytes, its header says %llu", size,
				  *pm_off + (u64)get_le32(file + HDR_SYSSIZE) * 16);
	pref = get_le64(file + HDR_PREF_ADDRESS);
	align = get_le32(file + HDR_KERNEL_ALIGNMENT);
	k->init_size = get_le32(file + HDR_INIT_SIZE);
	if (!align || (align & (align - 1)) || (pref & (align - 1)) || pref < MB_HIGH_RAM)
		return fmt_refuse(
		    why, why_size,
		    "Linux header: preferred address 0x%llx or alignment 0x%x invalid", pref,
		    align);
	if (k->init_size < size - *pm_off)
		return fmt_refuse(why, why_size,
				  "Linux header: init_size 0x%x below the image's size",
				  k->init_size);
	k->load = pref;
	k->entry = pref + ENTRY_64_OFFSET;
	k->end = pref + k->init_size;
	return 0;
}

/* The E820 map: the holes the multiboot map has (multiboot.h). */
static u32 write_e820(u8 *bp, u64 ram_size)
{
	const struct e820_entry map[] = {
		{ 0, MB_LOW_RAM_END, E820_RAM },
		{ MB_BIOS_AREA, MB_HIGH_RAM - MB_BIOS_AREA, E820_RESERVED },
		{ MB_HIGH_RAM, ram_size - MB_HIGH_RAM, E820_RAM },
	};

	_Static_assert(ARRAY_SIZE(map) <= BP_E820_MAX, "E820 entries");
	__builtin_memcpy(bp + BP_E820_TABLE, map, sizeof(map));
	bp[BP_E820_ENTRIES] = ARRAY_SIZE(map);
	return ARRAY_SIZE(map);
}

/*
 * The 64-bit entry's CPU state (boot.rst "64-bit Boot Protocol"): paging
 * with the kernel, zero page and command line identity-mapped (all of
 * the first 4 GiB, 2 MiB pages), a GDT with flat __BOOT_CS (64-bit code)
 * at 0x10 and __BOOT_DS at 0x18.  0x08 holds the same code segment: the
 * backends' 64-bit state starts from mhv's own guests' selectors.
 */
static void write_entry_tables(u8 *ram)
{
	const u64 gdt[] = { 0, 0x00af9a000000ffffull, 0x00af9a000000ffffull,
			    0x00cf92000000ffffull };

	_Static_assert(GUEST_BOOT64_CS == 2 * 8 && GUEST_BOOT64_DS == 3 * 8, "GDT slots");
	u64 *pml4 = (u64 *)(ram + GUEST_PML4), *pdpt = (u64 *)(ram + GUEST_PDPT);
	u64 *pd = (u64 *)(ram + GUEST_PD);
	u32 i;

	pml4[0] = GUEST_PDPT | PTE_P | PTE_RW;
	for (i = 0; i < 4; i++)
		pdpt[i] = (GUEST_PD + i * PAGE_SIZE) | PTE_P | PTE_RW;
	for (i = 0; i < 4 * 512; i++)
		pd[i] = ((u64)i << 21) | PTE_P | PTE_RW | PTE_PS;
	__builtin_memcpy(ram + GUEST_GDT, gdt, sizeof(gdt));
}

int linux_load(const u8 *file, size_t size, const u8 *initrd, u64 initrd_size, const char *cmdline,
	       u8 *ram, u64 ram_size, struct linux_kernel *k, char *why, size_t why_size)
{
	size_t cmd_len = __builtin_strlen(cmdline), hdr_len;
	u64 pm_off, top, max;
	u8 *bp;

	*k = (struct linux_kernel){ 0 };
	if (check_header(file, size, k, &pm_off, why, why_size))
		return -1;
	if (!multiboot_in_ram(k->load, k->init_size, ram_size))
		return fmt_refuse(
		    why, why_size,
		    "Linux needs 0x%llx..0x%llx (init_size) in RAM: guest RAM is %llu MiB", k->load,
		    k->end, ram_size >> 20);
	if (cmd_len >= get_le32(file + HDR_CMDLINE_SIZE) || cmd_len >= LINUX_CMDLINE_MAX)
		return fmt_refuse(why, why_size,
				  "command line of %zu bytes: the kernel takes at most %u", cmd_len,
				  get_le32(file + HDR_CMDLINE_SIZE));
	if (initrd) {
		/* the top of RAM, below what the kernel can address (initrd_addr_max) */
		max = (u64)get_le32(file + HDR_INITRD_ADDR_MAX) + 1;
		top = ram_size < max ? ram_size : max;
		if (initrd_size > top || ((top - initrd_size) & ~(u64)(PAGE_SIZE - 1)) < k->end)
			return fmt_refuse(
			    why, why_size,
			    "initrd of %llu KiB does not fit in guest RAM above the kernel "
			    "(to 0x%llx)",
			    initrd_size >> 10, k->end);
		k->initrd = (top - initrd_size) & ~(u64)(PAGE_SIZE - 1);
	}
	if (!ram)
		return 0;

	copy_bytes(ram + k->load, file + pm_off, size - pm_off);
	if (initrd)
		copy_bytes(ram + k->initrd, initrd, initrd_size);
	__builtin_memcpy(ram + LINUX_CMDLINE, cmdline, cmd_len + 1);
	write_entry_tables(ram);

	/* the zero page: zeroed, then the image's setup header (boot.rst) */
	bp = ram + LINUX_BOOT_PARAMS;
	__builtin_memset(bp, 0, PAGE_SIZE);
	hdr_len = header_end(file) - HDR_SETUP_SECTS;
	__builtin_memcpy(bp + HDR_SETUP_SECTS, file + HDR_SETUP_SECTS, hdr_len);
	bp[HDR_TYPE_OF_LOADER] = TYPE_OF_LOADER_UNKNOWN;
	put_le32(bp + HDR_CMD_LINE_PTR, LINUX_CMDLINE);
	put_le32(bp + BP_EXT_CMD_LINE_PTR, 0);
	put_le32(bp + HDR_RAMDISK_IMAGE, (u32)k->initrd);
	put_le32(bp + HDR_RAMDISK_SIZE, initrd ? (u32)initrd_size : 0);
	put_le32(bp + BP_EXT_RAMDISK_IMAGE, (u32)(k->initrd >> 32));
	put_le32(bp + BP_EXT_RAMDISK_SIZE, (u32)(initrd_size >> 32));
	write_e820(bp, ram_size);
	return 0;
}

void linux_set_rsdp(u8 *ram, u64 rsdp)
{
	put_le64(ram + LINUX_BOOT_PARAMS + BP_ACPI_RSDP, rsdp);
}
