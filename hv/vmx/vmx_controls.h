/* SPDX-License-Identifier: MIT */
#ifndef MHV_VMX_CONTROLS_H
#define MHV_VMX_CONTROLS_H

#include "lib/types.h"

/*
 * A VMX control field from its capability MSR (SDM Vol 3 Appendix A.3-A.5):
 * bits 31:0 are the allowed-0 settings (a 1 there must be 1), bits 63:32
 * the allowed-1 settings (a 0 there must be 0).  required bits must be
 * available, optional ones are used where they are.  Returns 0 and the
 * value in *out, or -1 with the required bits the CPU lacks in *missing.
 */
int vmx_adjust_controls(u64 cap, u32 required, u32 optional, u32 *out, u32 *missing);

/*
 * How mhv flushes what a VM's EPT pages and VPID may still have cached
 * from an earlier VM (SDM Vol 3 §29.4.3), from IA32_VMX_EPT_VPID_CAP
 * (Appendix A.10): the INVEPT type, all-context where the CPU has it,
 * else single-context on the new VM's EPTP (its translations are tagged
 * with that EPTP's EP4TA, §29.4.2); the INVVPID type likewise, 0 when
 * VPID is off.  Without an INVVPID type VPID is left off (entries and
 * exits then flush the guest's translations themselves, §29.4.3.1).
 * NULL, or why the CPU cannot run VMX guests safely: no INVEPT type.
 */
struct vmx_flush {
	u8 invept_type, invvpid_type;
};
const char *vmx_choose_flush(u64 ept_vpid_cap, bool vpid, struct vmx_flush *out);

/* CR0/CR4 under VMX: bits set in fixed0 must be 1, bits clear in fixed1 must be 0
 * (Appendix A.7, A.8). */
static inline u64 vmx_fix_cr(u64 value, u64 fixed0, u64 fixed1)
{
	return (value | fixed0) & fixed1;
}

/* Names for messages: the VM-instruction error (§31.4) and exit reasons (Appendix C). */
const char *vmx_instruction_error_name(u32 error);
const char *vmx_exit_reason_name(u32 reason);

/*
 * Why a VMX instruction failed, for messages: "VM-instruction error 12
 * (VMREAD/VMWRITE from/to unsupported VMCS component)", or for error 0,
 * which stands for VMfailInvalid, that there was no current VMCS to hold a
 * number (§31.2).  Returns buf.
 */
const char *vmx_failure_text(u32 error, char *buf, size_t size);

/*
 * What the qualification of a VM-entry failure exit (reason bit 31) says
 * (§27.8): buf, or NULL when it says nothing beyond the reason (invalid
 * guest state with qualification 0: a guest-state check failed).
 */
const char *vmx_entry_failure_text(u32 reason, u64 qual, char *buf, size_t size);

#endif
