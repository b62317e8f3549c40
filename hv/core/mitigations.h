/* SPDX-License-Identifier: MIT */
/*
 * The duties a production hypervisor keeps on the exit path, chosen once
 * at init from what this CPU needs ("mitigations = auto"); a VM run with
 * "mitigations = off" gets none of them, the floor to compare with KVM's
 * mitigations=off.  Guest-controlled table indexes are clamped always,
 * as Linux's array_index_nospec() is (lib/nospec.h).
 */
#ifndef MHV_MITIGATIONS_H
#define MHV_MITIGATIONS_H

#include "lib/types.h"

/* Per-exit duties, the bits of vcpu->duties: the backends run the
 * VM-run loop that has exactly these. */
#define DUTY_RSB_FILL 1u /* 32 CALLs after every exit, before the host's first RET */
#define DUTY_VERW 2u	 /* VERW before every VM entry (MDS, VMX only) */
#define DUTY_VARIANTS 4u

struct mitigations {
	u8 exit_duties; /* DUTY_* bits under "auto" */
	bool ibpb;	/* IBPB when a vCPU takes its CPU (another VM's) */
	const char *rsb_why, *verw_why, *ibpb_why;
};

extern struct mitigations mitigations;

void mitigations_init(void);
/* The header line: which duties a VM gets by default (off: the config). */
void mitigations_describe(bool off);

#endif
