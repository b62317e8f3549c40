// SPDX-License-Identifier: MIT
/*
 * The bare run of the Linux guest (docs/linux-guest.md): a UEFI chain
 * loader that starts \vmlinuz, the Debian kernel's EFI stub, from its own
 * volume with the command line of the first `cmdline = "..."` line of
 * \mhv.cfg plus initrd=\initrd.cpio (mhv passes the initrd through the boot
 * protocol instead), so the bare emulator boots the kernel, initramfs and
 * /init the mhv runs boot, with the same words.  The stub reads its command line
 * (initrd= included) from the loaded image's LoadOptions as UCS-2 (UEFI
 * 2.10 §9.1 EFI_LOADED_IMAGE_PROTOCOL).
 */
#include <efi.h>
#include <efilib.h>

#define CMDLINE_MAX 1024
#define INITRD " initrd=\\initrd.cpio"

static UINT8 cfg[16384];
static CHAR16 cmdline[CMDLINE_MAX];

static void fail(const CHAR16 *what, EFI_STATUS st)
{
	Print(L"linuxload: %s: %r\n", what, st);
}

/* the text between the quotes of the first `cmdline = "..."` line */
static UINTN cfg_cmdline(const UINT8 *p, UINTN n, CHAR16 *out)
{
	UINTN i = 0, len = 0;

	while (i < n) {
		UINTN s = i, e;

		while (i < n && p[i] != '\n')
			i++;
		e = i++;
		while (s < e && (p[s] == ' ' || p[s] == '\t'))
			s++;
		if (e - s < 7 || CompareMem((void *)(p + s), "cmdline", 7))
			continue;
		s += 7;
		while (s < e && (p[s] == ' ' || p[s] == '\t' || p[s] == '='))
			s++;
		if (s >= e || p[s] != '"')
			continue;
		for (s++; s < e && p[s] != '"' && len < CMDLINE_MAX - 1; s++)
			out[len++] = p[s];
		break;
	}
	for (i = 0; INITRD[i] && len < CMDLINE_MAX - 1; i++)
		out[len++] = INITRD[i];
	out[len] = 0;
	return len;
}

static UINTN read_cfg(EFI_HANDLE device)
{
	EFI_FILE_HANDLE root = LibOpenRoot(device), f;
	UINTN n = sizeof(cfg);
	EFI_STATUS st;

	if (!root)
		return 0;
	st = uefi_call_wrapper(root->Open, 5, root, &f, L"\\mhv.cfg", EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st)) {
		fail(L"\\mhv.cfg", st);
		return 0;
	}
	st = uefi_call_wrapper(f->Read, 3, f, &n, cfg);
	uefi_call_wrapper(f->Close, 1, f);
	return EFI_ERROR(st) ? 0 : n;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *self, *kernel;
	EFI_DEVICE_PATH *path;
	EFI_HANDLE child;
	EFI_STATUS st;
	UINTN len;

	InitializeLib(image, systab);
	st = uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&self);
	if (EFI_ERROR(st)) {
		fail(L"own loaded image", st);
		return st;
	}
	len = cfg_cmdline(cfg, read_cfg(self->DeviceHandle), cmdline);
	path = FileDevicePath(self->DeviceHandle, L"\\vmlinuz");
	st = uefi_call_wrapper(BS->LoadImage, 6, FALSE, image, path, NULL, 0, &child);
	if (EFI_ERROR(st)) {
		fail(L"LoadImage \\vmlinuz", st);
		return st;
	}
	uefi_call_wrapper(BS->HandleProtocol, 3, child, &LoadedImageProtocol, (void **)&kernel);
	kernel->LoadOptions = cmdline;
	kernel->LoadOptionsSize = (len + 1) * sizeof(CHAR16);
	Print(L"linuxload: \\vmlinuz %s\n", cmdline);
	st = uefi_call_wrapper(BS->StartImage, 3, child, NULL, NULL);
	fail(L"StartImage \\vmlinuz returned", st);
	return st;
}
