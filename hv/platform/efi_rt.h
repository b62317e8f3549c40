/* SPDX-License-Identifier: MIT */
/*
 * UEFI runtime services after ExitBootServices: the one kind of firmware
 * call hv/ makes.  The firmware's runtime code runs at its physical
 * addresses (mhv never calls SetVirtualAddressMap), inside mhv's identity
 * map, on the calling CPU's stack, one call at a time machine-wide.  On
 * a machine whose firmware keeps its variables in SMM (Secure Boot
 * firmware, OVMF built with SMM_REQUIRE) every variable call raises an
 * SMI that all CPUs must answer: see svm.h on GIF.
 */
#ifndef MHV_EFI_RT_H
#define MHV_EFI_RT_H

#include "lib/types.h"

/* UEFI 2.10 §8.2 Variable Services: EFI_GUID, mixed-endian as stored */
struct efi_guid {
	u32 d1;
	u16 d2, d3;
	u8 d4[8];
};

/* UEFI 2.10 §8.2.1 GetVariable, attributes */
#define EFI_VARIABLE_NON_VOLATILE 0x1u
#define EFI_VARIABLE_BOOTSERVICE_ACCESS 0x2u
#define EFI_VARIABLE_RUNTIME_ACCESS 0x4u

/* UEFI 2.10 Appendix D: error codes have the top bit set */
#define EFI_ERROR_BIT (1ull << 63)
#define EFI_INVALID_PARAMETER (EFI_ERROR_BIT | 2)
#define EFI_UNSUPPORTED (EFI_ERROR_BIT | 3)
#define EFI_NOT_READY (EFI_ERROR_BIT | 6) /* also: the lock refused the call (efi_rt.c) */
#define EFI_OUT_OF_RESOURCES (EFI_ERROR_BIT | 9)
#define EFI_NOT_FOUND (EFI_ERROR_BIT | 14)

/* mhv's own vendor GUID for the variables it stores */
extern const struct efi_guid mhv_vendor_guid;

/* Takes the runtime services table boot/ found (0: none) and says in the
 * header whether it can be used. */
void efi_rt_init(u64 table);
bool efi_rt_available(void);

/* The firmware's EFI_STATUS of each call (0 is EFI_SUCCESS). */
u64 efi_rt_set_variable(const u16 *name, const struct efi_guid *guid, u32 attrs, u64 size,
			const void *data);
u64 efi_rt_get_variable(const u16 *name, const struct efi_guid *guid, u32 *attrs, u64 *size,
			void *data);
/* What the variable store holds for @attrs, in bytes. */
u64 efi_rt_query_variable_info(u32 attrs, u64 *max_storage, u64 *remaining, u64 *max_size);
/* "EFI_NOT_FOUND" and the like, or "EFI status 0x..." */
const char *efi_status_name(u64 status, char *buf, size_t size);

#endif
