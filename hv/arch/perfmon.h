/* SPDX-License-Identifier: MIT */
/*
 * Performance-monitoring MSRs, their bit fields and the event codes mhv
 * uses, both vendors: AMD APM Vol 2 §13.2, Intel SDM Vol 3 §21.2
 * (indices: SDM Vol 4 Table 2-2, APM Vol 2 Appendix A).
 */
#ifndef MHV_PERFMON_H
#define MHV_PERFMON_H

#include "lib/types.h"

/* AMD: the legacy four counters, the core counters and PerfMonV2's global registers */
#define MSR_K7_PERF_CTL(i) (0xc0010000u + (i))
#define MSR_K7_PERF_CTR(i) (0xc0010004u + (i))
#define K7_COUNTERS 4
#define MSR_AMD_PERF_CTL(i) (0xc0010200u + 2 * (i))
#define MSR_AMD_PERF_CTR(i) (0xc0010201u + 2 * (i))
#define MSR_AMD_GLOBAL_STATUS 0xc0000300u
#define MSR_AMD_GLOBAL_CTL 0xc0000301u
#define MSR_AMD_GLOBAL_STATUS_CLR 0xc0000302u
#define MSR_AMD_GLOBAL_STATUS_SET 0xc0000303u

/* Intel: IA32_PMCi take 32-bit writes, sign-extended; the A_PMC aliases
 * take full-width writes where PERF_CAPABILITIES says so (§21.2.6). */
#define MSR_INTEL_PMC(i) (0xc1u + (i))
#define MSR_INTEL_PERFEVTSEL(i) (0x186u + (i))
#define MSR_INTEL_FIXED_CTR(i) (0x309u + (i))
#define MSR_INTEL_PERF_CAPABILITIES 0x345u
#define PERF_CAP_FW_WRITE BIT(13)
#define MSR_INTEL_FIXED_CTR_CTRL 0x38du
#define MSR_INTEL_GLOBAL_STATUS 0x38eu
#define MSR_INTEL_GLOBAL_CTRL 0x38fu
#define MSR_INTEL_GLOBAL_OVF_CTRL 0x390u
#define MSR_INTEL_GLOBAL_STATUS_SET 0x391u
#define MSR_INTEL_A_PMC(i) (0x4c1u + (i))

/* RDPMC ECX for Intel fixed counters: bit 30 | i (SDM Vol 2B RDPMC). */
#define PMU_RDPMC_FIXED BIT(30)

/* Event select bits, both vendors (SDM Vol 3 §21.2.1; APM Vol 2 §13.2). */
#define PMU_EVTSEL_EVENT 0xffull
#define PMU_EVTSEL_UMASK 0xff00ull
#define PMU_EVTSEL_USR BIT(16)
#define PMU_EVTSEL_OS BIT(17)
#define PMU_EVTSEL_INT BIT(20)
#define PMU_EVTSEL_EN BIT(22)
#define PMU_AMD_EVTSEL_EVENT_HI (0xfull << 32) /* EventSelect[11:8] */
#define PMU_AMD_GUESTONLY BIT(40)
#define PMU_AMD_HOSTONLY BIT(41)

/*
 * Bits an event select may not hold.  Intel: bits 63:32 are reserved, and
 * WRMSR with a reserved bit set is #GP (SDM Vol 3 §21.2.1.1, Vol 4 Table
 * 2-2); PC (bit 19) is reserved and not writeable since Sandy Bridge
 * (§21.2.1.1); AnyThread (bit 21, version 3) counts the events of the
 * sibling logical processors too (§21.2.3.1).  AMD: bits 19, 21, 39:36
 * and 63:42 are reserved (APM Vol 2 §13.2.1, PerfEvtSeln).
 */
#define PMU_INTEL_EVTSEL_PC BIT(19)
#define PMU_INTEL_EVTSEL_ANYTHREAD BIT(21)
/* With Intel TSX (CPUID.(EAX=07H,ECX=0):EBX HLE[4] or RTM[11]): IN_TX
 * counts inside transactions only, IN_TXCP (IA32_PERFEVTSEL2 only) leaves
 * out aborted ones (SDM Vol 3 ch. 21, Intel TSX performance monitoring;
 * the bits are reserved elsewhere). */
#define PMU_INTEL_EVTSEL_IN_TX BIT(32)
#define PMU_INTEL_EVTSEL_IN_TXCP BIT(33)
#define PMU_INTEL_IN_TXCP_COUNTER 2
#define PMU_INTEL_EVTSEL_RSVD (~0xffffffffull)
#define PMU_AMD_EVTSEL_RSVD (BIT(19) | BIT(21) | (0xfull << 36) | ~(BIT(42) - 1))

/* IA32_FIXED_CTR_CTRL: 4 bits per counter at 4*i (SDM Vol 3 §21.2.2), the rest
 * reserved; AnyThread as in the event selects (§21.2.3.1). */
#define PMU_FIXED_OS(i) BIT(4 * (i))
#define PMU_FIXED_USR(i) BIT(4 * (i) + 1)
#define PMU_FIXED_ANYTHREAD(i) BIT(4 * (i) + 2)
#define PMU_FIXED_PMI(i) BIT(4 * (i) + 3)

/* CPUID.0AH:EDX[15]: AnyThread is deprecated (SDM Vol 2A, CPUID leaf 0AH). */
#define PMU_CPUID_ANYTHREAD_DEPRECATED BIT(15)

/* GLOBAL_CTRL/STATUS layout: GP i at bit i, Intel fixed i at 32 + i (§21.2.2). */
#define PMU_GLOBAL_FIXED(i) BIT(32 + (i))

/* Instructions and branches retired: the events emulated instructions are
 * accounted to (Intel's architectural events, SDM Vol 3 §21.2.1; AMD's
 * per-family PPR). */
#define PMU_EVENT_INSTRUCTIONS 0xc0
#define PMU_AMD_EVENT_BRANCHES 0xc2
#define PMU_INTEL_EVENT_BRANCHES 0xc4

#endif
