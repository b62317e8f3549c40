// SPDX-License-Identifier: MIT
/*
 * VMX detection.  The VMX backend proper (VMCS, EPT, VMLAUNCH loop) is
 * not in this build yet; until it is, an Intel host gets an exact account
 * of what it has and a clear refusal instead of a hang.
 */
#include "vmx.h"
#include "status.h"
#include "x86.h"

/* IA32_FEATURE_CONTROL bits (SDM Vol 3 §24.7, Vol 4 Table 2-2) */
#define FEATURE_CONTROL_LOCK BIT(0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX BIT(2)

const struct backend_ops *vmx_probe(const char **why, int *status)
{
	u64 fc = rdmsr(MSR_IA32_FEATURE_CONTROL);

	*status = MHV_NO_VIRT;
	if ((fc & FEATURE_CONTROL_LOCK) && !(fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)) {
		*why = "VMX disabled by firmware (IA32_FEATURE_CONTROL locked with "
		       "VMX-outside-SMX=0): enable VT-x in the BIOS setup";
		return NULL;
	}
	*why = "VMX is available but this build of mhv has only the SVM backend "
	       "(the VMX backend is not implemented yet)";
	return NULL;
}
