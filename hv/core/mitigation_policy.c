// SPDX-License-Identifier: MIT
/* The "mitigations = auto" decision (mitigation_policy.h). */
#include "mitigation_policy.h"

/* CPUID 7.0 EDX (SDM Vol 2A CPUID) */
#define STD7_EDX_MD_CLEAR BIT(10)  /* VERW clears the CPU's buffers */
#define STD7_EDX_IBRS_IBPB BIT(26) /* SPEC_CTRL.IBRS and PRED_CMD.IBPB */
/* CPUID 8000_0008 EBX (APM Vol 3 Appendix E; Vol 2 §3.2.9) */
#define EXT8_EBX_IBPB BIT(12)
/* IA32_ARCH_CAPABILITIES (SDM Vol 4 Table 2-2; Linux msr-index.h) */
#define ARCH_CAP_MDS_NO BIT(5)

#define F(set) (DUTY_CLEAR_REGS | (set))
const u8 duty_sets[DUTY_SETS] = {
	0,
	F(0),
	F(DUTY_VERW),
	F(DUTY_RSB_LITE),
	F(DUTY_RSB_LITE | DUTY_VERW),
	F(DUTY_RETPOLINE),
	F(DUTY_RETPOLINE | DUTY_VERW),
	F(DUTY_RETPOLINE | DUTY_RSB_FILL),
	F(DUTY_RETPOLINE | DUTY_RSB_FILL | DUTY_VERW),
	F(DUTY_IBPB),
	F(DUTY_IBPB | DUTY_VERW),
	F(DUTY_IBPB | DUTY_RSB_FILL),
	F(DUTY_IBPB | DUTY_RSB_FILL | DUTY_VERW),
};
#undef F

int duty_set_index(u8 duties)
{
	int i;

	for (i = 0; i < DUTY_SETS; i++)
		if (duty_sets[i] == duties)
			return i;
	return -1;
}

bool duty_sets_match(const u8 *list)
{
	int i;

	for (i = 0; i < DUTY_SETS; i++)
		if (list[i] != duty_sets[i])
			return false;
	return list[DUTY_SETS] == 0xff;
}

static bool has_ibpb(const struct spec_cpu *c)
{
	return (c->ext8_ebx & EXT8_EBX_IBPB) || (c->std7_edx & STD7_EDX_IBRS_IBPB);
}

static const char *verw_intel(const struct spec_cpu *c, struct spec_decision *d)
{
	if (c->arch_caps & ARCH_CAP_MDS_NO)
		return "no VERW: not affected by MDS (ARCH_CAPABILITIES[5] MDS_NO)";
	if (!(c->std7_edx & STD7_EDX_MD_CLEAR))
		return "no VERW: affected by MDS, but VERW would not clear the buffers (no "
		       "CPUID 7 EDX[10] MD_CLEAR)";
	d->exit_duties |= DUTY_VERW;
	return "VERW before every entry: MDS (no ARCH_CAPABILITIES[5] MDS_NO; CPUID 7 "
	       "EDX[10] MD_CLEAR)";
}

void mitigation_decide(const struct spec_cpu *c, struct spec_decision *d)
{
	*d = (struct spec_decision){ .exit_duties =
					 DUTY_CLEAR_REGS | DUTY_RSB_FILL | DUTY_RETPOLINE };
	d->why[SPEC_REGS] = "guest GPRs cleared after every exit";
	d->why[SPEC_BTI] = "retpoline for the first indirect call after an exit";
	d->why[SPEC_RSB] = "RSB fill (32 CALLs) after every exit";
	d->why[SPEC_SRSO] = "SRSO: not decided";
	d->why[SPEC_VERW] = c->vendor == SPEC_VENDOR_INTEL
				? verw_intel(c, d)
				: "no VERW (not an Intel CPU: MDS does not apply)";
	d->ibpb_switch = has_ibpb(c);
	d->why[SPEC_SWITCH] = d->ibpb_switch ? "IBPB when a vCPU takes its CPU"
					     : "no IBPB when a vCPU takes its CPU (the CPU has "
					       "none)";
}
