// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the multiboot/ELF32 loader (hv/loader/multiboot.c) on any file, into
 * a guest RAM of 2 MiB allocated to its size, then the boot information
 * with the file's tail as a module: every write must stay inside RAM.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader/multiboot.h"

#define RAM (2u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *ram;
	struct mb_module_file mod = { data, (uint32_t)(size / 2), "module" };
	struct mb_kernel k;
	uint8_t *file;
	char why[128];

	if (!ram)
		ram = malloc(RAM);
	file = malloc(size ? size : 1); /* exactly the file: overreads are caught */
	memcpy(file, data, size);
	if (multiboot_load(file, size, ram, RAM, &k, why, sizeof(why)) == 0) {
		if (k.load_end > RAM || k.entry < k.load_start || k.entry >= k.load_end)
			__builtin_trap();
		(void)multiboot_write_info(ram, RAM, &k, "cmdline", &mod, 1, why, sizeof(why));
	} else if (!memchr(why, 0, sizeof(why)) || !why[0]) {
		__builtin_trap(); /* a refusal always says why */
	}
	free(file);
	return 0;
}
