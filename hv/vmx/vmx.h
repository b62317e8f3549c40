/* SPDX-License-Identifier: MIT */
#ifndef MHV_VMX_H
#define MHV_VMX_H

#include "backend.h"

/* Returns NULL with *why set when this CPU cannot run the VMX backend. */
const struct backend_ops *vmx_probe(const char **why, int *status);

#endif
