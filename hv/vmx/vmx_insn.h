/* SPDX-License-Identifier: MIT */
/* The VMX instructions, as inline functions (SDM Vol 3 Chapter 31). */
#ifndef MHV_VMX_INSN_H
#define MHV_VMX_INSN_H

#include "lib/types.h"

/* VMfailInvalid sets CF, VMfailValid sets ZF (§31.2): "na" catches both. */
static inline bool vmxon(u64 pa)
{
	bool fail;

	asm volatile("vmxon %1; setna %0" : "=qm"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}

static inline bool vmclear(u64 pa)
{
	bool fail;

	asm volatile("vmclear %1; setna %0" : "=qm"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}

static inline bool vmptrld(u64 pa)
{
	bool fail;

	asm volatile("vmptrld %1; setna %0" : "=qm"(fail) : "m"(pa) : "cc", "memory");
	return !fail;
}

static inline u64 vmread(u64 field)
{
	u64 v;

	asm volatile("vmread %1, %0" : "=r"(v) : "r"(field) : "cc");
	return v;
}

static inline void vmwrite(u64 field, u64 v)
{
	asm volatile("vmwrite %1, %0" ::"r"(field), "r"(v) : "cc");
}

static inline bool vmwrite_checked(u64 field, u64 v)
{
	bool fail;

	asm volatile("vmwrite %2, %1; setna %0" : "=qm"(fail) : "r"(field), "r"(v) : "cc");
	return !fail;
}

/* INVEPT/INVVPID descriptors: §31.3 */
static inline void invept_global(void)
{
	struct {
		u64 eptp, reserved;
	} desc = { 0, 0 };

	asm volatile("invept %0, %1" ::"m"(desc), "r"(2ull) : "cc", "memory");
}

static inline void invvpid_all(void)
{
	struct {
		u64 vpid, linear;
	} desc = { 0, 0 };

	asm volatile("invvpid %0, %1" ::"m"(desc), "r"(2ull) : "cc", "memory");
}

#endif
