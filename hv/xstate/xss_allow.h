/* SPDX-License-Identifier: MIT */
/*
 * Which IA32_XSS (supervisor) state components guests get: an allowlist of
 * the ones mhv virtualizes.  Pure data, no CPUID: host unit tests run it.
 */
#ifndef MHV_XSS_ALLOW_H
#define MHV_XSS_ALLOW_H

#include "xstate.h"

/* The IA32_XSS bits guests may set where the host has them. */
u64 xstate_xss_allowed(void);

/*
 * Why guests do not get supervisor component bit (0..62): its name in *name
 * and the reason, or NULL when guests get it.  A bit the table does not
 * know is withheld ("not known to mhv").
 */
const char *xstate_xss_withheld(unsigned bit, const char **name);

/*
 * Take the withheld components out of a CPUID.0xD answer set before it
 * fills the cache: sub-leaf 1's ECX/EDX (the IA32_XSS bits) keep only the
 * allowed ones.  Returns the host's bits it took away.
 */
u64 xstate_xss_restrict(struct xstate_cpuid_leaf *leaves, unsigned n);

#endif
