/* SPDX-License-Identifier: MIT */
/*
 * MSR indices and their bit fields (SDM Vol 4 Table 2-2; APM Vol 2
 * Appendix A).  Elsewhere: the PMU's MSRs in perfmon.h, IA32_APIC_BASE's
 * bits in apic.h, EFER's bits in regs.h, the VMX capability MSRs in
 * vmx/vmcs.h.
 */
#ifndef MHV_MSR_H
#define MHV_MSR_H

#include "lib/types.h"

#define MSR_IA32_TSC 0x10
#define MSR_IA32_APIC_BASE 0x1b
#define MSR_IA32_TSC_ADJUST 0x0000003b

/* SYSENTER/SYSEXIT targets (SDM Vol 3 §5.8.7) */
#define MSR_IA32_SYSENTER_CS 0x174
#define MSR_IA32_SYSENTER_ESP 0x175
#define MSR_IA32_SYSENTER_EIP 0x176

/* IA32_FEATURE_CONTROL (SDM Vol 3 §24.7) */
#define MSR_IA32_FEATURE_CONTROL 0x0000003a
#define FEATURE_CONTROL_LOCK BIT(0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX BIT(2)

/* Speculation control: CPUID.7.0:EDX[26] and [29] say which exist */
#define MSR_IA32_SPEC_CTRL 0x48
#define SPEC_CTRL_IBRS BIT(0)  /* SDM Vol 4 Table 2-2; APM Vol 2 §3.2.9 */
#define MSR_IA32_PRED_CMD 0x49 /* write-only: a command, no state */
#define PRED_CMD_IBPB 1	       /* indirect branch prediction barrier */
#define PRED_CMD_SBPB BIT(7)   /* selective IBPB (APM Vol 2 §3.2.9) */
#define MSR_IA32_ARCH_CAPABILITIES 0x10a

#define MSR_MICROCODE_REV 0x8b /* Intel IA32_BIOS_SIGN_ID, AMD PATCH_LEVEL */

/* Machine check (SDM Vol 3 §16.3.1 MCG_CAP, MCG_STATUS; §16.3.2 the banks) */
#define MSR_IA32_MCG_CAP 0x179
#define MSR_IA32_MCG_STATUS 0x17a
#define MSR_IA32_MC_CTL(i) (0x400 + 4 * (i))
#define MSR_IA32_MC_STATUS(i) (0x401 + 4 * (i))
#define MSR_IA32_MC_ADDR(i) (0x402 + 4 * (i))
#define MSR_IA32_MC_MISC(i) (0x403 + 4 * (i))
#define MCA_LEGACY_BANKS 32 /* 0x400-0x47f; 0x480 is IA32_VMX_BASIC */
/* AMD Scalable MCA (CPUID 8000_0007 EBX[3]): bank i's registers at
 * 0xC0002000 + 0x10 * i, CTL STATUS ADDR MISC0 in that order; the legacy
 * MSRs alias the first 32 banks (AMD PPR for family 19h/1Ah, "MCA") */
#define MSR_AMD64_SMCA_MC0_CTL 0xc0002000
#define MSR_AMD64_SMCA_BANK_STRIDE 0x10
#define MCG_CAP_COUNT 0xff /* number of banks */
#define MCG_STATUS_RIPV BIT(0)
#define MCG_STATUS_EIPV BIT(1)
#define MCG_STATUS_MCIP BIT(2)
#define MCI_STATUS_PCC BIT(57)
#define MCI_STATUS_ADDRV BIT(58)
#define MCI_STATUS_MISCV BIT(59)
#define MCI_STATUS_UC BIT(61)
#define MCI_STATUS_OVER BIT(62)
#define MCI_STATUS_VAL BIT(63)

/* MTRRs (SDM Vol 3 §12.11) */
#define CPUID1_EDX_MTRR BIT(12) /* CPUID.1:EDX: the MTRRs are there */
#define MSR_MTRRCAP 0xfe
#define MTRRCAP_VCNT 0xff /* number of variable ranges */
#define MTRRCAP_FIX BIT(8)
#define MSR_MTRR_PHYSBASE(i) (0x200 + 2 * (i))
#define MSR_MTRR_PHYSMASK(i) (0x201 + 2 * (i))
#define MSR_MTRR_FIX64K_00000 0x250
#define MSR_MTRR_FIX16K_80000 0x258
#define MSR_MTRR_FIX16K_A0000 0x259
#define MSR_MTRR_FIX4K(i) (0x268 + (i)) /* C0000 .. F8000, i = 0..7 */
#define MSR_MTRR_DEF_TYPE 0x2ff

/* IA32_MISC_ENABLE's architectural bits (SDM Vol 4 Table 2-2) */
#define MSR_IA32_MISC_ENABLE 0x1a0
#define MISC_ENABLE_FAST_STRINGS BIT(0)
#define MISC_ENABLE_AUTO_TCC BIT(3)	 /* automatic thermal control circuit */
#define MISC_ENABLE_PERFMON BIT(7)	 /* read-only: performance monitoring available */
#define MISC_ENABLE_BTS_UNAVAIL BIT(11)	 /* read-only */
#define MISC_ENABLE_PEBS_UNAVAIL BIT(12) /* read-only */
#define MISC_ENABLE_EIST BIT(16)	 /* Enhanced Intel SpeedStep */
#define MISC_ENABLE_MONITOR BIT(18)	 /* MONITOR/MWAIT FSM */
#define MISC_ENABLE_LIMIT_CPUID BIT(22)	 /* CPUID.0:EAX reports at most 2 */
#define MISC_ENABLE_XTPR_DISABLE BIT(23)
#define MISC_ENABLE_XD_DISABLE BIT(34)
#define MISC_ENABLE_TURBO_DISABLE BIT(38) /* IDA/Turbo disable (SDM Vol 4 Table 2-3) */

/* The core's actual and maximum-rate clock counts, CPUID 6 ECX[0] (SDM Vol 3
 * §15.2, "Hardware-Controlled Performance States"; AMD APM Vol 2 §17.3.1
 * names the same MSR numbers MPERF and APERF) */
#define MSR_IA32_MPERF 0xe7
#define MSR_IA32_APERF 0xe8
#define CPUID6_ECX_APERFMPERF BIT(0)
/* SMIs since reset, read-only, Intel from Nehalem (SDM Vol 4 Table 2-3,
 * MSR_SMI_COUNT); AMD documents no such MSR */
#define MSR_SMI_COUNT 0x34

/* PAT: WB, WT, UC-, UC, WB, WT, UC-, UC after power-up (SDM Vol 3 §13.12.4) */
#define MSR_IA32_PAT 0x00000277
#define PAT_POWER_ON_DEFAULT 0x0007040600070406ull

#define MSR_IA32_DS_AREA 0x600 /* the BTS/PEBS save area (SDM Vol 3 §19.6.3.4) */
#define MSR_IA32_TSC_DEADLINE 0x6e0
#define MSR_IA32_PKRS 0x6e1 /* supervisor protection keys (SDM Vol 3 §5.6.2) */
#define MSR_IA32_XSS 0xda0

/* AMD64 system MSRs (APM Vol 2 Appendix A) */
#define MSR_EFER 0xc0000080
/* SYSCALL/SYSRET targets and flag mask (APM Vol 2 §6.1.1; CSTAR: AMD only) */
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_CSTAR 0xc0000083
#define MSR_SFMASK 0xc0000084
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_TSC_AUX 0xc0000103	     /* RDTSCP's ECX, RDPID's result */
#define MSR_AMD_SYSCFG 0xc0010010    /* APM Vol 2 §3.2.1 */
#define SYSCFG_MTRR_TOM2_EN BIT(21)  /* TOM2 is valid (APM Vol 2 §7.9.1) */
#define SYSCFG_TOM2_FORCE_WB BIT(22) /* 4 GiB..TOM2 defaults to WB */
#define MSR_AMD_TOM2 0xc001001d	     /* top of memory above 4 GiB */
/* Interrupt Pending Message (AMD BKDG for family 0Fh/10h): C1E status */
#define MSR_AMD_INT_PENDING_MSG 0xc0010055
#define MSR_SMM_BASE 0xc0010111
#define MSR_SMM_MASK 0xc0010113
#define MSR_VM_CR 0xc0010114
#define VM_CR_SVMDIS BIT(4) /* APM Vol 2 §15.30.1 */
#define MSR_VM_HSAVE_PA 0xc0010117
#define MSR_AMD_VIRT_SPEC_CTRL 0xc001011f
/* AMD model-specific: the BKDG for Family 15h (MSRC001_0015 HWCR,
 * MSRC001_001F NB_CFG, MSRC001_0140/0141 OSVW, MSRC001_1029 DE_CFG) and
 * the PPRs since; DE_CFG[1]: AMD's "Software techniques for managing
 * speculation" (2018) */
#define MSR_AMD_HWCR 0xc0010015
#define HWCR_TSC_FREQ_SEL BIT(24) /* read-only 1: the TSC counts at P0's rate */
#define HWCR_CPB_DIS BIT(25) /* core performance boost off (PPR for Family 19h/1Ah, MSRC001_0015) */
#define MSR_AMD_NB_CFG 0xc001001f
/* BP_CFG[4] BpSpecReduce: SRSO across the guest/host boundary where
 * CPUID 8000_0021 EAX[31] SRSO_MSR_FIX says so (Linux msr-index.h
 * MSR_ZEN4_BP_CFG, commit 8442df2b49ed "Add support for SRSO_MSR_FIX") */
#define MSR_AMD_BP_CFG 0xc001102e
#define BP_CFG_BP_SPEC_REDUCE BIT(4)
#define MSR_AMD_OSVW_ID_LENGTH 0xc0010140
#define MSR_AMD_OSVW_STATUS 0xc0010141
#define MSR_AMD_DE_CFG 0xc0011029
#define DE_CFG_LFENCE_SERIALIZE BIT(1) /* LFENCE is dispatch-serializing */

#endif
