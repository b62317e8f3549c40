/* SPDX-License-Identifier: MIT */
/*
 * The two fakes of the kept log's tests, over the variable store model
 * (var_store.h): the hypervisor's runtime services (kept_log_fake_rt.c)
 * and GNU-EFI's tables for the loader, boot/kept_log_file.c
 * (kept_log_fake_efi.c).
 */
#ifndef MHV_TEST_KEPT_LOG_FAKE_H
#define MHV_TEST_KEPT_LOG_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* What the hypervisor last printed. */
extern char fake_console_last[512];

/* The loader's boot: boot/kept_log_file.c on a boot volume that takes
 * files or not; its note; the file it wrote (NULL: none) and its size. */
void fake_loader_boot(bool writable, char *note, size_t note_size);
const char *fake_loader_file(size_t *size);
/* SetVariable calls of the last fake_loader_boot, done or refused. */
unsigned fake_loader_set_calls(void);
/* Fresh pool memory holds this byte (old data, as the firmware's pool may). */
#define FAKE_POOL_BYTE 0xa5

static inline bool getenv_verbose(void)
{
	return getenv("KEPT_LOG_VERBOSE") != NULL;
}

#endif
