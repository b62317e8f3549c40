// SPDX-License-Identifier: MIT
/*
 * The guest CPUID allowlist (cpuid_allow.h): which leaves a guest sees as
 * the host has them, which are feature leaves filtered bit by bit, and
 * which read as zeros.  A leaf or bit not in these tables is hidden.
 *
 * Bit positions: SDM Vol 2A, CPUID (Table 3-8, leaves 01H, 06H, 07H, 0DH;
 * Tables 3-10, 3-11); APM Vol 3 Appendix E.3 (standard) and E.4 (extended,
 * Fn8000_0001, _0007, _0008, _0021).  What mhv backs: the MSRs in
 * core/msr.c's lists, the CR4 bits in arch/ctlreg.c, the EFER bits in
 * core/msr.c's efer_write.
 */
#include "cpuid_allow.h"

enum leaf_rule {
	LEAF_HIDDEN,  /* zeros (also every leaf not in the table) */
	LEAF_PASSED,  /* the host's answer: topology, caches, names, no features */
	LEAF_FILTERED /* a feature leaf: each register keeps the bits allowed below */
};

struct leaf_rule_entry {
	u32 leaf;
	u8 rule;
	const char *why;
};

/* SDM Vol 2A Table 3-8; APM Vol 3 Appendix E. */
static const struct leaf_rule_entry leaf_rules[] = {
	{ 0x0, LEAF_PASSED, "highest leaf, vendor" },
	{ 0x1, LEAF_FILTERED, "version, features" },
	{ 0x2, LEAF_PASSED, "cache and TLB descriptors" },
	{ 0x4, LEAF_PASSED, "cache parameters" },
	{ 0x5, LEAF_PASSED, "MONITOR/MWAIT sizes (01H ECX[3] decides)" },
	{ 0x6, LEAF_FILTERED, "thermal and power management" },
	{ 0x7, LEAF_FILTERED, "structured extended features" },
	{ 0xa, LEAF_PASSED, "architectural PMU: pmu/pmu_cpuid.c" },
	{ 0xb, LEAF_PASSED, "topology (x2APIC ID per vCPU)" },
	{ 0xd, LEAF_PASSED, "XSAVE: answered by hv/xstate" },
	{ 0x14, LEAF_PASSED, "Intel PT: pmu/pmu_cpuid.c hides it" },
	{ 0x15, LEAF_PASSED, "TSC and crystal clock ratio" },
	{ 0x16, LEAF_PASSED, "processor frequency" },
	{ 0x17, LEAF_PASSED, "SoC vendor strings" },
	{ 0x18, LEAF_PASSED, "address translation parameters" },
	{ 0x1a, LEAF_PASSED, "hybrid core type" },
	{ 0x1c, LEAF_PASSED, "architectural LBRs: pmu/pmu_cpuid.c hides it" },
	{ 0x1f, LEAF_PASSED, "V2 topology (x2APIC ID per vCPU)" },
	/* hidden with their feature bits: 0x3 PSN, 0x9 DCA, 0xF/0x10 RDT,
	 * 0x12 SGX, 0x19 Key Locker, 0x1B PCONFIG, 0x1D/0x1E AMX */
	{ 0x80000000, LEAF_PASSED, "highest extended leaf" },
	{ 0x80000001, LEAF_FILTERED, "extended features" },
	{ 0x80000002, LEAF_PASSED, "brand string" },
	{ 0x80000003, LEAF_PASSED, "brand string" },
	{ 0x80000004, LEAF_PASSED, "brand string" },
	{ 0x80000005, LEAF_PASSED, "L1 cache and TLB" },
	{ 0x80000006, LEAF_PASSED, "L2/L3 cache and TLB" },
	{ 0x80000007, LEAF_FILTERED, "power management and RAS" },
	{ 0x80000008, LEAF_FILTERED, "address sizes, extended features" },
	{ 0x80000019, LEAF_PASSED, "1 GiB page TLB" },
	{ 0x8000001a, LEAF_PASSED, "performance optimization hints" },
	{ 0x8000001b, LEAF_PASSED, "IBS: pmu/pmu_cpuid.c hides it" },
	{ 0x8000001d, LEAF_PASSED, "cache topology" },
	{ 0x8000001e, LEAF_PASSED, "processor topology" },
	{ 0x80000021, LEAF_FILTERED, "extended features 2" },
	{ 0x80000022, LEAF_PASSED, "PerfMonV2: pmu/pmu_cpuid.c" },
	{ 0x80000026, LEAF_PASSED, "extended CPU topology" },
	/* hidden: 0x8000_000A SVM (no nested virtualization), 0x8000_001C
	 * LWP, 0x8000_001F SME/SEV (mhv encrypts nothing; a guest that sees
	 * SEV reads SEV_STATUS, MSR C001_0131, which mhv does not have),
	 * 0x8000_0020 platform QoS, 0x8000_0023.. secure memory and the rest */
};

struct allow_bits {
	u32 leaf;
	u8 subleaf, reg;
	u32 mask;
	const char *why;
};

#define ALL 0xffffffffu

/*
 * The bits passed.  A filtered leaf's register keeps the OR of its rows'
 * masks; a register without a row reads 0.  Rows with a reason that says
 * "owned" pass a bit another module decides on later.
 */
static const struct allow_bits allow_bits[] = {
	/* Leaf 01H (SDM Vol 2A Tables 3-10, 3-11) */
	{ 0x1, 0, CPUID_EAX, ALL, "family, model, stepping" },
	{ 0x1, 0, CPUID_EBX, ALL, "brand index, CLFLUSH size, logical count (APIC ID per vCPU)" },
	{ 0x1, 0, CPUID_ECX, BIT(0) | BIT(1) | BIT(9) | BIT(12) | BIT(13) | BIT(19) | BIT(20),
	  "SSE3 PCLMULQDQ SSSE3 FMA CMPXCHG16B SSE4.1 SSE4.2: instructions" },
	{ 0x1, 0, CPUID_ECX, BIT(22) | BIT(23) | BIT(25) | BIT(28) | BIT(29) | BIT(30),
	  "MOVBE POPCNT AESNI AVX F16C RDRAND: instructions (AVX state: XCR0)" },
	{ 0x1, 0, CPUID_ECX, BIT(2) | BIT(4), "DTES64, DS-CPL: the DS area (IA32_DS_AREA, msr.c)" },
	{ 0x1, 0, CPUID_ECX, BIT(3), "MONITOR/MWAIT: run in the guest; MISC_ENABLE[18] follows" },
	{ 0x1, 0, CPUID_ECX, BIT(15), "PDCM: owned by pmu/pmu_cpuid.c" },
	{ 0x1, 0, CPUID_ECX, BIT(17), "PCID: CR4.PCIDE (ctlreg.c)" },
	{ 0x1, 0, CPUID_ECX, BIT(26), "XSAVE: hv/xstate (XCR0, XSETBV exits)" },
	/* not: VMX 5, SMX 6, EIST 7 (IA32_PERF_CTL), TM2 8, CNXT-ID 10,
	 * SDBG 11, xTPR 14, DCA 18, OSXSAVE 27 (per vCPU, cpuid_guest.c);
	 * x2APIC 21, TSC-deadline 24, hypervisor 31: set by mhv */
	{ 0x1, 0, CPUID_EDX,
	  BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(8) | BIT(11) |
	      BIT(13) | BIT(15) | BIT(16) | BIT(17) | BIT(19) | BIT(23) | BIT(24) | BIT(25) |
	      BIT(26),
	  "FPU VME DE PSE TSC MSR PAE CX8 SEP PGE CMOV PAT PSE-36 CLFSH MMX FXSR SSE SSE2" },
	{ 0x1, 0, CPUID_EDX, BIT(7) | BIT(14), "MCE, MCA: virtual banks (msr.c)" },
	{ 0x1, 0, CPUID_EDX, BIT(9), "APIC: mhv's virtual APIC (per vCPU)" },
	{ 0x1, 0, CPUID_EDX, BIT(12), "MTRR: the guest's MTRRs (core/mtrr.c)" },
	{ 0x1, 0, CPUID_EDX, BIT(21), "DS: IA32_DS_AREA (msr.c)" },
	{ 0x1, 0, CPUID_EDX, BIT(27) | BIT(28), "SS, HTT: properties, no state" },
	/* not: PSN 18, ACPI 22 and TM 29 (IA32_THERM_INTERRUPT 19BH and
	 * IA32_THERM_STATUS, issue 30), PBE 31 */

	/* Leaf 06H: ARAT only.  The thermal and power features (DTS, turbo,
	 * PTM, HWP, HDC, EPB, the feedback interface) bring MSRs mhv does
	 * not back: Linux reads IA32_THERM_INTERRUPT (19BH) and
	 * IA32_PACKAGE_THERM_INTERRUPT (1B2H) where it sees them (issue 30);
	 * APERF/MPERF (ECX[0]) is pmu/pmu_cpuid.c's and hidden there. */
	{ 0x6, 0, CPUID_EAX, BIT(2), "ARAT: the virtual APIC timer runs in every C-state" },

	/* Leaf 07H sub-leaf 0 */
	{ 0x7, 0, CPUID_EAX, ALL, "highest sub-leaf (capped at 7.1)" },
	{ 0x7, 0, CPUID_EBX, BIT(0), "FSGSBASE: CR4.FSGSBASE, the bases are the guest's" },
	{ 0x7, 0, CPUID_EBX, BIT(1), "IA32_TSC_ADJUST (msr.c)" },
	{ 0x7, 0, CPUID_EBX,
	  BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(8) | BIT(9) | BIT(11) | BIT(13) | BIT(18) |
	      BIT(19) | BIT(23) | BIT(24) | BIT(29),
	  "BMI1 HLE AVX2 FDP_EXCPTN_ONLY BMI2 ERMS RTM FCS/FDS RDSEED ADX CLFLUSHOPT CLWB SHA" },
	{ 0x7, 0, CPUID_EBX,
	  BIT(16) | BIT(17) | BIT(21) | BIT(26) | BIT(27) | BIT(28) | BIT(30) | BIT(31),
	  "AVX-512 F DQ IFMA PF ER CD BW VL: instructions (state: XCR0)" },
	{ 0x7, 0, CPUID_EBX, BIT(7) | BIT(20), "SMEP, SMAP: CR4 bits (ctlreg.c)" },
	{ 0x7, 0, CPUID_EBX, BIT(10), "INVPCID (VMX: only with its control, vmx_vcpu.c)" },
	/* withdrawn (SDM rev. 058 made it reserved) and never shipped: an
	 * instruction without state, which QEMU TCG still advertises and
	 * KUT's memory test runs */
	{ 0x7, 0, CPUID_EBX, BIT(22), "PCOMMIT: an instruction, no state" },
	/* not: SGX 2, RDT-M 12, MPX 14, RDT-A 15, PT 25 (pmu_cpuid.c) */
	{ 0x7, 0, CPUID_ECX,
	  BIT(0) | BIT(1) | BIT(6) | BIT(8) | BIT(9) | BIT(10) | BIT(11) | BIT(12) | BIT(14),
	  "PREFETCHWT1 AVX512_VBMI VBMI2 GFNI VAES VPCLMULQDQ VNNI BITALG VPOPCNTDQ" },
	{ 0x7, 0, CPUID_ECX, BIT(2) | BIT(3) | BIT(16), "UMIP, PKU, LA57: CR4 bits (ctlreg.c)" },
	{ 0x7, 0, CPUID_ECX, BIT(22), "RDPID: TSC_AUX (VMX: with enable RDTSCP)" },
	{ 0x7, 0, CPUID_ECX, BIT(25) | BIT(27) | BIT(28), "CLDEMOTE MOVDIRI MOVDIR64B" },
	{ 0x7, 0, CPUID_ECX, BIT(31), "PKS: IA32_PKRS (msr.c)" },
	/* not: OSPKE 4 (follows a CR4 mhv does not track), WAITPKG 5
	 * (IA32_UMWAIT_CONTROL), CET_SS 7 (the CET MSRs), TME 13, KL 23
	 * (LOADIWKEY's key outlives the VM), BUS_LOCK_DETECT 24, ENQCMD 29
	 * (IA32_PASID), SGX_LC 30 */
	{ 0x7, 0, CPUID_EDX, BIT(2) | BIT(3) | BIT(8) | BIT(23),
	  "AVX512_4VNNIW 4FMAPS VP2INTERSECT FP16" },
	{ 0x7, 0, CPUID_EDX, BIT(4) | BIT(14) | BIT(16), "FSRM SERIALIZE TSXLDTRK" },
	{ 0x7, 0, CPUID_EDX, BIT(10) | BIT(11) | BIT(15),
	  "MD_CLEAR (VERW), RTM_ALWAYS_ABORT, hybrid: properties, no state" },
	/* not: UINTR 5 (user-interrupt notification, not virtualized),
	 * SRBDS_CTRL 9, TSX_FORCE_ABORT 13, PCONFIG 18, arch LBR 19, IBT 20,
	 * AMX 22/24/25 (tile data needs IA32_XFD), IBRS/IBPB 26, STIBP 27,
	 * L1D_FLUSH 28, ARCH_CAPABILITIES 29, CORE_CAPABILITIES 30, SSBD 31:
	 * IA32_SPEC_CTRL, IA32_FLUSH_CMD and the capability MSRs are not
	 * the guest's (msr.c: #GP) */

	/* Leaf 07H sub-leaf 1 */
	{ 0x7, 1, CPUID_EAX, BIT(4) | BIT(5) | BIT(7) | BIT(23),
	  "AVX-VNNI AVX512_BF16 CMPCCXADD AVX-IFMA" },
	{ 0x7, 1, CPUID_EAX, BIT(10) | BIT(11) | BIT(12), "fast zero MOVSB, short STOSB, CMPSB" },
	{ 0x7, 1, CPUID_EAX, BIT(8), "ArchPerfmonExt: owned by pmu/pmu_cpuid.c" },
	/* not: LASS 6, FRED 17 and LKGS 18 (FRED's MSRs and entry), WRMSRNS
	 * 19, NMI_SRC 20, AMX-FP16 21, HRESET 22, LAM 26, MSRLIST 27 */
	{ 0x7, 1, CPUID_EDX, BIT(4) | BIT(5) | BIT(10) | BIT(14),
	  "AVX-VNNI-INT8 AVX-NE-CONVERT AVX-VNNI-INT16 PREFETCHI" },
	/* not: AMX-COMPLEX 8, USER_MSR 15, UIRET_UIF 17, CET_SSS 18, AVX10 19
	 * (leaf 24H is not cached), APX 21; 7.1 EBX (PPIN) and ECX */

	/* Fn8000_0001 (APM Vol 3 E.4.2) */
	{ 0x80000001, 0, CPUID_EAX, ALL, "family, model, stepping" },
	{ 0x80000001, 0, CPUID_EBX, ALL, "brand ID, package type" },
	{ 0x80000001, 0, CPUID_ECX,
	  BIT(0) | BIT(1) | BIT(4) | BIT(5) | BIT(6) | BIT(7) | BIT(8) | BIT(11) | BIT(16) |
	      BIT(21),
	  "LahfSahf CmpLegacy AltMovCr8 ABM SSE4A MisAlignSse 3DNowPrefetch XOP FMA4 TBM" },
	{ 0x80000001, 0, CPUID_ECX, BIT(9), "OSVW: OSVW_ID_LENGTH/STATUS (msr_model.c)" },
	{ 0x80000001, 0, CPUID_ECX, BIT(22), "TopologyExtensions: 8000_001D/1E passed" },
	{ 0x80000001, 0, CPUID_ECX, BIT(23), "PerfCtrExtCore: owned by pmu/pmu_cpuid.c" },
	/* not: SVM 2, ExtApicSpace 3, IBS 10, SKINIT 12, WDT 13, LWP 15, TCE
	 * 17 (EFER.TCE refused), PerfCtrExtNB 24, DataBreakpointExtension
	 * 26, PerfTsc 27, PerfCtrExtLLC 28, MONITORX 29, AdMskExtn 30 */
	{ 0x80000001, 0, CPUID_EDX,
	  BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(8) | BIT(13) |
	      BIT(15) | BIT(16) | BIT(17) | BIT(22) | BIT(23) | BIT(24) | BIT(30) | BIT(31),
	  "the leaf 1 duplicates, MmxExt, 3DNowExt, 3DNow" },
	{ 0x80000001, 0, CPUID_EDX, BIT(7) | BIT(9) | BIT(12) | BIT(14),
	  "MCE APIC MTRR MCA: as leaf 1" },
	{ 0x80000001, 0, CPUID_EDX, BIT(11) | BIT(20) | BIT(29),
	  "SYSCALL, NX (EFER.NXE), long mode: the guest's EFER" },
	{ 0x80000001, 0, CPUID_EDX, BIT(26), "1 GiB pages: the guest's own page tables" },
	{ 0x80000001, 0, CPUID_EDX, BIT(27), "RDTSCP: TSC_AUX (VMX: with enable RDTSCP)" },
	/* not: FFXSR 25 (EFER.FFXSR refused) */

	/* Fn8000_0007 (APM Vol 3 E.4.6): TscInvariant only; P-states, CPB,
	 * RAPL, the RAS bits (ScalableMca's MSRs) bring MSRs mhv lacks, and
	 * EffFreqRO is pmu/pmu_cpuid.c's */
	{ 0x80000007, 0, CPUID_EDX, BIT(8), "TscInvariant: the guest's TSC is the host's" },

	/* Fn8000_0008 (APM Vol 3 E.4.7) */
	{ 0x80000008, 0, CPUID_EAX, ALL, "address sizes" },
	{ 0x80000008, 0, CPUID_ECX, ALL, "core count, APIC ID size" },
	{ 0x80000008, 0, CPUID_EBX, BIT(0) | BIT(2) | BIT(13) | BIT(20),
	  "CLZERO, XSaveErPtr, INT_WBINVD, EferLmsleUnsupported: no state" },
	{ 0x80000008, 0, CPUID_EBX, BIT(12) | BIT(30), "IBPB (PRED_CMD passed, msr.c), IBPB_RET" },
	{ 0x80000008, 0, CPUID_EBX, BIT(26) | BIT(29), "SSBD_NO, BTC_NO: not affected" },
	/* not: IRPerf 1 (pmu_cpuid.c), INVLPGB 3 and 21, RDPRU 4, MBE 6,
	 * MCOMMIT 8, WBNOINVD 9, IBRS 14, STIBP 15, IBRS/STIBP always-on,
	 * preferred, same mode 16-19, PPIN 23, SSBD 24, VIRT_SSBD 25, CPPC
	 * 27, PSFD 28 (IA32_SPEC_CTRL and VIRT_SPEC_CTRL are not the
	 * guest's); EDX (INVLPGB and RDPRU limits) */

	/* Fn8000_0021 (APM Vol 3 E.4.19) */
	{ 0x80000021, 0, CPUID_EAX, BIT(0) | BIT(1) | BIT(2) | BIT(6) | BIT(9),
	  "NoNestedDataBp, FsGsKernelGsBaseNonSerializing, LFENCE serializing, "
	  "null selector clears base, no SMM_CTL: properties" },
	{ 0x80000021, 0, CPUID_EAX, BIT(8),
	  "AutomaticIBRS: EFER.AIBRSE, in the VMCB's guest EFER, which efer_write "
	  "accepts where the host has it (APM Vol 2 §3.1.7; Linux sets it)" },
	{ 0x80000021, 0, CPUID_EAX, BIT(10) | BIT(11) | BIT(20), "FSRS FSRC PREFETCHI" },
	{ 0x80000021, 0, CPUID_EAX, BIT(28) | BIT(29) | BIT(30),
	  "IBPB_BRTYPE, SRSO_NO, SRSO_USER_KERNEL_NO: not affected" },
	{ 0x80000021, 0, CPUID_EBX, 0xfffu, "microcode patch size" },
	{ 0x80000021, 0, CPUID_ECX, BIT(1) | BIT(2), "TSA_SQ_NO, TSA_L1_NO: not affected" },
	/* not: SmmPgCfgLock 3, UpperAddressIgnore 7 (an EFER bit refused),
	 * PrefetchCtlMsr 13, CpuidUserDis 17, ERAPS 24,
	 * SBPB 27, SRSO_MSR_FIX 31 */
};

static const struct leaf_rule_entry *rule_of(u32 leaf)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(leaf_rules); i++)
		if (leaf_rules[i].leaf == leaf)
			return &leaf_rules[i];
	return NULL;
}

u32 cpuid_allowed(u32 leaf, u32 subleaf, unsigned reg)
{
	const struct leaf_rule_entry *r = rule_of(leaf);
	u32 mask = 0;
	unsigned i;

	if (!r || r->rule == LEAF_HIDDEN)
		return 0;
	if (r->rule == LEAF_PASSED)
		return ALL;
	/* leaf 7: sub-leaves 0 and 1 only */
	if (subleaf > (leaf == 7 ? CPUID7_GUEST_MAX_SUBLEAF : 0u))
		return 0;
	for (i = 0; i < ARRAY_SIZE(allow_bits); i++) {
		const struct allow_bits *a = &allow_bits[i];

		if (a->leaf == leaf && a->subleaf == subleaf && a->reg == reg)
			mask |= a->mask;
	}
	return mask;
}

const char *cpuid_allow_reason(u32 leaf, u32 subleaf, unsigned reg, unsigned bit)
{
	const struct leaf_rule_entry *r = rule_of(leaf);
	unsigned i;

	if (!r)
		return "leaf not known to mhv";
	if (r->rule != LEAF_FILTERED)
		return r->why;
	for (i = 0; i < ARRAY_SIZE(allow_bits); i++) {
		const struct allow_bits *a = &allow_bits[i];

		if (a->leaf == leaf && a->subleaf == subleaf && a->reg == reg &&
		    (a->mask & BIT(bit)))
			return a->why;
	}
	return "not known to mhv as safe";
}

static void filter(u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	r->eax &= cpuid_allowed(leaf, subleaf, CPUID_EAX);
	r->ebx &= cpuid_allowed(leaf, subleaf, CPUID_EBX);
	r->ecx &= cpuid_allowed(leaf, subleaf, CPUID_ECX);
	r->edx &= cpuid_allowed(leaf, subleaf, CPUID_EDX);
}

void cpuid_allow_apply(struct cpuid_cache *v)
{
	u32 i;

	for (i = 0; i < CPUID_STD_CACHED; i++)
		filter(i, 0, &v->std[i]);
	for (i = 0; i < CPUID_EXT_CACHED; i++)
		filter(CPUID_EXT_BASE + i, 0, &v->ext[i]);
	filter(7, 1, &v->leaf7_1);
	if (v->std[7].eax > CPUID7_GUEST_MAX_SUBLEAF)
		v->std[7].eax = CPUID7_GUEST_MAX_SUBLEAF;
	/* the sub-leaf cache: the hidden leaves' and leaf 7's beyond 7.1
	 * read as zeros, as sub-leaves past the last do */
	for (i = 0; i < v->subs.count; i++)
		filter(v->subs.sub[i].leaf, v->subs.sub[i].subleaf, &v->subs.sub[i].r);
}
