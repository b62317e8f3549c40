/* SPDX-License-Identifier: MIT */
/*
 * The guest's MTRRs (SDM Vol 3 §12.11; APM Vol 2 §7.7): MTRRcap, the
 * fixed ranges, MTRR_VCNT variable ranges and MTRRdefType as per-vCPU
 * registers, with the #GP of reserved bits and invalid types, so that an
 * OS's MTRR and PAT code runs as on a PC.  Under nested paging they set
 * no memory type: on AMD the type of a guest access comes from the host's
 * MTRRs and the guest's and nested page tables' PAT types (APM Vol 2
 * §15.25.8), under EPT from the EPT entry and the guest's PAT, the
 * guest's MTRRs having no effect (SDM Vol 3 §29.3.7, EPT and memory typing).  So they are
 * storage.  Pure.
 */
#ifndef MHV_MTRR_H
#define MHV_MTRR_H

#include "lib/types.h"

#define MTRR_VCNT 8   /* variable ranges, as most PCs have */
#define MTRR_FIXED 11 /* one 64K, two 16K, eight 4K registers */

struct vcpu_mtrr {
	u64 def_type;
	u64 fixed[MTRR_FIXED];
	u64 var[2 * MTRR_VCNT]; /* PHYSBASE, PHYSMASK pairs */
};

/* As a PC's firmware leaves them (@maxphyaddr: the guest's CPUID
 * 0x80000008 EAX[7:0]): enabled, write-back by default, the VGA window
 * and the 3-4 GiB device window uncached. */
void mtrr_reset(struct vcpu_mtrr *m, unsigned maxphyaddr);
/* false: not an MTRR, or #GP (a write to MTRRcap, reserved bits set, an
 * invalid memory type). */
bool mtrr_read(const struct vcpu_mtrr *m, u32 msr, u64 *val);
bool mtrr_write(struct vcpu_mtrr *m, u32 msr, u64 val, unsigned maxphyaddr);

#endif
