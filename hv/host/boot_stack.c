// SPDX-License-Identifier: MIT
#include "boot_stack.h"
#include "percpu.h"
#include "stack_canary.h"
#include "numa.h"
#include "page_alloc.h"
#include "platform/console.h"
#include "lib/fmt.h"

/* The APs' size (host/smp.c); a run of every suite, or of a multiboot
 * guest, reached 2.5 KiB deep (measured by painting it whole). */
#define BOOT_STACK_SIZE (32 * 1024)

static u8 boot_stack[BOOT_STACK_SIZE] __attribute__((aligned(PAGE_SIZE)));
static u64 firmware_rsp; /* where UEFI's stack was: free memory now */
/* The stack the boot CPU runs on: boot_stack, or one of its node's. */
static u8 *stack = boot_stack;

static u64 current_rsp(void)
{
	u64 rsp;

	asm volatile("mov %%rsp, %0" : "=r"(rsp));
	return rsp;
}

/* fn(bi) on the stack whose lowest byte is at s, for good */
static __noreturn void switch_to_stack(u8 *s, const struct boot_info *bi, boot_stack_fn *fn)
{
	__builtin_memset(s, STACK_CANARY, STACK_CANARY_BYTES);
	stack = s;
	/* the SysV ABI's alignment: RSP a multiple of 16 at the call */
	asm volatile("mov %0, %%rsp\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "call *%1\n\t"
		     "ud2"
		     :
		     : "r"(s + BOOT_STACK_SIZE), "r"(fn), "D"(bi)
		     : "memory");
	__builtin_unreachable();
}

void boot_stack_run(const struct boot_info *bi, boot_stack_fn *fn)
{
	firmware_rsp = current_rsp();
	switch_to_stack(boot_stack, bi, fn);
}

void boot_stack_to_node(const struct boot_info *bi, boot_stack_fn *fn, u32 node)
{
	u8 *s = NULL;

	/* one node, or the image on this node already: nothing to gain.  A
	 * lifetime allocation: never released, never a guest's. */
	if (numa_nr_nodes() > 1 && numa_addr_node((u64)(uintptr_t)boot_stack) != (int)node)
		s = alloc_pages_zeroed_node(BOOT_STACK_SIZE / PAGE_SIZE, node);
	if (s && numa_addr_node((u64)(uintptr_t)s) == (int)node)
		switch_to_stack(s, bi, fn);
	/* else the image's stack stays (the node had no room) */
	fn(bi);
	__builtin_unreachable();
}

static bool on_boot_stack(u64 rsp)
{
	return rsp > (u64)(uintptr_t)stack && rsp <= (u64)(uintptr_t)stack + BOOT_STACK_SIZE;
}

bool boot_stack_intact(char *why, size_t size)
{
	u64 rsp = current_rsp();
	unsigned i;

	if (this_cpu()->index == 0 && !on_boot_stack(rsp)) {
		fmt_snprintf(why, size,
			     "the boot CPU runs on a stack mhv does not own (rsp 0x%llx)", rsp);
		return false;
	}
	for (i = 0; i < STACK_CANARY_BYTES; i++)
		if (stack[i] != STACK_CANARY) {
			fmt_snprintf(why, size, "the boot CPU's stack canary was overwritten");
			return false;
		}
	return true;
}

void boot_stack_describe(void)
{
	if (stack != boot_stack) {
		console_printf("mhv: stack: the boot CPU's, %u KiB at 0x%llx on its node %d (mhv's "
			       "image is on node %d)\n",
			       BOOT_STACK_SIZE >> 10, (u64)(uintptr_t)stack,
			       numa_addr_node((u64)(uintptr_t)stack),
			       numa_addr_node((u64)(uintptr_t)boot_stack));
		return;
	}
	console_printf("mhv: stack: the boot CPU's, %u KiB at 0x%llx in mhv's image (the "
		       "firmware's, at 0x%llx, is free memory now)\n",
		       BOOT_STACK_SIZE >> 10, (u64)(uintptr_t)boot_stack, firmware_rsp);
}
