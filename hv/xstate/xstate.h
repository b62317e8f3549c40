/* SPDX-License-Identifier: MIT */
/*
 * XSAVE state components: the init-time CPUID.0xD cache and the size and
 * validity rules derived from it (SDM Vol 1 ch. 13, SDM Vol 2A CPUID leaf 0DH,
 * APM Vol 3 CPUID Fn0000_000D).
 */
#ifndef MHV_XSTATE_H
#define MHV_XSTATE_H

#include "lib/types.h"

/* State-component bitmap bits as used by XCR0 and IA32_XSS (SDM Vol 1 §13.1). */
#define XSTATE_X87 BIT(0)
#define XSTATE_SSE BIT(1)
#define XSTATE_AVX BIT(2) /* YMM_Hi128 */
#define XSTATE_BNDREGS BIT(3)
#define XSTATE_BNDCSR BIT(4)
#define XSTATE_OPMASK BIT(5)
#define XSTATE_ZMM_HI256 BIT(6)
#define XSTATE_HI16_ZMM BIT(7)
#define XSTATE_PT BIT(8) /* supervisor */
#define XSTATE_PKRU BIT(9)
#define XSTATE_PASID BIT(10) /* supervisor */
#define XSTATE_CET_U BIT(11) /* supervisor */
#define XSTATE_CET_S BIT(12) /* supervisor */
#define XSTATE_HDC BIT(13)   /* supervisor */
#define XSTATE_UINTR BIT(14) /* supervisor */
#define XSTATE_LBR BIT(15)   /* supervisor */
#define XSTATE_HWP BIT(16)   /* supervisor */
#define XSTATE_TILECFG BIT(17)
#define XSTATE_TILEDATA BIT(18)

#define XSTATE_LEGACY (XSTATE_X87 | XSTATE_SSE)
#define XSTATE_MPX (XSTATE_BNDREGS | XSTATE_BNDCSR)
#define XSTATE_AVX512 (XSTATE_OPMASK | XSTATE_ZMM_HI256 | XSTATE_HI16_ZMM)
#define XSTATE_AMX (XSTATE_TILECFG | XSTATE_TILEDATA)

/* Legacy region (FXSAVE image) plus XSAVE header (SDM Vol 1 §13.4.1, §13.4.2). */
#define XSAVE_LEGACY_SIZE 512
#define XSAVE_HEADER_SIZE 64
#define XSAVE_EXT_OFFSET (XSAVE_LEGACY_SIZE + XSAVE_HEADER_SIZE)

/* CPUID.(EAX=0DH,ECX=1):EAX (SDM Vol 2A CPUID leaf 0DH). */
#define XSTATE_LEAF1_XSAVEOPT BIT(0)
#define XSTATE_LEAF1_XSAVEC BIT(1)
#define XSTATE_LEAF1_XGETBV1 BIT(2)
#define XSTATE_LEAF1_XSAVES BIT(3) /* also: IA32_XSS exists */
#define XSTATE_LEAF1_XFD BIT(4)

/* Bit 63 of XCR0 is reserved for extending the bitmap: it names no component. */
#define XSTATE_MAX_COMPONENTS 63

struct xstate_component {
	u32 size;	 /* CPUID.(EAX=0DH,ECX=i):EAX */
	u32 offset;	 /* CPUID.(EAX=0DH,ECX=i):EBX, standard-format offset (0 for supervisor) */
	bool supervisor; /* ECX[0]: in IA32_XSS, not XCR0 */
	bool align64;	 /* ECX[1]: 64-byte aligned in the compacted format */
};

/* The CPUID.0xD cache: filled once at init from the host's answers. */
struct xstate_cache {
	bool valid;	       /* CPUID.1:ECX.XSAVE and max leaf >= 0xD */
	u64 xcr0_supported;    /* 0xD.0 EDX:EAX */
	u64 xss_supported;     /* 0xD.1 EDX:ECX: in mhv, only what guests get (xss_allow.c) */
	u32 max_size_all;      /* 0xD.0 ECX: standard size for every XCR0 bit supported */
	u32 leaf0_ebx_at_init; /* 0xD.0 EBX as read (for the host XCR0 then) */
	u32 leaf1_eax;	       /* 0xD.1 EAX: XSAVEOPT/XSAVEC/XGETBV1/XSAVES/XFD bits */
	/* index = component number; 0 and 1 unused (legacy area) */
	struct xstate_component comp[XSTATE_MAX_COMPONENTS];
};

/* One raw CPUID.0xD answer, as recorded or as read. */
struct xstate_cpuid_leaf {
	u32 subleaf, eax, ebx, ecx, edx;
};

/*
 * Fill the cache from recorded/read answers: subleaf 0, 1 and 2..62 for every
 * bit set in xcr0_supported | xss_supported.  Returns 0, or -1 with the cache
 * zeroed (valid = false) if a needed subleaf is missing or the answers
 * contradict each other.  The caller has already checked CPUID.1:ECX.XSAVE
 * and the maximum basic leaf: success sets valid.
 */
int xstate_cache_fill(struct xstate_cache *c, const struct xstate_cpuid_leaf *leaves, unsigned n);

/*
 * Standard-format XSAVE area size for XCR0 = xcr0 (what CPUID.0xD.0 EBX
 * reports then): the largest offset + size over the enabled user components,
 * at least 576.  Bits the cache does not support are ignored.
 */
u32 xstate_size_standard(const struct xstate_cache *c, u64 xcr0);

/*
 * Compacted-format size for XCR0 | IA32_XSS = xcr0_xss (what CPUID.0xD.1 EBX
 * reports then): 576 + the components in order, each aligned to 64 when its
 * align64 flag is set (SDM Vol 1 §13.4.3).  Unsupported bits are ignored.
 */
u32 xstate_size_compacted(const struct xstate_cache *c, u64 xcr0_xss);

/* Why a value was refused: xstate_xcr0_check/xstate_xss_check return -code. */
enum xstate_bad {
	XSTATE_BAD_NO_XSAVE = 1, /* cache not valid: XSETBV would #UD */
	XSTATE_BAD_SUPERVISOR,	 /* an IA32_XSS component in XCR0 */
	XSTATE_BAD_UNSUPPORTED,	 /* a bit not in xcr0_supported / xss_supported */
	XSTATE_BAD_NO_X87,
	XSTATE_BAD_AVX_NO_SSE,
	XSTATE_BAD_MPX_PARTIAL,
	XSTATE_BAD_AVX512_PARTIAL,
	XSTATE_BAD_AVX512_NO_AVX,
	XSTATE_BAD_AMX_PARTIAL,
	XSTATE_BAD_NO_XSAVES, /* IA32_XSS does not exist */
};

/*
 * Would XSETBV accept xcr0 for XCR0 (SDM Vol 1 §13.3, XSETBV in SDM Vol 2B)?
 * 0 if so, else -enum xstate_bad with *why (if why is non-NULL) describing
 * the rule; *why is NULL on success.  A refused value is a #GP for the guest.
 */
int xstate_xcr0_check(const struct xstate_cache *c, u64 xcr0, const char **why);

/* Would WRMSR accept xss for IA32_XSS?  Same conventions as xstate_xcr0_check. */
int xstate_xss_check(const struct xstate_cache *c, u64 xss, const char **why);

#endif
