/* SPDX-License-Identifier: MIT */
/*
 * UEFI entry.  The only code in mhv that calls the firmware: it gathers
 * what the core needs into one struct boot_info, reserves the
 * hypervisor's memory pool, and leaves boot services behind.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/boot_info.h"
#include "lib/mem_map.h"
#include "lab/config.h"
#include "kept_log_file.h"
#include "secure_boot.h"

#define CONFIG_MAX_BYTES (64 * 1024)
#define POOL_PAGES_WANTED (48ull * 1024 * 1024 / 4096)
#define POOL_PAGES_MIN (8ull * 1024 * 1024 / 4096)

static struct boot_info boot_info;

static void boot_say(CHAR16 *msg)
{
	ST->ConOut->OutputString(ST->ConOut, msg);
}

static void note_config_error(const char *why)
{
	UINTN i;

	for (i = 0; why[i] && i < sizeof(boot_info.config_error) - 1; i++)
		boot_info.config_error[i] = why[i];
	boot_info.config_error[i] = 0;
}

#define GUEST_FILE_MAX (64ull * 1024 * 1024)

/*
 * The whole of path into pool memory; NULL with why set when it cannot be
 * read.  The buffer has the file's size (a seek to the end tells it, UEFI
 * 2.10 §13.5 EFI_FILE_PROTOCOL.SetPosition), not max: a few guests' files
 * of up to max each would not fit a small machine's memory.
 */
static char *read_file(EFI_FILE_HANDLE root, CHAR16 *path, UINTN max, UINTN *size, const char **why)
{
	EFI_FILE_HANDLE file;
	EFI_STATUS st;
	char *buf = NULL;
	UINT64 end = 0;
	UINTN n;

	*why = NULL;
	st = root->Open(root, &file, path, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st)) {
		*why = "not found";
		return NULL;
	}
	if (EFI_ERROR(file->SetPosition(file, ~0ull)) || EFI_ERROR(file->GetPosition(file, &end)) ||
	    EFI_ERROR(file->SetPosition(file, 0)))
		end = max; /* the size unknown: read up to max, as before */
	/* one byte more than allowed, to see a file that is too large */
	n = (end < max ? end : max) + 1;
	st = BS->AllocatePool(EfiLoaderData, n, (void **)&buf);
	if (EFI_ERROR(st)) {
		*why = "out of memory reading the file";
		buf = NULL;
	} else if (EFI_ERROR(file->Read(file, &n, buf))) {
		*why = "read error";
	} else if (n > max) {
		*why =
		    max == CONFIG_MAX_BYTES ? "file larger than 64 KiB" : "file larger than 64 MiB";
	}
	file->Close(file);
	*size = *why ? 0 : n;
	return buf;
}

static void note(char *dst, size_t size, const char *why)
{
	UINTN i;

	for (i = 0; why[i] && i < size - 1; i++)
		dst[i] = why[i];
	dst[i] = 0;
}

/* "\\dir\\kernel.elf" or "/dir/kernel.elf" as a UEFI path. */
static void to_path(const char *ascii, CHAR16 *out, UINTN max)
{
	UINTN i;

	for (i = 0; ascii[i] && i < max - 1; i++)
		out[i] = ascii[i] == '/' ? '\\' : (CHAR16)ascii[i];
	out[i] = 0;
}

static void read_boot_file(EFI_FILE_HANDLE root, const char *path, struct boot_file *f)
{
	CHAR16 wpath[CONFIG_PATH_LEN];
	const char *why;
	UINTN size;

	to_path(path, wpath, CONFIG_PATH_LEN);
	f->data = (const u8 *)read_file(root, wpath, GUEST_FILE_MAX, &size, &why);
	f->size = size;
	if (why) {
		f->data = NULL;
		note(f->error, sizeof(f->error), why);
	}
}

/*
 * The kernels and modules that mhv.cfg names: after ExitBootServices there
 * is no file system, so they are read now.  Config errors are reported by
 * the hypervisor core, which parses the file again.
 */
static void read_guests(EFI_FILE_HANDLE root)
{
	static struct mhv_config cfg;
	unsigned i;

	config_defaults(&cfg);
	if (!boot_info.config_text ||
	    config_parse(&cfg, boot_info.config_text, boot_info.config_len, NULL, 0) < 0)
		return;
	for (i = 0; i < cfg.nr_guests && i < BOOT_MAX_GUESTS; i++) {
		read_boot_file(root, cfg.guests[i].path, &boot_info.guest_files[i]);
		if (cfg.guests[i].module[0])
			read_boot_file(root, cfg.guests[i].module, &boot_info.module_files[i]);
	}
}

/* Reads \mhv.cfg (and the guests it names) from the volume the image was loaded from. */
static void read_config(EFI_HANDLE image)
{
	EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
	EFI_GUID fs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;
	EFI_LOADED_IMAGE *li;
	EFI_FILE_IO_INTERFACE *fs;
	EFI_FILE_HANDLE root;
	EFI_STATUS st;
	const char *why;
	UINTN size;
	char *buf;

	st = BS->HandleProtocol(image, &loaded_image_guid, (void **)&li);
	if (EFI_ERROR(st))
		return;
	boot_info.image_base = (u64)(UINTN)li->ImageBase;
	boot_info.image_size = li->ImageSize;
	st = BS->HandleProtocol(li->DeviceHandle, &fs_guid, (void **)&fs);
	if (EFI_ERROR(st))
		return;
	st = fs->OpenVolume(fs, &root);
	if (EFI_ERROR(st))
		return;
	kept_log_to_file(root, boot_info.previous_log, sizeof(boot_info.previous_log));
	buf = read_file(root, L"\\mhv.cfg", CONFIG_MAX_BYTES, &size, &why);
	if (why && !buf) {
		root->Close(root);
		return; /* no config file: defaults */
	}
	if (why)
		note_config_error(why);
	boot_info.config_text = buf;
	boot_info.config_len = size;
	read_guests(root);
	root->Close(root);
}

static void find_rsdp(void)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	EFI_GUID acpi10 = ACPI_TABLE_GUID;
	UINTN i;

	for (i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];

		if (!CompareGuid(&t->VendorGuid, &acpi20)) {
			boot_info.rsdp = (u64)(UINTN)t->VendorTable;
			return;
		}
		if (!CompareGuid(&t->VendorGuid, &acpi10))
			boot_info.rsdp = (u64)(UINTN)t->VendorTable;
	}
}

static void reserve_pool(void)
{
	UINTN pages;

	for (pages = POOL_PAGES_WANTED; pages >= POOL_PAGES_MIN; pages /= 2) {
		EFI_PHYSICAL_ADDRESS addr = 0;

		if (!EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiLoaderData, pages, &addr))) {
			boot_info.pool_base = addr;
			boot_info.pool_pages = pages;
			return;
		}
	}
}

/* The AP start-up trampoline must sit below 1 MiB at a page boundary: a
 * SIPI names its page (SDM Vol 3 §8.4.4.1). */
static void reserve_trampoline(void)
{
	EFI_PHYSICAL_ADDRESS addr = 0x9ffff;

	if (!EFI_ERROR(
		BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, TRAMPOLINE_PAGES, &addr)))
		boot_info.trampoline_base = addr;
}

/* A GOP mhv can draw in: a linear framebuffer of 32-bit pixels. */
static bool gop_usable(EFI_GRAPHICS_OUTPUT_PROTOCOL *gop)
{
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;

	if (!gop || !gop->Mode || !gop->Mode->Info || !gop->Mode->FrameBufferBase)
		return false;
	info = gop->Mode->Info;
	/* a blt-only or bitmask mode: no linear framebuffer mhv can draw in */
	return info->PixelFormat == PixelBlueGreenRedReserved8BitPerColor ||
	       info->PixelFormat == PixelRedGreenBlueReserved8BitPerColor;
}

/*
 * The GOP of the screen the user watches.  A desktop with an iGPU and a
 * discrete GPU has a GOP on each; the first one found need not be lit.
 * In order: the GOP on the system table's ConsoleOutHandle (EDK2's console
 * splitter copies the physical GOP's framebuffer there when one GPU is the
 * console, and offers a blt-only mode when several are); a GOP whose handle
 * is marked as an active console output (the Console Out Device GUID, put
 * there by the firmware's console platform driver: what Linux's EFI stub
 * prefers); the first usable GOP.
 */
static EFI_GRAPHICS_OUTPUT_PROTOCOL *choose_gop(const char **source)
{
	EFI_GUID gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GUID conout_guid = {
		0xd3b36f2c, 0xd551, 0x11d4, { 0x9a, 0x46, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d }
	};
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL, *first = NULL;
	EFI_HANDLE *handles = NULL;
	UINTN n = 0, i;
	void *marker;

	if (!EFI_ERROR(BS->HandleProtocol(ST->ConsoleOutHandle, &gop_guid, (void **)&gop)) &&
	    gop_usable(gop)) {
		*source = "the GOP on ConsoleOutHandle";
		return gop;
	}
	if (EFI_ERROR(BS->LocateHandleBuffer(ByProtocol, &gop_guid, NULL, &n, &handles)))
		return NULL;
	for (i = 0; i < n; i++) {
		if (EFI_ERROR(BS->HandleProtocol(handles[i], &gop_guid, (void **)&gop)) ||
		    !gop_usable(gop))
			continue;
		if (!EFI_ERROR(BS->HandleProtocol(handles[i], &conout_guid, &marker))) {
			*source = "a GOP marked as console output";
			break;
		}
		if (!first)
			first = gop;
		gop = NULL;
	}
	BS->FreePool(handles);
	if (!gop && first) {
		gop = first;
		*source = "the first usable GOP (none is the console's)";
	}
	return gop;
}

/* The framebuffer survives ExitBootServices; only its description is needed. */
static void find_framebuffer(void)
{
	const char *source = "";
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = choose_gop(&source);
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;

	if (!gop)
		return;
	info = gop->Mode->Info;
	boot_info.fb.base = gop->Mode->FrameBufferBase;
	boot_info.fb.width = info->HorizontalResolution;
	boot_info.fb.height = info->VerticalResolution;
	boot_info.fb.pitch = info->PixelsPerScanLine;
	boot_info.fb.bgr = info->PixelFormat == PixelBlueGreenRedReserved8BitPerColor;
	boot_info.fb.source = source;
}

static void record_memory_map(const UINT8 *map, UINTN map_size, UINTN desc_size)
{
	UINTN off;

	mem_map_reset(&boot_info);
	for (off = 0; off + desc_size <= map_size; off += desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)(map + off);

		mem_map_add(&boot_info, d->PhysicalStart, d->NumberOfPages, d->Type);
	}
}

/* The time for the guests' CMOS clocks: read last, so that the TSC taken
 * with it is close to the hypervisor's start. */
static void read_wall_clock(void)
{
	struct boot_wall_clock *w = &boot_info.wall_clock;
	EFI_TIME t;

	/* runtime services outlive ExitBootServices (hv/platform/efi_rt.h) */
	boot_info.efi_runtime = (u64)(UINTN)RT;
	if (EFI_ERROR(RT->GetTime(&t, NULL)))
		return;
	w->tsc = __builtin_ia32_rdtsc();
	w->year = t.Year;
	w->month = t.Month;
	w->day = t.Day;
	w->hour = t.Hour;
	w->minute = t.Minute;
	w->second = t.Second;
	w->tz_minutes = t.TimeZone;
	w->valid = true;
}

/*
 * GetMemoryMap and ExitBootServices must pair up on the same map key; any
 * allocation in between (ours or the firmware's) makes the key stale, so
 * the buffer is allocated with slack first and the pair is retried.
 */
static EFI_STATUS leave_boot_services(EFI_HANDLE image)
{
	UINTN buf_size = 0, map_size, key, desc_size;
	UINT32 desc_ver;
	UINT8 *buf = NULL;
	EFI_STATUS st;
	int tries;

	map_size = 0;
	BS->GetMemoryMap(&map_size, NULL, &key, &desc_size, &desc_ver);
	buf_size = map_size + 16 * 1024;
	st = BS->AllocatePool(EfiLoaderData, buf_size, (void **)&buf);
	if (EFI_ERROR(st))
		return st;
	read_wall_clock();
	for (tries = 1; tries <= 8; tries++) {
		map_size = buf_size;
		st = BS->GetMemoryMap(&map_size, (EFI_MEMORY_DESCRIPTOR *)buf, &key, &desc_size,
				      &desc_ver);
		if (EFI_ERROR(st))
			return st;
		record_memory_map(buf, map_size, desc_size);
		boot_info.exit_boot_services_tries = tries;
		st = BS->ExitBootServices(image, key);
		if (st != EFI_INVALID_PARAMETER)
			return st;
	}
	return st;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_STATUS st;

	InitializeLib(image, systab);
	BS->SetWatchdogTimer(0, 0, 0, NULL);
	boot_say(L"mhv: UEFI loader, collecting boot information\r\n");
	read_config(image);
	find_rsdp();
	find_framebuffer();
	reserve_trampoline();
	read_secure_boot(&boot_info.secure_boot);
	reserve_pool();
	if (!boot_info.pool_pages) {
		boot_say(L"mhv: cannot reserve the hypervisor memory pool (need 8 MiB)\r\n");
		return EFI_OUT_OF_RESOURCES;
	}
	st = leave_boot_services(image);
	if (EFI_ERROR(st)) {
		boot_say(L"mhv: ExitBootServices failed\r\n");
		return st;
	}
	hv_start(&boot_info);
}
