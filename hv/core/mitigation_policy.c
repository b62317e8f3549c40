// SPDX-License-Identifier: MIT
/*
 * The "mitigations = auto" decision (mitigation_policy.h).  Which CPUs are
 * affected follows Linux arch/x86/kernel/cpu/common.c (cpu_vuln_blacklist:
 * AMD family 17h RETBLEED | SRSO, 19h SRSO | TSA, 1Ah SRSO) and amd.c;
 * what each duty needs follows the manuals, cited where decided.
 */
#include "mitigation_policy.h"
#include "arch/spec_ctrl.h"

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

static bool amd(const struct spec_cpu *c)
{
	return c->vendor == SPEC_VENDOR_AMD;
}

static bool spec_cpu_has_ibpb(const struct spec_cpu *c)
{
	return (c->ext8_ebx & EXT8_EBX_IBPB) || (c->std7_edx & STD7_EDX_IBRS_IBPB);
}

/*
 * IBPB flushes return and branch-type predictions too: the enumeration,
 * or Zen 1/2's IBPB, or (family 19h on) the microcode that also brought
 * PRED_CMD.SBPB (Linux amd.c early_init_amd; APM Vol 2 §3.2.9).
 */
static bool ibpb_brtype(const struct spec_cpu *c)
{
	return (c->ext21_eax & EXT21_EAX_IBPB_BRTYPE) ||
	       (c->family == 0x17 && spec_cpu_has_ibpb(c)) || (c->family >= 0x19 && c->sbpb_probe);
}

/*
 * SRSO (AMD-SB-7005) from guest to host; on family 17h the same IBPB
 * answers retbleed (Linux bugs.c: "If SRSO is using IBPB, that works for
 * retbleed too").  Linux bugs.c srso_select_mitigation: with
 * SRSO_USER_KERNEL_NO, IBPB on VMEXIT, or BP_CFG.BpSpecReduce where
 * SRSO_MSR_FIX says it suffices (KVM sets it while VMs exist, commit
 * 8442df2b49ed); IBPB needs the IBPB_BRTYPE microcode.  mhv has no return
 * thunks for Linux's default "safe RET", so elsewhere too the answer is
 * IBPB on VMEXIT, Linux's choice for untrusted guests and a trusted host
 * (mhv has no user space).  Zen 1/2 without SMT are not affected (Linux);
 * mhv does not look at SMT.
 */
static void decide_srso(const struct spec_cpu *c, struct spec_decision *d)
{
	bool retbleed = c->family >= 0x15 && c->family <= 0x17 && !(c->ext8_ebx & EXT8_EBX_BTC_NO);
	bool srso = c->family == 0x17 || c->family == 0x19 || c->family == 0x1a;

	if (!amd(c) || (!retbleed && !srso)) {
		d->why[SPEC_SRSO] = "SRSO: not affected (not AMD family 17h, 19h or 1Ah)";
		return;
	}
	if (!retbleed && (c->ext21_eax & EXT21_EAX_SRSO_NO)) {
		d->why[SPEC_SRSO] = "SRSO: not affected (8000_0021 EAX[29] SRSO_NO)";
		return;
	}
	if ((c->ext21_eax & EXT21_EAX_SRSO_USER_KERNEL_NO) &&
	    (c->ext21_eax & EXT21_EAX_SRSO_MSR_FIX)) {
		d->host_ctl |= HOST_BP_SPEC_REDUCE;
		d->why[SPEC_SRSO] = "SRSO: BP_CFG.BpSpecReduce while a VM runs (8000_0021 EAX[31] "
				    "SRSO_MSR_FIX, EAX[30] SRSO_USER_KERNEL_NO)";
		return;
	}
	if (!spec_cpu_has_ibpb(c)) {
		d->why[SPEC_SRSO] = "SRSO/retbleed: NOT mitigated, the CPU has no IBPB "
				    "(8000_0008 EBX[12])";
		return;
	}
	if (!ibpb_brtype(c)) {
		d->why[SPEC_SRSO] = "SRSO/retbleed: NOT mitigated, IBPB without the microcode "
				    "that flushes branch types (8000_0021 EAX[28] IBPB_BRTYPE)";
		return;
	}
	d->exit_duties |= DUTY_IBPB;
	d->why[SPEC_SRSO] = "SRSO/retbleed: IBPB after every exit (no 8000_0021 EAX[31] "
			    "SRSO_MSR_FIX; IBPB_BRTYPE)";
}

/*
 * The first indirect branch after an exit: hardware IBRS where it runs by
 * itself, else the IBPB after every exit (SRSO) already emptied the
 * predictions, else a retpoline (Linux bugs.c spectre_v2_select_mitigation:
 * eIBRS, else the generic retpoline).
 */
static void decide_bti(const struct spec_cpu *c, struct spec_decision *d)
{
	if (amd(c) && (c->ext21_eax & EXT21_EAX_AUTOIBRS)) {
		/* APM Vol 2 §3.1.7 EFER.AIBRSE: CPL 0 runs IBRS-protected */
		d->host_ctl |= HOST_AUTOIBRS;
		d->why[SPEC_BTI] = "AutoIBRS: EFER.AIBRSE set while a VM runs "
				   "(8000_0021 EAX[8])";
	} else if (c->vendor == SPEC_VENDOR_INTEL && (c->arch_caps & ARCH_CAP_IBRS_ALL)) {
		d->host_ctl |= HOST_EIBRS;
		d->why[SPEC_BTI] = "eIBRS: SPEC_CTRL.IBRS set while a VM runs "
				   "(ARCH_CAPABILITIES[1] IBRS_ALL)";
	} else if (d->exit_duties & DUTY_IBPB) {
		d->why[SPEC_BTI] = "no AutoIBRS or eIBRS: the IBPB after every exit runs before "
				   "the first indirect call";
	} else {
		d->exit_duties |= DUTY_RETPOLINE;
		d->why[SPEC_BTI] = "retpoline for the first indirect call after an exit (no "
				   "AutoIBRS 8000_0021 EAX[8], no eIBRS ARCH_CAPABILITIES[1])";
	}
}

/* The return predictor after an exit (APM Vol 2 §3.2.9 "Return Address
 * Predictor"; Linux bugs.c spectre_v2_select_rsb_mitigation) */
static void decide_rsb(const struct spec_cpu *c, struct spec_decision *d)
{
	if (amd(c) && (c->ext21_eax & EXT21_EAX_ERAPS)) {
		d->why[SPEC_RSB] = "no RSB fill: ERAPS keeps host and guest return predictions "
				   "apart (8000_0021 EAX[24])";
	} else if (d->host_ctl & HOST_AUTOIBRS) {
		/* APM Vol 2 §3.1.7: with AIBRSE and without ERAPS */
		d->why[SPEC_RSB] = "no RSB fill: with AutoIBRS the CPU clears the return "
				   "predictor at #VMEXIT";
	} else if ((d->exit_duties & DUTY_IBPB) && (c->ext8_ebx & EXT8_EBX_IBPB_RET)) {
		d->why[SPEC_RSB] = "no RSB fill: the IBPB after every exit clears the return "
				   "predictor (8000_0008 EBX[30] IBPB_RET)";
	} else if ((d->host_ctl & HOST_EIBRS) && (c->arch_caps & ARCH_CAP_PBRSB_NO)) {
		d->why[SPEC_RSB] = "no RSB fill: eIBRS without PBRSB "
				   "(ARCH_CAPABILITIES[24] PBRSB_NO)";
	} else if (d->host_ctl & HOST_EIBRS) {
		d->exit_duties |= DUTY_RSB_LITE;
		d->why[SPEC_RSB] = "one CALL retired after every exit: PBRSB (eIBRS without "
				   "ARCH_CAPABILITIES[24] PBRSB_NO)";
	} else {
		d->exit_duties |= DUTY_RSB_FILL;
		d->why[SPEC_RSB] = "RSB fill (32 CALLs) after every exit: no ERAPS, AutoIBRS "
				   "or eIBRS";
	}
}

/*
 * VERW before entry: Intel's MDS (existing MD_CLEAR microcode makes VERW
 * clear the buffers; SDM Vol 2 VERW), AMD's TSA on family 19h only
 * (AMD-SB-7029; Linux amd.c tsa_init: every other family is not affected
 * on bare metal).
 */
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

static const char *verw_amd(const struct spec_cpu *c, struct spec_decision *d)
{
	if (c->family != 0x19)
		return "no VERW: TSA affects AMD family 19h only";
	if ((c->ext21_ecx & EXT21_ECX_TSA_SQ_NO) && (c->ext21_ecx & EXT21_ECX_TSA_L1_NO))
		return "no VERW: not affected by TSA (8000_0021 ECX[1] TSA_SQ_NO, ECX[2] "
		       "TSA_L1_NO)";
	if (!(c->ext21_eax & EXT21_EAX_VERW_CLEAR))
		return "no VERW: TSA (family 19h) NOT mitigated, no microcode that makes VERW "
		       "clear it (8000_0021 EAX[5] VERW_CLEAR)";
	d->exit_duties |= DUTY_VERW;
	return "VERW before every entry: TSA (family 19h; 8000_0021 EAX[5] VERW_CLEAR)";
}

/*
 * VERW before entry: Intel's MDS, where the MD_CLEAR microcode makes VERW
 * clear the buffers (SDM Vol 2 VERW); AMD's TSA on family 19h only
 * (AMD-SB-7029; Linux amd.c tsa_init: no other family is affected on
 * bare metal), where VERW_CLEAR says VERW clears its state.
 */
static void decide_verw(const struct spec_cpu *c, struct spec_decision *d)
{
	if (c->vendor == SPEC_VENDOR_INTEL)
		d->why[SPEC_VERW] = verw_intel(c, d);
	else if (amd(c))
		d->why[SPEC_VERW] = verw_amd(c, d);
	else
		d->why[SPEC_VERW] = "no VERW: neither Intel's MDS nor AMD's TSA applies";
}

void mitigation_decide(const struct spec_cpu *c, struct spec_decision *d)
{
	*d = (struct spec_decision){ .exit_duties = DUTY_CLEAR_REGS };
	d->why[SPEC_REGS] = "guest GPRs cleared after every exit";
	decide_srso(c, d); /* first: its IBPB decides the two below */
	decide_bti(c, d);
	decide_rsb(c, d);
	decide_verw(c, d);
	d->ibpb_switch = spec_cpu_has_ibpb(c);
	d->why[SPEC_SWITCH] = d->ibpb_switch ? "IBPB when a vCPU takes its CPU"
					     : "no IBPB when a vCPU takes its CPU (the CPU has "
					       "none)";
}
