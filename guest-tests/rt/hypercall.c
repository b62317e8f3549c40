// SPDX-License-Identifier: MIT
/* The hypercall instruction, apart from the rest of the runtime: the fuzz
 * guest's bare build links its own (tests/fuzz-bare/bare_hc.c). */
#include "rt.h"

bool hypercall_by_port; /* under Linux KVM: GUEST_HC_PORT (guest_abi.h) */

u64 hypercall(u64 nr, u64 a0, u64 a1)
{
	u64 ret;

	if (hypercall_by_port)
		asm volatile("outl %%eax, %%dx"
			     : "=a"(ret)
			     : "a"(nr), "D"(a0), "S"(a1), "d"(GUEST_HC_PORT)
			     : "memory");
	else if (hypercall_is_vmcall)
		asm volatile("vmcall" : "=a"(ret) : "a"(nr), "D"(a0), "S"(a1) : "memory");
	else
		asm volatile("vmmcall" : "=a"(ret) : "a"(nr), "D"(a0), "S"(a1) : "memory");
	return ret;
}
