/* SPDX-License-Identifier: MIT */
/* The VMX instructions, as inline functions (SDM Vol 3 Chapter 31). */
#ifndef MHV_VMX_INSN_H
#define MHV_VMX_INSN_H

#include "lib/types.h"

/* How a VMX instruction ended (§31.2): VMfailInvalid sets CF and leaves no
 * error number (no current VMCS to hold it), VMfailValid sets ZF and the
 * VM-instruction error field.  The bool wrappers below test both with "na". */
enum vmx_status {
	VMX_SUCCEED,
	VMX_FAIL_INVALID,
	VMX_FAIL_VALID,
};

/* VMXON: outside VMX operation there is no VMCS to ask, so the flags tell. */
static inline enum vmx_status vmxon(u64 pa)
{
	bool cf, zf;

	asm volatile("vmxon %2; setc %0; setz %1"
		     : "=qm"(cf), "=qm"(zf)
		     : "m"(pa)
		     : "cc", "memory");
	return cf ? VMX_FAIL_INVALID : zf ? VMX_FAIL_VALID : VMX_SUCCEED;
}

/* The current-VMCS pointer, all ones when there is none (VMPTRST, §31.3). */
static inline u64 vmptrst(void)
{
	u64 pa;

	asm volatile("vmptrst %0" : "=m"(pa) : : "memory");
	return pa;
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

/* Straight into memory: one instruction fewer than vmread() and a store. */
static inline void vmread_to(u64 field, u64 *dst)
{
	asm volatile("vmread %1, %0" : "=m"(*dst) : "r"(field) : "cc");
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

/* INVEPT/INVVPID of a type (INVEPT_*, INVVPID_*); descriptors: §31.3 */
static inline void invept(u64 type, u64 eptp)
{
	struct {
		u64 eptp, reserved;
	} desc = { eptp, 0 };

	asm volatile("invept %0, %1" ::"m"(desc), "r"(type) : "cc", "memory");
}

static inline void invvpid(u64 type, u16 vpid)
{
	struct {
		u64 vpid, linear;
	} desc = { vpid, 0 };

	asm volatile("invvpid %0, %1" ::"m"(desc), "r"(type) : "cc", "memory");
}

#endif
