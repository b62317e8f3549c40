/* SPDX-License-Identifier: MIT */
#ifndef MHV_XSTATE_GUEST_H
#define MHV_XSTATE_GUEST_H

#include "arch/x86.h"
#include "xstate.h"

struct vcpu;

/* A vCPU's XSAVE-related state (its XCR0 is the one loaded while it runs). */
struct vcpu_xstate {
	u64 xcr0, xss;
	bool uncached;	 /* this VM re-executes CPUID.0xD (the A/B column) */
	bool memo_valid; /* the sizes below are for xcr0/xss */
	u32 memo_standard, memo_compacted;
};

extern struct xstate_cache host_xstate;

/* Fill the cache from host CPUID and print the per-sub-leaf CPUID cost table. */
void xstate_init(void);
/* An AP's CPUID.0xD against the BSP's cache; false with why when it differs. */
bool xstate_matches_this_cpu(char *why, size_t size);
/* A new vCPU: XCR0 = x87 only, as after reset (SDM Vol 1 §13.3); the
 * CPU's registers are reset by xstate_cpu_reset where it will run. */
void xstate_vcpu_reset(struct vcpu *vcpu, bool uncached);
/* On the CPU a new vCPU is about to enter: every XSAVE component a guest
 * can load (the user ones and the IA32_XSS ones xss_allow.c lets guests
 * have), x87 and MXCSR in their init state, XCR0 = x87 only, IA32_XSS = 0,
 * whatever the VM before left loaded (the host never switches them,
 * DESIGN §4).  Once per vCPU start, never on an exit. */
void xstate_cpu_reset(void);
void xstate_guest_cpuid(struct vcpu *vcpu, u32 subleaf, struct cpuid_regs *r);
/* false: #GP */
bool xstate_xsetbv(struct vcpu *vcpu, u32 index, u64 value);
bool xstate_xss_read(struct vcpu *vcpu, u64 *val);
bool xstate_xss_write(struct vcpu *vcpu, u64 val);

#endif
