/* SPDX-License-Identifier: MIT */
#ifndef MHV_BOOT_KEPT_LOG_FILE_H
#define MHV_BOOT_KEPT_LOG_FILE_H

#include <efi.h>

/*
 * Before ExitBootServices: the log the previous run kept in UEFI
 * variables (hv/lib/kept_log.h), written to \mhv-results\ on the boot
 * volume @root and then deleted; what happened in @note ("" when there
 * was none), also said on the screen.
 */
void kept_log_to_file(EFI_FILE_HANDLE root, char *note, UINTN note_size);

#endif
