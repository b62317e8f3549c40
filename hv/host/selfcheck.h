/* SPDX-License-Identifier: MIT */
/*
 * mhv checking itself after a hostile guest: its code and read-only data
 * unchanged since init, its host page tables unchanged, the host MSRs a
 * guest tries to write (EFER, PAT, MTRRs, FEATURE_CONTROL, VM_CR, SMM)
 * unchanged, the boot CPU on its own stack, and the canaries at the bottom
 * of every stack intact.  A guest that could change any of these would
 * own the host.
 */
#ifndef MHV_SELFCHECK_H
#define MHV_SELFCHECK_H

#include "lib/types.h"

/* Record the reference values (after SMP start-up). */
void selfcheck_init(void);
/* true when all is as recorded; else false with what changed in why */
bool selfcheck_verify(char *why, size_t size);

#endif
