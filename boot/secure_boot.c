/* SPDX-License-Identifier: MIT */
/*
 * Whether the firmware enforced Secure Boot on this boot: the SecureBoot
 * and SetupMode global variables (UEFI 2.10 §3.3 "Globally Defined
 * Variables", §32.3 "Firmware/OS Key Exchange").  They can only be read
 * while boot services run; the header of the run prints them.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/boot_info.h"
#include "secure_boot.h"

/* A one-byte global variable; -1 when absent or not one byte. */
static int read_u8_variable(CHAR16 *name)
{
	EFI_GUID global = EFI_GLOBAL_VARIABLE;
	UINT8 value = 0;
	UINTN size = sizeof(value);
	UINT32 attrs;

	if (EFI_ERROR(RT->GetVariable(name, &global, &attrs, &size, &value)) || size != 1)
		return -1;
	return value;
}

void read_secure_boot(struct boot_secure_boot *sb)
{
	sb->secure_boot = read_u8_variable(L"SecureBoot");
	sb->setup_mode = read_u8_variable(L"SetupMode");
}
