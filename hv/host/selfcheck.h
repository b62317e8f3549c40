/* SPDX-License-Identifier: MIT */
/*
 * mhv checking itself after a hostile guest: its code and read-only data
 * unchanged since init, its host page tables unchanged, the host MSRs a
 * guest tries to write (EFER, PAT, MTRRs, FEATURE_CONTROL, VM_CR, SMM)
 * unchanged, the boot CPU on its own stack, the canaries at the bottom of
 * every stack intact, and the writable tables that steer it (the exit
 * tables, what each CPU is and what it is asked to run) as they were set
 * up.  A guest that could change any of these would own the host.
 */
#ifndef MHV_SELFCHECK_H
#define MHV_SELFCHECK_H

#include "lib/types.h"

/* Record the reference values (after SMP start-up). */
void selfcheck_init(void);
/*
 * A table in .data/.bss that is final from now on (an exit table, a
 * pointer to the backend's ops): its hash is recorded now and compared
 * by every selfcheck_verify.  At most SELFCHECK_MAX_WATCHED of them.
 */
#define SELFCHECK_MAX_WATCHED 8
void selfcheck_watch(const char *what, const void *start, size_t size);
/* true when all is as recorded; else false with what changed in why */
bool selfcheck_verify(char *why, size_t size);

#endif
