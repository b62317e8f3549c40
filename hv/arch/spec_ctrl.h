/* SPDX-License-Identifier: MIT */
/*
 * What the CPU reports about speculation: the CPUID and
 * IA32_ARCH_CAPABILITIES bits core/mitigation_policy.c decides from.
 * The MSRs themselves are in msr.h.
 */
#ifndef MHV_ARCH_SPEC_CTRL_H
#define MHV_ARCH_SPEC_CTRL_H

#include "lib/types.h"

/* CPUID 7.0 EDX (SDM Vol 2A CPUID) */
#define STD7_EDX_MD_CLEAR BIT(10)	   /* VERW clears the CPU's buffers */
#define STD7_EDX_IBRS_IBPB BIT(26)	   /* SPEC_CTRL.IBRS and PRED_CMD.IBPB */
#define STD7_EDX_ARCH_CAPABILITIES BIT(29) /* IA32_ARCH_CAPABILITIES exists */
/* CPUID 8000_0008 EBX (APM Vol 3 Appendix E; Vol 2 §3.2.9) */
#define EXT8_EBX_IBPB BIT(12)
#define EXT8_EBX_BTC_NO BIT(29)	  /* not affected by branch type confusion */
#define EXT8_EBX_IBPB_RET BIT(30) /* IBPB also clears the return predictor */
/* CPUID 8000_0021 EAX / ECX (APM Vol 3 Appendix E; Linux cpufeatures.h
 * words 20 and 21, scattered.c for ECX) */
#define EXT21_EAX_VERW_CLEAR BIT(5)   /* the memory form of VERW clears TSA state */
#define EXT21_EAX_AUTOIBRS BIT(8)     /* EFER.AIBRSE (APM Vol 2 §3.1.7) */
#define EXT21_EAX_ERAPS BIT(24)	      /* host and guest return predictions apart */
#define EXT21_EAX_IBPB_BRTYPE BIT(28) /* IBPB flushes every branch type */
#define EXT21_EAX_SRSO_NO BIT(29)
#define EXT21_EAX_SRSO_USER_KERNEL_NO BIT(30)
#define EXT21_EAX_SRSO_MSR_FIX BIT(31) /* BP_CFG.BpSpecReduce mitigates SRSO for VMs */
#define EXT21_ECX_TSA_SQ_NO BIT(1)
#define EXT21_ECX_TSA_L1_NO BIT(2)
/* IA32_ARCH_CAPABILITIES (SDM Vol 4 Table 2-2; Linux msr-index.h) */
#define ARCH_CAP_IBRS_ALL BIT(1) /* enhanced IBRS */
#define ARCH_CAP_MDS_NO BIT(5)
#define ARCH_CAP_PBRSB_NO BIT(24)

#endif
