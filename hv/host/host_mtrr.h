/* SPDX-License-Identifier: MIT */
#ifndef MHV_HOST_MTRR_H
#define MHV_HOST_MTRR_H

#include "lib/types.h"

struct mtrr_set;

/* This CPU's MTRRs as the firmware left them (SDM Vol 3 §12.11: MTRRcap,
 * MTRRdefType, the fixed and variable ranges; AMD's TOM2 default);
 * false when the CPU has none (CPUID.1:EDX[12]) or they cannot be read. */
bool host_mtrr_read(struct mtrr_set *s);

#endif
