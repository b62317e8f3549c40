/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_KERNEL_H
#define MHV_GUEST_KERNEL_H

#include "lab/config.h"
#include "core/vm.h"

struct boot_file;

/*
 * A VM for one "guest =" section: its RAM, the multiboot kernel and module
 * loaded, the entry state set.  0, or -1 with a one-line reason (a file
 * that could not be read, is not multiboot, is malformed or too large).
 */
int guest_kernel_create(struct vm *vm, const struct mhv_guest *g, const struct boot_file *kernel,
			const struct boot_file *module, u32 id, struct run_results *results,
			char *why, size_t why_size);
/* The configuration column a guest runs in (its PMU mode). */
const struct vm_config *guest_kernel_config(const struct mhv_guest *g);

#endif
