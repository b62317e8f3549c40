// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the decoders mhv runs on guest-controlled bytes (hv/arch/insn.c):
 * instruction lengths when the CPU gives no next RIP, and the MMIO MOV
 * decoder behind a nested page fault.  The first byte picks the op.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmio_insn m;
	uint8_t *bytes;
	int len;

	if (size < 1)
		return 0;
	size--;
	bytes = malloc(size ? size : 1); /* exactly the bytes: overreads are caught */
	memcpy(bytes, data + 1, size);
	len = insn_length((enum insn_op)(data[0] % INSN_OP_COUNT), bytes, size);
	if (len > INSN_MAX_LEN || (len > 0 && (size_t)len > size))
		__builtin_trap();
	/* the op byte's top bits pick the decode mode: 64, 32 or 16-bit code */
	if (insn_decode_mmio_mode(bytes, size,
				  (data[0] >> 6) == 1	? 32
				  : (data[0] >> 6) == 2 ? 16
							: 64,
				  &m) == 0) {
		if (!m.len || m.len > INSN_MAX_LEN || m.len > size || m.reg > 15 ||
		    (m.size != 1 && m.size != 2 && m.size != 4 && m.size != 8))
			__builtin_trap();
		(void)mmio_merge_read(&m, 0x1122334455667788ull, 0x99aabbccddeeff00ull);
		(void)mmio_write_value(&m, 0x0123456789abcdefull);
	}
	free(bytes);
	return 0;
}
