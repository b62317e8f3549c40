// SPDX-License-Identifier: MIT
#include "multiboot.h"
#include "lib/fmt.h"

/* Multiboot header (§3.1.1); the address fields only with flag 16. */
struct mb_header {
	u32 magic, flags, checksum;
	u32 header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr;
};

#define MB_FLAG_AOUT_KLUDGE BIT(16)
/* flags this loader can honour: 0 page-align modules, 1 memory info (§3.1.2) */
#define MB_FLAGS_KNOWN 0x0000ffffu
#define MB_FLAGS_REQUIRED_OK (BIT(0) | BIT(1))

/* ELF32 (System V ABI, Intel386 supplement) */
struct elf32_ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version, entry, phoff, shoff, flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf32_phdr {
	u32 type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

_Static_assert(sizeof(struct elf32_ehdr) == 52, "ELF32 header");
_Static_assert(sizeof(struct elf32_phdr) == 32, "ELF32 program header");

#define ET_EXEC 2
#define EM_386 3
#define PT_LOAD 1

/* Boot information (§3.3) and module entries. */
struct multiboot_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr;
};

struct multiboot_module {
	u32 mod_start, mod_end, string, reserved;
};

/* A memory map entry (§3.3): size counts the bytes after itself. */
struct multiboot_mmap_entry {
	u32 size;
	u64 addr, len;
	u32 type;
} __attribute__((packed));

_Static_assert(sizeof(struct multiboot_info) <= MB_MMAP_OFF, "boot information layout");
_Static_assert(MB_MMAP_OFF + MB_MMAP_MAX * sizeof(struct multiboot_mmap_entry) <= MB_MODS_OFF,
	       "memory map layout");

#define MBI_MEM BIT(0)
#define MBI_CMDLINE BIT(2)
#define MBI_MODS BIT(3)
#define MBI_MMAP BIT(6)
#define MB_MEM_RAM 1
#define MB_MEM_RESERVED 2

/* The first 12 bytes are required; the address fields may lie past the end. */
static bool find_header(const u8 *file, size_t size, u32 *offset, struct mb_header *h)
{
	u32 off;

	for (off = 0; off + 12 <= size && off < MULTIBOOT_SEARCH; off += 4) {
		*h = (struct mb_header){ 0 };
		__builtin_memcpy(h, file + off, size - off < sizeof(*h) ? size - off : sizeof(*h));
		if (h->magic == MULTIBOOT_MAGIC && h->magic + h->flags + h->checksum == 0) {
			*offset = off;
			return true;
		}
	}
	return false;
}

static u64 page_up(u64 a)
{
	return (a + PAGE_SIZE - 1) & ~(u64)(PAGE_SIZE - 1);
}

/* The first page at or after @from where @len bytes lie in RAM. */
static bool place(u64 from, u64 len, u64 ram_size, u64 *at)
{
	*at = page_up(from);
	if (multiboot_in_ram(*at, len, ram_size))
		return true;
	*at = MB_HIGH_RAM;
	return from < MB_HIGH_RAM && multiboot_in_ram(*at, len, ram_size);
}

static int load_aout(const u8 *file, size_t size, const struct mb_header *h, u32 hdr_off, u8 *ram,
		     u64 ram_size, struct mb_kernel *k, char *why, size_t why_size)
{
	/* The file offset of load_addr follows from where the header sits (§3.1.3). */
	u64 file_start, load_len, bss_end;

	if (h->load_addr > h->header_addr || h->header_addr - h->load_addr > hdr_off)
		return fmt_refuse(why, why_size, "multiboot header addresses are inconsistent");
	file_start = hdr_off - (h->header_addr - h->load_addr);
	load_len = h->load_end_addr ? (u64)h->load_end_addr - h->load_addr : size - file_start;
	if (h->load_end_addr && h->load_end_addr < h->load_addr)
		return fmt_refuse(why, why_size, "multiboot load_end_addr below load_addr");
	if (file_start + load_len > size)
		return fmt_refuse(why, why_size,
				  "file truncated: %llu bytes to load from offset %llu", load_len,
				  file_start);
	bss_end = h->bss_end_addr ? h->bss_end_addr : h->load_addr + load_len;
	if (bss_end < h->load_addr + load_len)
		return fmt_refuse(why, why_size, "multiboot bss_end_addr below the loaded image");
	if (!multiboot_in_ram(h->load_addr, bss_end - h->load_addr, ram_size))
		return fmt_refuse(
		    why, why_size,
		    "kernel at 0x%x..0x%llx does not fit guest RAM (0..640 KiB, 1..%llu "
		    "MiB)",
		    h->load_addr, bss_end, ram_size >> 20);
	if (ram) {
		__builtin_memcpy(ram + h->load_addr, file + file_start, load_len);
		__builtin_memset(ram + h->load_addr + load_len, 0,
				 bss_end - h->load_addr - load_len);
	}
	k->entry = h->entry_addr;
	k->load_start = h->load_addr;
	k->load_end = (u32)bss_end;
	return 0;
}

static int load_elf(const u8 *file, size_t size, u8 *ram, u64 ram_size, struct mb_kernel *k,
		    char *why, size_t why_size)
{
	const struct elf32_ehdr *e = (const struct elf32_ehdr *)file;
	unsigned i, loaded = 0;

	if (size < sizeof(*e) || __builtin_memcmp(e->ident,
						  "\x7f"
						  "ELF",
						  4))
		return fmt_refuse(why, why_size,
				  "not an ELF file and no a.out addresses in its "
				  "multiboot header");
	if (e->ident[4] != 1 || e->ident[5] != 1 || e->machine != EM_386 || e->type != ET_EXEC)
		return fmt_refuse(why, why_size, "not a 32-bit little-endian i386 ELF executable");
	if (e->phentsize != sizeof(struct elf32_phdr) || !e->phnum || e->phoff > size ||
	    (u64)e->phnum * sizeof(struct elf32_phdr) > size - e->phoff)
		return fmt_refuse(why, why_size, "ELF program headers missing or truncated");
	k->load_start = ~0u;
	k->load_end = 0;
	for (i = 0; i < e->phnum; i++) {
		struct elf32_phdr p;

		__builtin_memcpy(&p, file + e->phoff + i * sizeof(p), sizeof(p));
		if (p.type != PT_LOAD || !p.memsz)
			continue;
		if (p.filesz > p.memsz || p.offset > size || p.filesz > size - p.offset)
			return fmt_refuse(why, why_size,
					  "ELF segment %u truncated or larger on disk "
					  "than in memory",
					  i);
		if (!multiboot_in_ram(p.paddr, p.memsz, ram_size))
			return fmt_refuse(
			    why, why_size,
			    "ELF segment %u at 0x%x (%u bytes) does not fit guest RAM "
			    "(0..640 KiB, 1..%llu MiB)",
			    i, p.paddr, p.memsz, ram_size >> 20);
		if (ram) {
			__builtin_memcpy(ram + p.paddr, file + p.offset, p.filesz);
			__builtin_memset(ram + p.paddr + p.filesz, 0, p.memsz - p.filesz);
		}
		if (p.paddr < k->load_start)
			k->load_start = p.paddr;
		if (p.paddr + p.memsz > k->load_end)
			k->load_end = p.paddr + p.memsz;
		loaded++;
	}
	if (!loaded)
		return fmt_refuse(why, why_size, "ELF file has no loadable segment");
	k->entry = e->entry;
	return 0;
}

int multiboot_load(const u8 *file, size_t size, u8 *ram, u64 ram_size, struct mb_kernel *k,
		   char *why, size_t why_size)
{
	struct mb_header header, *h = &header;
	u32 hdr_off = 0;
	int err;

	if (!find_header(file, size, &hdr_off, h))
		return fmt_refuse(
		    why, why_size,
		    "not a multiboot kernel: no header (magic 0x1badb002 with a valid "
		    "checksum) in its first 8 KiB");
	if (h->flags & MB_FLAGS_KNOWN & ~MB_FLAGS_REQUIRED_OK)
		return fmt_refuse(
		    why, why_size,
		    "multiboot header asks for features mhv does not offer (flags 0x%x: "
		    "video mode or others)",
		    h->flags);
	if (h->flags & MB_FLAG_AOUT_KLUDGE) {
		if (hdr_off + sizeof(*h) > size)
			return fmt_refuse(why, why_size, "multiboot header truncated");
		err = load_aout(file, size, h, hdr_off, ram, ram_size, k, why, why_size);
	} else {
		err = load_elf(file, size, ram, ram_size, k, why, why_size);
	}
	if (err)
		return err;
	if (k->entry < k->load_start || k->entry >= k->load_end)
		return fmt_refuse(why, why_size, "entry point 0x%x outside the loaded image",
				  k->entry);
	return 0;
}

/* A string into the boot information's page; its guest-physical address, or 0 when full. */
static u32 put_string(u8 *ram, u32 *next, u32 end, const char *s)
{
	size_t n = __builtin_strlen(s) + 1;
	u32 at = *next;

	if (n > end - at)
		return 0;
	__builtin_memcpy(ram + at, s, n);
	*next += (u32)n;
	return at;
}

/* The memory map the guest is told; the same holes as multiboot_in_ram. */
static u32 write_mmap(u8 *ram, u32 at, u64 ram_size)
{
	const struct multiboot_mmap_entry map[] = {
		{ 20, 0, MB_LOW_RAM_END, MB_MEM_RAM },
		{ 20, MB_BIOS_AREA, MB_HIGH_RAM - MB_BIOS_AREA, MB_MEM_RESERVED },
		{ 20, MB_HIGH_RAM, ram_size - MB_HIGH_RAM, MB_MEM_RAM },
	};

	_Static_assert(ARRAY_SIZE(map) <= MB_MMAP_MAX, "MB_MMAP_MAX");
	__builtin_memcpy(ram + at, map, sizeof(map));
	return sizeof(map);
}

static bool overlaps(u64 a, u64 a_end, u64 b, u64 b_end)
{
	return a < b_end && b < a_end;
}

int multiboot_write_info(u8 *ram, u64 ram_size, struct mb_kernel *k, const char *cmdline,
			 const struct mb_module_file *mods, unsigned nr_mods, char *why,
			 size_t why_size)
{
	struct multiboot_info info = { 0 };
	struct multiboot_module m[MB_MAX_MODULES];
	u64 area = MB_INFO_GPA, next;
	u32 strings, strings_end;
	unsigned i;

	if (nr_mods > MB_MAX_MODULES)
		return fmt_refuse(why, why_size, "more than %u modules", MB_MAX_MODULES);
	if (ram_size <= MB_HIGH_RAM)
		return fmt_refuse(why, why_size, "guest RAM of %llu KiB ends below 1 MiB",
				  ram_size >> 10);
	if (overlaps(area, area + MB_INFO_SIZE, k->load_start, k->load_end) &&
	    !place(k->load_end, MB_INFO_SIZE, ram_size, &area))
		return fmt_refuse(why, why_size,
				  "no free page in guest RAM for the boot information");
	k->info = (u32)area;
	/* modules after the kernel, and after the boot information if that follows it */
	next = area > k->load_end ? area + MB_INFO_SIZE : k->load_end;
	strings = k->info + MB_STRINGS_OFF;
	strings_end = k->info + MB_INFO_SIZE;
	/* RAM below 640 KiB and above 1 MiB, in KiB, and the map (§3.3) */
	info.flags = MBI_MEM | MBI_CMDLINE | MBI_MMAP | (nr_mods ? MBI_MODS : 0);
	info.mem_lower = MB_LOW_RAM_END >> 10;
	info.mem_upper = (u32)((ram_size - MB_HIGH_RAM) >> 10);
	info.mmap_addr = k->info + MB_MMAP_OFF;
	info.mmap_length = write_mmap(ram, info.mmap_addr, ram_size);
	info.cmdline = put_string(ram, &strings, strings_end, cmdline);
	if (!info.cmdline)
		return fmt_refuse(why, why_size, "command line too long");
	for (i = 0; i < nr_mods; i++) {
		if (!place(next, mods[i].size, ram_size, &next))
			return fmt_refuse(why, why_size,
					  "module %s (%u bytes) does not fit in guest RAM",
					  mods[i].name, mods[i].size);
		__builtin_memcpy(ram + next, mods[i].data, mods[i].size);
		m[i] =
		    (struct multiboot_module){ (u32)next, (u32)(next + mods[i].size),
					       put_string(ram, &strings, strings_end, mods[i].name),
					       0 };
		if (!m[i].string)
			return fmt_refuse(why, why_size, "module names too long");
		next += mods[i].size;
	}
	info.mods_count = nr_mods;
	info.mods_addr = nr_mods ? k->info + MB_MODS_OFF : 0;
	__builtin_memcpy(ram + k->info + MB_MODS_OFF, m, nr_mods * sizeof(m[0]));
	__builtin_memcpy(ram + k->info, &info, sizeof(info));
	return 0;
}
