/* SPDX-License-Identifier: MIT */
#ifndef MHV_VMX_GUEST_CHECK_H
#define MHV_VMX_GUEST_CHECK_H

#include "lib/types.h"

/* The guest-state fields VM entry checks that mhv can get wrong. */
struct vmx_guest_state {
	u64 cr0, cr4, efer, rflags;
	u32 cs_ar, ss_ar, tr_ar, ldtr_ar;
	u16 tr_sel;
	u32 entry_controls;
	u64 cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	bool unrestricted; /* secondary control "unrestricted guest" is on */
};

/*
 * The checks of SDM Vol 3 §27.3.1 on those fields, done before VMLAUNCH so
 * that a mistake is reported with the field named instead of as a bare
 * "invalid guest state" exit.  NULL when the state passes, else buf with
 * a one-line reason.
 */
const char *vmx_check_guest_state(const struct vmx_guest_state *g, char *buf, size_t size);

#endif
