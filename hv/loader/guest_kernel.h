/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_KERNEL_H
#define MHV_GUEST_KERNEL_H

#include "core/vm.h"

struct boot_file;

/* A multiboot kernel from the boot volume, and what it is started with. */
struct guest_kernel {
	const char *path; /* the VM is named after its last component */
	const struct boot_file *kernel;
	const char *module_path; /* "" when none */
	bool initrd;		 /* the module is a Linux initrd */
	const struct boot_file *module;
	const char *cmdline;
	u32 mem_mib;
};

/*
 * A VM for one multiboot kernel: @spec's settings, named after the
 * kernel's file; its RAM, the kernel and module loaded, the entry state
 * set.  0, or -1 with a one-line reason (a file that could not be read,
 * is not multiboot, is malformed or too large).  vm_destroy even when it
 * fails.
 */
int guest_kernel_create(struct vm *vm, const struct vm_spec *spec, const struct guest_kernel *gk,
			u32 id, char *why, size_t why_size);

#endif
