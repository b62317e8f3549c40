/* SPDX-License-Identifier: MIT */
/*
 * QEMU's firmware configuration device, its I/O-port interface only (the
 * layout kvm-unit-tests reads: QEMU docs/specs/fw_cfg.txt): a 16-bit key
 * written to the selector port, then the item's bytes read one at a time
 * from the data port; unknown keys and bytes past an item read as zero.
 */
#ifndef MHV_FW_CFG_H
#define MHV_FW_CFG_H

#include "lib/types.h"

#define FW_CFG_SELECTOR_PORT 0x510
#define FW_CFG_DATA_PORT 0x511

#define FW_CFG_SIGNATURE 0x00 /* "QEMU" */
#define FW_CFG_ID 0x01	      /* u32: bit 0, the traditional interface */
#define FW_CFG_RAM_SIZE 0x03  /* u64, bytes */
#define FW_CFG_NB_CPUS 0x05   /* u16 */
#define FW_CFG_MAX_CPUS 0x0f  /* u16 */

struct fw_cfg {
	u16 key;
	u32 pos;
	u64 ram_size;
	u16 nr_cpus;
};

void fw_cfg_select(struct fw_cfg *f, u16 key);
u8 fw_cfg_read(struct fw_cfg *f);

#endif
