// SPDX-License-Identifier: MIT
/*
 * What "mitigations = auto" turns on, from the CPU's own report (cached
 * CPUID, IA32_ARCH_CAPABILITIES read once here, never on an exit):
 * - RSB fill after every exit: the host runs no IBRS and mhv's returns
 *   would otherwise consume return predictions the guest trained
 *   (Spectre v2 / RSB underflow; Intel "Retpoline" whitepaper, AMD
 *   "Software techniques for managing speculation").  On every CPU.
 * - IBPB when a vCPU takes its CPU: each vCPU runs once, start to end,
 *   on its CPU (vm_vcpu_run), so this is where one VM follows another.
 *   Where the CPU has IBPB (CPUID 8000_0008 EBX[12], CPUID 7 EDX[26]).
 * - VERW before VM entry on CPUs affected by MDS (SDM Vol 2 VERW; Intel
 *   "Microarchitectural Data Sampling" guidance): Intel, without
 *   ARCH_CAPABILITIES.MDS_NO, with the MD_CLEAR microcode (CPUID 7
 *   EDX[10]) that makes VERW clear the buffers.
 */
#include "mitigations.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "arch/msr.h"
#include "arch/x86.h"

#define CPUID7_EDX_MD_CLEAR BIT(10)
#define CPUID7_EDX_ARCH_CAPABILITIES BIT(29)
#define ARCH_CAP_MDS_NO BIT(5)

struct mitigations mitigations;

static const char *verw_needed(void)
{
	u32 edx = host_cpu.cpuid.max_std >= 7 ? host_cpu.cpuid.std[7].edx : 0;
	u64 caps = 0;

	if (host_cpu.vendor != VENDOR_INTEL)
		return "no VERW (not an Intel CPU: MDS does not apply)";
	if ((edx & CPUID7_EDX_ARCH_CAPABILITIES) &&
	    rdmsr_safe(MSR_IA32_ARCH_CAPABILITIES, &caps) == 0 && (caps & ARCH_CAP_MDS_NO))
		return "no VERW (ARCH_CAPABILITIES.MDS_NO: not affected by MDS)";
	if (!(edx & CPUID7_EDX_MD_CLEAR))
		return "no VERW (affected by MDS, but no MD_CLEAR: VERW would not clear the "
		       "buffers)";
	return NULL;
}

void mitigations_init(void)
{
	mitigations.exit_duties = DUTY_RSB_FILL;
	mitigations.rsb_why = "RSB fill after every exit";
	mitigations.verw_why = verw_needed();
	if (!mitigations.verw_why) {
		mitigations.exit_duties |= DUTY_VERW;
		mitigations.verw_why = "VERW before every entry (MDS)";
	}
	mitigations.ibpb = host_cpu.has.ibpb || host_cpu.has.spec_ctrl;
	mitigations.ibpb_why =
	    mitigations.ibpb ? "IBPB when a vCPU takes its CPU" : "no IBPB (the CPU has none)";
}

void mitigations_describe(bool off)
{
	console_printf("mhv: mitigations: %s: %s, %s, %s; guest indexes clamped\n",
		       off ? "off (mhv.cfg), auto would take" : "auto", mitigations.rsb_why,
		       mitigations.ibpb_why, mitigations.verw_why);
}
