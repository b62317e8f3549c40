// SPDX-License-Identifier: MIT
#include "fw_cfg.h"
#include "lib/nospec.h"

void fw_cfg_select(struct fw_cfg *f, u16 key)
{
	f->key = key;
	f->pos = 0;
}

/* Item bytes little-endian, as QEMU stores its integers. */
u8 fw_cfg_read(struct fw_cfg *f)
{
	u64 v;
	u32 len;
	u32 pos = f->pos++;

	switch (f->key) {
	case FW_CFG_SIGNATURE:
		return pos < 4 ? (u8) "QEMU"[array_index_nospec(pos, 4)] : 0;
	case FW_CFG_ID:
		v = 1;
		len = 4;
		break;
	case FW_CFG_RAM_SIZE:
		v = f->ram_size;
		len = 8;
		break;
	case FW_CFG_NB_CPUS:
	case FW_CFG_MAX_CPUS:
		v = f->nr_cpus;
		len = 2;
		break;
	default:
		return 0;
	}
	return pos < len ? (u8)(v >> (8 * pos)) : 0;
}
