// SPDX-License-Identifier: MIT
#include "vmx_guest_check.h"
#include "lib/fmt.h"
#include "vmcs.h"
#include "arch/regs.h"
#include "arch/segment.h"

const char *vmx_check_guest_state(const struct vmx_guest_state *g, char *buf, size_t size)
{
	bool ia32e = g->entry_controls & ENTRY_IA32E_MODE_GUEST;
	u64 bad;

	/* §27.3.1.1: control registers; an unrestricted guest may clear PE and PG */
	bad = ((g->cr0_fixed0 & ~(g->unrestricted ? CR0_PE | CR0_PG : 0)) & ~g->cr0) |
	      (g->cr0 & ~g->cr0_fixed1);
	if (bad)
		goto cr0;
	bad = (g->cr4_fixed0 & ~g->cr4) | (g->cr4 & ~g->cr4_fixed1);
	if (bad) {
		fmt_snprintf(buf, size,
			     "GUEST_CR4 0x%llx breaks IA32_VMX_CR4_FIXED0/1 in bits 0x%llx", g->cr4,
			     bad);
		return buf;
	}
	if ((g->cr0 & CR0_PG) && !(g->cr0 & CR0_PE)) {
		bad = CR0_PE;
		goto cr0;
	}
	if (ia32e && (!(g->cr0 & CR0_PG) || !(g->cr4 & CR4_PAE))) {
		fmt_snprintf(buf, size,
			     "IA-32e mode guest needs CR0.PG and CR4.PAE (CR0 0x%llx, "
			     "CR4 0x%llx)",
			     g->cr0, g->cr4);
		return buf;
	}
	if (!!(g->efer & EFER_LMA) != ia32e ||
	    ((g->cr0 & CR0_PG) && !!(g->efer & EFER_LME) != !!(g->efer & EFER_LMA))) {
		fmt_snprintf(buf, size,
			     "GUEST_IA32_EFER 0x%llx: LMA must equal the IA-32e mode "
			     "control (%d), and LME must equal LMA with paging on",
			     g->efer, ia32e);
		return buf;
	}
	/* §27.3.1.4: RFLAGS */
	if (!(g->rflags & RFLAGS_FIXED1) || (g->rflags & RFLAGS_RESERVED)) {
		fmt_snprintf(buf, size,
			     "GUEST_RFLAGS 0x%llx: bit 1 must be set, reserved bits clear",
			     g->rflags);
		return buf;
	}
	/* §27.3.1.2: segments */
	if (!(g->cs_ar & AR_P) || !(g->cs_ar & AR_S) || !(AR_TYPE(g->cs_ar) & 8)) {
		fmt_snprintf(buf, size, "GUEST_CS_AR 0x%x: CS must be a present code segment",
			     g->cs_ar);
		return buf;
	}
	if (ia32e && (g->cs_ar & AR_L) && (g->cs_ar & AR_DB)) {
		fmt_snprintf(buf, size, "GUEST_CS_AR 0x%x: L and D/B both set", g->cs_ar);
		return buf;
	}
	if ((g->tr_ar & AR_UNUSABLE) || (g->tr_ar & AR_S) || !(g->tr_ar & AR_P) ||
	    AR_TYPE(g->tr_ar) != SEG_TYPE_TSS64_BUSY || (g->tr_sel & 4)) {
		fmt_snprintf(buf, size,
			     "GUEST_TR_AR 0x%x / GUEST_TR_SEL 0x%x: TR must be a usable, "
			     "present, busy 64-bit TSS from the GDT",
			     g->tr_ar, g->tr_sel);
		return buf;
	}
	if (!(g->ldtr_ar & AR_UNUSABLE) &&
	    ((g->ldtr_ar & AR_S) || !(g->ldtr_ar & AR_P) || AR_TYPE(g->ldtr_ar) != SEG_TYPE_LDT)) {
		fmt_snprintf(buf, size, "GUEST_LDTR_AR 0x%x: a usable LDTR must be a present LDT",
			     g->ldtr_ar);
		return buf;
	}
	return NULL;
cr0:
	fmt_snprintf(buf, size, "GUEST_CR0 0x%llx breaks IA32_VMX_CR0_FIXED0/1 in bits 0x%llx",
		     g->cr0, bad);
	return buf;
}
