// SPDX-License-Identifier: MIT
/*
 * The IA32_XSS allowlist.  XSAVES and XRSTORS run natively in guests (no
 * XSS-exiting on VMX, no intercept on SVM), so every component a guest may
 * set in IA32_XSS is loaded straight into the CPU's registers, and stays
 * there when the VM ends: mhv switches no XSAVE state (DESIGN §4).  A
 * component is allowed only when its registers do nothing in the host and
 * xstate_cpu_reset puts it back in its init state where each vCPU starts.
 * The components: SDM Vol 1 §13.1, §13.5; CPUID.(EAX=0DH,ECX=1):EDX:ECX.
 */
#include "xss_allow.h"

static const struct {
	u8 bit;
	const char *name;
	const char *withheld; /* NULL: guests get it */
} xss_components[] = {
	/* XRSTORS would load IA32_RTIT_CTL and the output MSRs, which hold
	 * host physical addresses without VMX's "Intel PT uses guest physical
	 * addresses" (SDM Vol 1 §13.5.6; Vol 3 ch. 33) */
	{ 8, "PT", "would trace into host physical memory" },
	/* IA32_PASID, the PASID ENQCMD puts in its commands */
	{ 10, "PASID", "mhv assigns no devices and translates no PASIDs" },
	/* IA32_U_CET, IA32_PL3_SSP: they act only with CR4.CET set, which
	 * mhv's host code never sets */
	{ 11, "CET_U", NULL },
	/* IA32_PL0_SSP..PL2_SSP: likewise */
	{ 12, "CET_S", NULL },
	/* IA32_PM_CTL1, whether this logical processor takes part in hardware
	 * duty cycling (SDM Vol 3B §14.5.3) */
	{ 13, "HDC", "the core's power policy, which outlives the VM" },
	/* UIF, UINV, the UPID and UITT addresses: user-interrupt notification
	 * is a physical interrupt vector */
	{ 14, "UINTR", "mhv does not virtualize user-interrupt notification" },
	/* architectural LBRs: the guests' CPUID hides them (pmu/pmu_cpuid.c) */
	{ 15, "LBR", "guests have no architectural LBRs" },
	/* IA32_HWP_REQUEST, the core's performance hints (SDM Vol 3B §14.4.4) */
	{ 16, "HWP", "the core's power policy, which outlives the VM" },
};

u64 xstate_xss_allowed(void)
{
	u64 allowed = 0;
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(xss_components); i++)
		if (!xss_components[i].withheld)
			allowed |= BIT(xss_components[i].bit);
	return allowed;
}

const char *xstate_xss_withheld(unsigned bit, const char **name)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(xss_components); i++) {
		if (xss_components[i].bit == bit) {
			*name = xss_components[i].name;
			return xss_components[i].withheld;
		}
	}
	*name = "unknown";
	return "not known to mhv";
}

u64 xstate_xss_restrict(struct xstate_cpuid_leaf *leaves, unsigned n)
{
	u64 allowed = xstate_xss_allowed(), host;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (leaves[i].subleaf != 1)
			continue;
		host = (u64)leaves[i].edx << 32 | leaves[i].ecx;
		leaves[i].ecx &= (u32)allowed;
		leaves[i].edx &= (u32)(allowed >> 32);
		return host & ~allowed;
	}
	return 0;
}
