// SPDX-License-Identifier: MIT
#include "vmx_controls.h"
#include "lib/fmt.h"
#include "vmcs.h"

int vmx_adjust_controls(u64 cap, u32 required, u32 optional, u32 *out, u32 *missing)
{
	u32 must_be_one = (u32)cap, may_be_one = (u32)(cap >> 32);

	*missing = required & ~may_be_one;
	if (*missing)
		return -1;
	*out = must_be_one | required | (optional & may_be_one);
	return 0;
}

/* SDM Vol 3 §31.4, Table 31-1 */
static const char *const instruction_errors[] = {
	[1] = "VMCALL executed in VMX root operation",
	[2] = "VMCLEAR with invalid physical address",
	[3] = "VMCLEAR with VMXON pointer",
	[4] = "VMLAUNCH with non-clear VMCS",
	[5] = "VMRESUME with non-launched VMCS",
	[6] = "VMRESUME after VMXOFF",
	[7] = "VM entry with invalid control field(s)",
	[8] = "VM entry with invalid host-state field(s)",
	[9] = "VMPTRLD with invalid physical address",
	[10] = "VMPTRLD with VMXON pointer",
	[11] = "VMPTRLD with incorrect VMCS revision identifier",
	[12] = "VMREAD/VMWRITE from/to unsupported VMCS component",
	[13] = "VMWRITE to read-only VMCS component",
	[15] = "VMXON executed in VMX root operation",
	[16] = "VM entry with invalid executive-VMCS pointer",
	[17] = "VM entry with non-launched executive VMCS",
	[18] = "VM entry with executive-VMCS pointer not VMXON pointer",
	[19] = "VMCALL with non-clear VMCS",
	[20] = "VMCALL with invalid VM-exit control fields",
	[22] = "VMCALL with incorrect MSEG revision identifier",
	[23] = "VMXOFF under dual-monitor treatment",
	[24] = "VMCALL with invalid SMM-monitor features",
	[25] = "VM entry with invalid VM-execution control fields in executive VMCS",
	[26] = "VM entry with events blocked by MOV SS",
	[28] = "invalid operand to INVEPT/INVVPID",
};

/* SDM Vol 3 Appendix C, Table C-1 */
static const char *const exit_reasons[] = {
	[0] = "exception or NMI",
	[1] = "external interrupt",
	[2] = "triple fault",
	[3] = "INIT signal",
	[4] = "SIPI",
	[7] = "interrupt window",
	[8] = "NMI window",
	[9] = "task switch",
	[10] = "CPUID",
	[11] = "GETSEC",
	[12] = "HLT",
	[13] = "INVD",
	[14] = "INVLPG",
	[15] = "RDPMC",
	[16] = "RDTSC",
	[17] = "RSM",
	[18] = "VMCALL",
	[19] = "VMCLEAR",
	[20] = "VMLAUNCH",
	[21] = "VMPTRLD",
	[22] = "VMPTRST",
	[23] = "VMREAD",
	[24] = "VMRESUME",
	[25] = "VMWRITE",
	[26] = "VMXOFF",
	[27] = "VMXON",
	[28] = "control-register access",
	[29] = "MOV DR",
	[30] = "I/O instruction",
	[31] = "RDMSR",
	[32] = "WRMSR",
	[33] = "VM-entry failure: invalid guest state",
	[34] = "VM-entry failure: MSR loading",
	[36] = "MWAIT",
	[37] = "monitor trap flag",
	[39] = "MONITOR",
	[40] = "PAUSE",
	[41] = "VM-entry failure: machine check",
	[43] = "TPR below threshold",
	[44] = "APIC access",
	[45] = "virtualized EOI",
	[46] = "GDTR/IDTR access",
	[47] = "LDTR/TR access",
	[48] = "EPT violation",
	[49] = "EPT misconfiguration",
	[50] = "INVEPT",
	[51] = "RDTSCP",
	[52] = "VMX-preemption timer expired",
	[53] = "INVVPID",
	[54] = "WBINVD",
	[55] = "XSETBV",
	[56] = "APIC write",
	[57] = "RDRAND",
	[58] = "INVPCID",
	[59] = "VMFUNC",
	[60] = "ENCLS",
	[61] = "RDSEED",
	[62] = "page-modification log full",
	[63] = "XSAVES",
	[64] = "XRSTORS",
};

const char *vmx_instruction_error_name(u32 error)
{
	const char *s = error < ARRAY_SIZE(instruction_errors) ? instruction_errors[error] : NULL;

	return s ? s : "unknown VM-instruction error";
}

const char *vmx_exit_reason_name(u32 reason)
{
	const char *s;

	reason &= 0xffff;
	s = reason < ARRAY_SIZE(exit_reasons) ? exit_reasons[reason] : NULL;
	return s ? s : "unknown exit reason";
}

const char *vmx_failure_text(u32 error, char *buf, size_t size)
{
	if (!error)
		fmt_snprintf(buf, size, "VMfailInvalid (no current VMCS to hold an error number)");
	else
		fmt_snprintf(buf, size, "VM-instruction error %u (%s)", error,
			     vmx_instruction_error_name(error));
	return buf;
}

/* Exit qualifications of a failed guest-state load (§27.8) */
#define ENTRY_FAIL_PDPTE 2
#define ENTRY_FAIL_NMI 3
#define ENTRY_FAIL_VMCS_LINK 4

const char *vmx_entry_failure_text(u32 reason, u64 qual, char *buf, size_t size)
{
	switch (reason & 0xffff) {
	case EXIT_REASON_INVALID_GUEST_STATE:
		if (qual == ENTRY_FAIL_PDPTE)
			fmt_snprintf(buf, size, "loading the guest's PAE PDPTEs failed");
		else if (qual == ENTRY_FAIL_NMI)
			fmt_snprintf(buf, size, "NMI injected while STI blocks events");
		else if (qual == ENTRY_FAIL_VMCS_LINK)
			fmt_snprintf(buf, size, "invalid VMCS link pointer");
		else
			return NULL;
		return buf;
	case EXIT_REASON_MSR_LOADING:
		fmt_snprintf(buf, size, "VM-entry MSR-load entry %llu failed", qual);
		return buf;
	case EXIT_REASON_MACHINE_CHECK:
		fmt_snprintf(buf, size, "a machine check during VM entry");
		return buf;
	}
	return NULL;
}

const char *vmx_choose_flush(u64 ept_vpid_cap, bool vpid, struct vmx_flush *out)
{
	*out = (struct vmx_flush){ 0, 0 };
	if (!(ept_vpid_cap & EPT_CAP_INVEPT))
		return "EPT without INVEPT (IA32_VMX_EPT_VPID_CAP bit 20): mhv could not flush "
		       "what a VM's EPT pages cached for an earlier VM";
	if (ept_vpid_cap & EPT_CAP_INVEPT_GLOBAL)
		out->invept_type = INVEPT_ALL_CONTEXT;
	else if (ept_vpid_cap & EPT_CAP_INVEPT_SINGLE)
		out->invept_type = INVEPT_SINGLE_CONTEXT;
	else
		return "INVEPT with neither single- nor all-context type (IA32_VMX_EPT_VPID_CAP "
		       "bits 25, 26): mhv could not flush what a VM's EPT pages cached for an "
		       "earlier VM";
	if (vpid && (ept_vpid_cap & VPID_CAP_INVVPID)) {
		if (ept_vpid_cap & VPID_CAP_INVVPID_ALL)
			out->invvpid_type = INVVPID_ALL_CONTEXT;
		else if (ept_vpid_cap & VPID_CAP_INVVPID_SINGLE)
			out->invvpid_type = INVVPID_SINGLE_CONTEXT;
	}
	return NULL;
}
