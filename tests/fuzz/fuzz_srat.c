// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the ACPI SRAT (hv/platform/srat.c).  The input is the table;
 * its length field is set to the input's size, as firmware would, and the
 * table is exactly that long, so ASan sees any read past it.  A table
 * srat_parse accepts must give nodes and ranges that make sense.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/srat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srat_info info;
	const char *why = NULL;
	uint32_t len, i, id;
	uint8_t *table;
	int node;

	if (size < 8 || size > 65536)
		return 0;
	len = (uint32_t)size;
	table = malloc(len);
	memcpy(table, data, len);
	memcpy(table + 4, &len, 4);
	if (srat_parse(table, &info, &why)) {
		if (!why)
			__builtin_trap();
	} else {
		if (info.nr_nodes > SRAT_MAX_NODES || info.nr_mem > SRAT_MAX_MEM)
			__builtin_trap();
		for (i = 0; i < info.nr_mem; i++)
			if (info.mem[i].end <= info.mem[i].base ||
			    info.mem[i].node >= info.nr_nodes)
				__builtin_trap();
		for (id = 0; id < 300; id += 7) {
			node = srat_cpu_node(table, &info, id);
			if (node >= (int)info.nr_nodes)
				__builtin_trap();
		}
	}
	free(table);
	return 0;
}
