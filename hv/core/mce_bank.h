/* SPDX-License-Identifier: MIT */
/*
 * Which values a guest may write to a machine-check bank's registers
 * (hv/core/msr.c).  Pure, so the host unit tests check it.
 */
#ifndef MHV_MCE_BANK_H
#define MHV_MCE_BANK_H

#include "lib/types.h"

/*
 * MCi_CTL: the SDM defines only all 0s and all 1s (Vol 3 §16.3.2.1).  KVM
 * (arch/x86/kvm/x86.c, set_msr_mce) also takes all 1s with bit 10 and/or
 * bit 0 clear: Linux's MCE quirks clear bit 10 of MC4_CTL to silence
 * the AMD K8 GART table-walk errors (0xfffffffffffffbff, seen at boot in
 * issue 41), UnixWare bit 0 of MC1_CTL; a #GP there is an "unchecked MSR
 * access" in the guest.  mhv takes the same four values, in any bank.
 */
#define MC_CTL_MAY_CLEAR (BIT(10) | BIT(0))

static inline bool mc_ctl_write_ok(u64 val)
{
	return !val || (val | MC_CTL_MAY_CLEAR) == ~0ull;
}

/* MCi_STATUS: only 0 clears it; the CPU writes errors (§16.3.2.2; AMD's
 * HWCR.McStatusWrEn, which would allow more, reads 0 for the guest) */
static inline bool mc_status_write_ok(u64 val)
{
	return !val;
}

#endif
