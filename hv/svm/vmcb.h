/* SPDX-License-Identifier: MIT */
/*
 * The Virtual Machine Control Block: APM Vol 2 Appendix B (Table B-1,
 * control area; Table B-2, state save area).  Offsets are asserted below.
 */
#ifndef MHV_SVM_VMCB_H
#define MHV_SVM_VMCB_H

#include "lib/types.h"

struct vmcb_control_area {
	u16 intercept_cr_read;	  /* 0x000 */
	u16 intercept_cr_write;	  /* 0x002 */
	u16 intercept_dr_read;	  /* 0x004 */
	u16 intercept_dr_write;	  /* 0x006 */
	u32 intercept_exceptions; /* 0x008 */
	u32 intercept_misc1;	  /* 0x00c */
	u32 intercept_misc2;	  /* 0x010 */
	u32 intercept_misc3;	  /* 0x014 */
	u8 reserved_018[0x03c - 0x018];
	u16 pause_filter_threshold; /* 0x03c */
	u16 pause_filter_count;	    /* 0x03e */
	u64 iopm_base_pa;	    /* 0x040 */
	u64 msrpm_base_pa;	    /* 0x048 */
	u64 tsc_offset;		    /* 0x050 */
	u32 guest_asid;		    /* 0x058 */
	u8 tlb_control;		    /* 0x05c */
	u8 reserved_05d[3];
	u64 int_ctl;	    /* 0x060: V_TPR, V_IRQ, V_INTR_MASKING ... */
	u64 int_shadow;	    /* 0x068 */
	u64 exit_code;	    /* 0x070 */
	u64 exit_info_1;    /* 0x078 */
	u64 exit_info_2;    /* 0x080 */
	u64 exit_int_info;  /* 0x088 */
	u64 nested_ctl;	    /* 0x090: bit 0 NP_ENABLE */
	u64 avic_vapic_bar; /* 0x098 */
	u64 ghcb_pa;	    /* 0x0a0 */
	u64 event_inj;	    /* 0x0a8 */
	u64 nested_cr3;	    /* 0x0b0 */
	u64 virt_ext;	    /* 0x0b8: LBR virtualization, virtual VMLOAD/VMSAVE, PMC virt */
	u32 clean_bits;	    /* 0x0c0: VMCB_CLEAN_* */
	u32 reserved_0c4;
	u64 next_rip;	   /* 0x0c8 */
	u8 insn_len;	   /* 0x0d0 */
	u8 insn_bytes[15]; /* 0x0d1 */
	u8 reserved_0e0[0x400 - 0x0e0];
} __packed;

struct vmcb_segment {
	u16 selector;
	u16 attrib; /* descriptor bits 47:40 and 55:52, packed (APM Vol 2 §15.5.1) */
	u32 limit;
	u64 base;
} __packed;

struct vmcb_save_area {
	struct vmcb_segment es, cs, ss, ds, fs, gs; /* 0x400 .. 0x45f */
	struct vmcb_segment gdtr, ldtr, idtr, tr;   /* 0x460 .. 0x49f */
	u8 reserved_4a0[0x4cb - 0x4a0];
	u8 cpl; /* 0x4cb */
	u32 reserved_4cc;
	u64 efer; /* 0x4d0 */
	u64 reserved_4d8;
	/* PMC virtualization slots: guest PERF_CTL/CTR 0-5 (APM Vol 2 Table B-2) */
	struct vmcb_pmc {
		u64 ctl, ctr;
	} pmc[6];	  /* 0x4e0 */
	u64 reserved_540; /* SEV-ES XSS */
	u64 cr4;	  /* 0x548 */
	u64 cr3;	  /* 0x550 */
	u64 cr0;	  /* 0x558 */
	u64 dr7;	  /* 0x560 */
	u64 dr6;	  /* 0x568 */
	u64 rflags;	  /* 0x570 */
	u64 rip;	  /* 0x578 */
	u8 reserved_580[0x5c8 - 0x580];
	u64 perf_global_status; /* 0x5c8: PerfCntrGlobalStatus */
	u32 perf_global_ctl;	/* 0x5d0: PerfCntrGlobalCtl, a dword (APM Table B-2) */
	u32 reserved_5d4;
	u64 rsp;				     /* 0x5d8 */
	u64 s_cet, ssp, isst_addr;		     /* 0x5e0 */
	u64 rax;				     /* 0x5f8 */
	u64 star, lstar, cstar, sfmask;		     /* 0x600 */
	u64 kernel_gs_base;			     /* 0x620 */
	u64 sysenter_cs, sysenter_esp, sysenter_eip; /* 0x628 */
	u64 cr2;				     /* 0x640 */
	u8 reserved_648[0x668 - 0x648];
	u64 g_pat;  /* 0x668 */
	u64 dbgctl; /* 0x670 */
	u8 reserved_678[0x1000 - 0x678];
} __packed;

struct vmcb {
	struct vmcb_control_area control;
	struct vmcb_save_area save;
} __packed;

#define VMCB_OFF(f) __builtin_offsetof(struct vmcb, f)
_Static_assert(VMCB_OFF(control.pause_filter_threshold) == 0x03c, "APM B-1");
_Static_assert(VMCB_OFF(control.iopm_base_pa) == 0x040, "APM B-1");
_Static_assert(VMCB_OFF(control.guest_asid) == 0x058, "APM B-1");
_Static_assert(VMCB_OFF(control.int_ctl) == 0x060, "APM B-1");
_Static_assert(VMCB_OFF(control.exit_code) == 0x070, "APM B-1");
_Static_assert(VMCB_OFF(control.exit_int_info) == 0x088, "APM B-1");
_Static_assert(VMCB_OFF(control.nested_ctl) == 0x090, "APM B-1");
_Static_assert(VMCB_OFF(control.event_inj) == 0x0a8, "APM B-1");
_Static_assert(VMCB_OFF(control.nested_cr3) == 0x0b0, "APM B-1");
_Static_assert(VMCB_OFF(control.virt_ext) == 0x0b8, "APM B-1");
_Static_assert(VMCB_OFF(control.clean_bits) == 0x0c0, "APM B-1");
_Static_assert(VMCB_OFF(control.next_rip) == 0x0c8, "APM B-1");
_Static_assert(VMCB_OFF(control.insn_len) == 0x0d0, "APM B-1");
_Static_assert(VMCB_OFF(save.es) == 0x400, "APM B-2");
_Static_assert(VMCB_OFF(save.tr) == 0x490, "APM B-2");
_Static_assert(VMCB_OFF(save.cpl) == 0x4cb, "APM B-2");
_Static_assert(VMCB_OFF(save.efer) == 0x4d0, "APM B-2");
_Static_assert(VMCB_OFF(save.pmc[0].ctl) == 0x4e0, "APM B-2");
_Static_assert(VMCB_OFF(save.pmc[5].ctr) == 0x538, "APM B-2");
_Static_assert(VMCB_OFF(save.cr4) == 0x548, "APM B-2");
_Static_assert(VMCB_OFF(save.perf_global_status) == 0x5c8, "APM B-2");
_Static_assert(VMCB_OFF(save.perf_global_ctl) == 0x5d0, "APM B-2");
_Static_assert(VMCB_OFF(save.rip) == 0x578, "APM B-2");
_Static_assert(VMCB_OFF(save.rsp) == 0x5d8, "APM B-2");
_Static_assert(VMCB_OFF(save.rax) == 0x5f8, "APM B-2");
_Static_assert(VMCB_OFF(save.kernel_gs_base) == 0x620, "APM B-2");
_Static_assert(VMCB_OFF(save.cr2) == 0x640, "APM B-2");
_Static_assert(VMCB_OFF(save.g_pat) == 0x668, "APM B-2");
_Static_assert(sizeof(struct vmcb) == 0x1000, "one 4 KiB page");

/*
 * VMCB clean bits (APM Vol 2 §15.15.3, "VMCB Clean Bits"; CPUID 8000_000A
 * EDX[5]): a set bit tells VMRUN that the group's fields are as they were
 * at this VMCB's last VMRUN on this CPU, so that it may keep its own copy
 * of them.  Fields in no group (RIP, RSP, RAX, RFLAGS, EVENTINJ,
 * TLB_CONTROL, the interrupt shadow, the PMC virtualization slots) are
 * read by every VMRUN.  Bit 12 (CET) is the later APM's, as KVM has it.
 */
#define VMCB_CLEAN_INTERCEPTS BIT(0) /* intercept vectors, TSC offset, pause filter */
#define VMCB_CLEAN_IOPM BIT(1)	     /* IOPM_BASE, MSRPM_BASE */
#define VMCB_CLEAN_ASID BIT(2)
#define VMCB_CLEAN_TPR BIT(3) /* 0x60-0x67: V_TPR, V_IRQ, V_INTR_*, VNMI bits, vector */
#define VMCB_CLEAN_NP BIT(4)  /* NP_ENABLE, nCR3, G_PAT */
#define VMCB_CLEAN_CRX BIT(5) /* CR0, CR3, CR4, EFER */
#define VMCB_CLEAN_DRX BIT(6) /* DR6, DR7 */
#define VMCB_CLEAN_DT BIT(7)  /* GDTR, IDTR */
#define VMCB_CLEAN_SEG BIT(8) /* ES, CS, SS, DS, CPL */
#define VMCB_CLEAN_CR2 BIT(9)
#define VMCB_CLEAN_LBR BIT(10)	/* DBGCTL and the LBR MSRs */
#define VMCB_CLEAN_AVIC BIT(11) /* AVIC BAR, backing page, logical and physical tables */
#define VMCB_CLEAN_CET BIT(12)	/* S_CET, SSP, ISST_ADDR */
#define VMCB_CLEAN_ALL ((u32)BIT(13) - 1)

/* Intercept vector 3 (misc1) and 4 (misc2) bits: APM Vol 2 Table B-1 */
#define INTERCEPT_INTR BIT(0)
#define INTERCEPT_VINTR BIT(4)
#define INTERCEPT_NMI BIT(1)
#define INTERCEPT_SMI BIT(2)
#define INTERCEPT_INIT BIT(3)
#define INTERCEPT_RDPMC BIT(15)
#define INTERCEPT_IRET BIT(20)
#define INTERCEPT_CPUID BIT(18)
#define INTERCEPT_INVD BIT(22)
#define INTERCEPT_PAUSE BIT(23)
#define INTERCEPT_HLT BIT(24)
#define INTERCEPT_INVLPGA BIT(26)
#define INTERCEPT_IOIO_PROT BIT(27)
#define INTERCEPT_MSR_PROT BIT(28)
#define INTERCEPT_SHUTDOWN BIT(31)
#define INTERCEPT_VMRUN BIT(0)
#define INTERCEPT_VMMCALL BIT(1)
#define INTERCEPT_VMLOAD BIT(2)
#define INTERCEPT_VMSAVE BIT(3)
#define INTERCEPT_STGI BIT(4)
#define INTERCEPT_CLGI BIT(5)
#define INTERCEPT_SKINIT BIT(6)
#define INTERCEPT_WBINVD BIT(9)
#define INTERCEPT_XSETBV BIT(13)

#define NESTED_CTL_NP_ENABLE BIT(0)
#define TLB_CONTROL_FLUSH_ALL 1
#define TLB_CONTROL_FLUSH_ASID \
	3 /* needs FlushByAsid, CPUID 8000_000A EDX[6] (APM Vol 2 §15.16.1) */
/* CR write intercepts: bit n of intercept_cr_write is CRn (APM Vol 2 §15.9) */
#define INTERCEPT_CR4_WRITE BIT(4)
#define INT_CTL_V_INTR_MASKING BIT(24)
/* V_IRQ (bit 8), V_INTR_PRIO (19:16), V_IGN_TPR (bit 20): APM Vol 2 §15.21.4 */
#define INT_CTL_V_IRQ BIT(8)
#define INT_CTL_V_INTR_PRIO_MAX (0xfull << 16)
#define INT_CTL_V_IGN_TPR BIT(20)
#define INT_SHADOW_MASK BIT(0)
#define EVENT_TYPE_INTR (0ull << 8)

/* EVENTINJ / EXITINTINFO (APM Vol 2 §15.20); TYPE 1, 5, 6 and 7 are reserved */
#define EVENT_VECTOR_MASK 0xffull
#define EVENT_TYPE_MASK (7ull << 8)
#define EVENT_TYPE_NMI (2ull << 8)
#define EVENT_TYPE_EXCEPTION (3ull << 8)
#define EVENT_ERROR_VALID BIT(11)
#define EVENT_VALID BIT(31)

/* #VMEXIT codes (APM Vol 2 Appendix C) */
#define SVM_EXIT_CR0_WRITE 0x010 /* CRn: 0x10 + n */
#define SVM_EXIT_CR4_WRITE 0x014
#define SVM_EXIT_EXCP_BASE 0x040
#define SVM_EXIT_INTR 0x060
#define SVM_EXIT_NMI 0x061
#define SVM_EXIT_SMI 0x062
#define SVM_EXIT_VINTR 0x064
#define SVM_EXIT_RDPMC 0x06f
#define SVM_EXIT_CPUID 0x072
#define SVM_EXIT_IRET 0x074
#define SVM_EXIT_INVD 0x076
#define SVM_EXIT_PAUSE 0x077
#define SVM_EXIT_HLT 0x078
#define SVM_EXIT_INVLPGA 0x07a
#define SVM_EXIT_IOIO 0x07b
#define SVM_EXIT_MSR 0x07c
#define SVM_EXIT_SHUTDOWN 0x07f
#define SVM_EXIT_VMRUN 0x080
#define SVM_EXIT_VMMCALL 0x081
#define SVM_EXIT_VMLOAD 0x082
#define SVM_EXIT_VMSAVE 0x083
#define SVM_EXIT_STGI 0x084
#define SVM_EXIT_CLGI 0x085
#define SVM_EXIT_SKINIT 0x086
#define SVM_EXIT_WBINVD 0x089
#define SVM_EXIT_XSETBV 0x08d
#define SVM_EXIT_NPF 0x400
#define SVM_EXIT_INVALID 0xffffffffu /* QEMU reports only the low 32 bits of -1 */
#define SVM_EXIT_BUSY 0xfffffffeu    /* -2 .. -4: compared on the low 32 bits too */
#define SVM_EXIT_IDLE_REQUIRED 0xfffffffdu
#define SVM_EXIT_INVALID_PMC 0xfffffffcu

/* Permission map sizes: MSRPM 8 KiB (APM Vol 2 §15.11), IOPM 12 KiB (§15.10.1) */
#define SVM_MSRPM_SIZE 0x2000
#define SVM_IOPM_SIZE 0x3000

/* Segment attributes in the VMCB's packed form: bit 9 is L, bit 10 D/B */
#define SEG_ATTR_L BIT(9)
#define SEG_ATTR_DB BIT(10)
#define SEG_ATTR_CODE64 0x029b /* P, DPL0, S, type 0xb, L */
#define SEG_ATTR_DATA 0x0c93   /* P, DPL0, S, type 0x3, D/B, G */
#define SEG_ATTR_TSS64 0x008b  /* P, busy 64-bit TSS */
#define SEG_ATTR_LDT 0x0082

#endif
