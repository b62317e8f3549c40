/* SPDX-License-Identifier: MIT */
#ifndef MHV_CPU_FEATURES_H
#define MHV_CPU_FEATURES_H

#include "lib/types.h"
#include "arch/x86.h"
#include "cpuid_subleaf.h"

#define CPUID_STD_CACHED 0x20 /* leaves 0x0..0x1f */
#define CPUID_EXT_BASE 0x80000000u
#define CPUID_EXT_CACHED 0x29 /* leaves 0x80000000..0x80000028 */
/* the instructions that read TSC_AUX (SDM Vol 2A CPUID) */
#define CPUID_EXT1_EDX_RDTSCP BIT(27) /* leaf 8000_0001 */
#define CPUID7_ECX_RDPID BIT(22)      /* leaf 7, subleaf 0 */
/* the features that bring MSRs of their own (SDM Vol 2A CPUID) */
#define CPUID1_EDX_DS BIT(21)	   /* IA32_DS_AREA */
#define CPUID1_EDX_MCA BIT(14)	   /* IA32_MCG_CAP and the banks */
#define CPUID1_ECX_MONITOR BIT(3)  /* IA32_MISC_ENABLE[18] */
#define CPUID1_ECX_X2APIC BIT(21)  /* the x2APIC MSRs, IA32_APIC_BASE.EXTD */
#define CPUID7_EBX_INVPCID BIT(10) /* VMX runs it only with "enable INVPCID" */
#define CPUID7_ECX_PKS BIT(31)	   /* IA32_PKRS */

enum cpu_vendor {
	VENDOR_OTHER,
	VENDOR_AMD,
	VENDOR_INTEL
};

/*
 * Host CPUID, read once at init.  Nothing on an exit path executes host
 * CPUID: guest answers and feature checks come from here.
 */
struct cpuid_cache {
	u32 max_std, max_ext;
	struct cpuid_regs std[CPUID_STD_CACHED]; /* sub-leaf 0 */
	struct cpuid_regs ext[CPUID_EXT_CACHED];
	struct cpuid_regs leaf7_1;
	struct cpuid_subleaves subs; /* sub-leaves 1.. of the indexed leaves */
	/* guests' views: bit n set when leaf n is std[n] (ext[n]) as it is,
	 * for any vCPU and sub-leaf (core/fast_exit.h) */
	u32 fast_std;
	u64 fast_ext;
};

struct cpu_features {
	bool svm, npt, nrips, vmcb_clean, decode_assists, pause_filter, vgif, flush_by_asid;
	bool vmx, hypervisor, x2apic, tsc_deadline, xsave, rdtscp, invariant_tsc, gbpages, nx;
	bool perfctr_core, ibpb, spec_ctrl, autoibrs;
};

struct host_cpu {
	enum cpu_vendor vendor;
	char vendor_id[13];
	char brand[49];
	u32 family, model, stepping;
	u32 phys_bits;
	u32 nr_asids;	   /* SVM: CPUID 8000_000A EBX */
	u32 microcode_rev; /* 0: not readable (platform/machine.c) */
	struct cpu_features has;
	struct cpuid_cache cpuid;
};

extern struct host_cpu host_cpu;

void cpu_probe(void);
/* Cached host answer for (leaf, subleaf); false when the leaf is not cached. */
bool cpuid_cached(u32 leaf, u32 subleaf, struct cpuid_regs *out);
/* Space-separated names of the features present, for the environment header. */
void cpu_features_describe(char *buf, size_t size);

#endif
