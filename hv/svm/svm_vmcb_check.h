/* SPDX-License-Identifier: MIT */
#ifndef MHV_SVM_VMCB_CHECK_H
#define MHV_SVM_VMCB_CHECK_H

#include "vmcb.h"

/*
 * The consistency checks VMRUN makes before it enters the guest (APM Vol 2
 * §15.5.1, "Canonicalization and Consistency Checks"; event injection
 * §15.20), those mhv can get wrong: NULL when the VMCB passes, else buf
 * with the first failed check in one line.  A VMCB that fails one makes
 * VMRUN exit with VMEXIT_INVALID and nothing more; this names the cause.
 * phys_bits is the host's physical-address width (0: unknown, not checked).
 */
const char *svm_vmcb_check(const struct vmcb *vmcb, unsigned phys_bits, char *buf, size_t size);

#endif
