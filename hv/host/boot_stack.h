/* SPDX-License-Identifier: MIT */
/*
 * The boot CPU's own stack.  UEFI starts mhv on a stack of the firmware's
 * (EfiBootServicesData), which after ExitBootServices is free RAM in the
 * memory map and so the page allocator's to hand out: a large enough VM
 * would get the memory hv_main runs on.  mhv's image is loader memory,
 * never handed out, so a stack in its .bss is mhv's alone: hv_start
 * (main.c) moves to it with boot_stack_run.
 */
#ifndef MHV_BOOT_STACK_H
#define MHV_BOOT_STACK_H

#include "lib/types.h"

struct boot_info;
typedef void boot_stack_fn(const struct boot_info *bi) __noreturn;

/* Runs fn(bi) on the boot stack; never returns. */
void boot_stack_run(const struct boot_info *bi, boot_stack_fn *fn) __noreturn;
/* Runs fn(bi), moved to a stack of the boot CPU's NUMA node @node when
 * mhv's image is on another (the firmware loads it where it likes, often
 * at the top of memory: the last node); never returns. */
void boot_stack_to_node(const struct boot_info *bi, boot_stack_fn *fn, u32 node) __noreturn;

/* The boot stack's canary is intact and, on the boot CPU, the running
 * code is on that stack (selfcheck); else false with why. */
bool boot_stack_intact(char *why, size_t size);
/* The line for the run's header: where the boot CPU's stack is. */
void boot_stack_describe(void);

#endif
