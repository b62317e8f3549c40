// SPDX-License-Identifier: MIT
/* MOV to CR0/CR4 checks; see ctlreg.h. */
#include "ctlreg.h"
#include "regs.h"

/* CR0 bits 31:0 that are defined; writes to the others are ignored
 * (SDM Vol 3 §2.5: PE MP EM TS ET NE WP AM NW CD PG). */
#define CR0_DEFINED                                                                                \
	(CR0_PE | CR0_MP | CR0_EM | CR0_TS | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_NW | CR0_CD | \
	 CR0_PG)

/* One CR4 bit and the CPUID feature flag that says it exists. */
enum {
	L1_ECX,
	L1_EDX,
	L7_EBX,
	L7_ECX,
	L7_EDX,
	L7_1_EAX
};

static const struct {
	u64 cr4;
	u8 reg, bit;
} cr4_features[] = {
	{ CR4_VME, L1_EDX, 1 },		{ CR4_PVI, L1_EDX, 1 },	       { CR4_TSD, L1_EDX, 4 },
	{ CR4_DE, L1_EDX, 2 },		{ CR4_PSE, L1_EDX, 3 },	       { CR4_PAE, L1_EDX, 6 },
	{ CR4_MCE, L1_EDX, 7 },		{ CR4_PGE, L1_EDX, 13 },       { CR4_OSFXSR, L1_EDX, 24 },
	{ CR4_OSXMMEXCPT, L1_EDX, 25 }, { CR4_VMXE, L1_ECX, 5 },       { CR4_SMXE, L1_ECX, 6 },
	{ CR4_PCIDE, L1_ECX, 17 },	{ CR4_OSXSAVE, L1_ECX, 26 },   { CR4_FSGSBASE, L7_EBX, 0 },
	{ CR4_SMEP, L7_EBX, 7 },	{ CR4_SMAP, L7_EBX, 20 },      { CR4_UMIP, L7_ECX, 2 },
	{ CR4_PKE, L7_ECX, 3 },		{ CR4_LA57, L7_ECX, 16 },      { CR4_KL, L7_ECX, 23 },
	{ CR4_PKS, L7_ECX, 31 },	{ CR4_CET, L7_ECX, 7 },	       { CR4_CET, L7_EDX, 20 },
	{ CR4_UINTR, L7_EDX, 5 },	{ CR4_LAM_SUP, L7_1_EAX, 26 }, { CR4_FRED, L7_1_EAX, 17 },
};

u64 ctlreg_cr4_valid(u32 l1_ecx, u32 l1_edx, u32 l7_ebx, u32 l7_ecx, u32 l7_edx, u32 l7_1_eax)
{
	const u32 regs[] = { l1_ecx, l1_edx, l7_ebx, l7_ecx, l7_edx, l7_1_eax };
	u64 valid = CR4_PCE; /* no feature flag: every x86-64 CPU has RDPMC */
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cr4_features); i++)
		if (regs[cr4_features[i].reg] & BIT(cr4_features[i].bit))
			valid |= cr4_features[i].cr4;
	return valid;
}

bool ctlreg_cr0_write(const struct ctlreg_state *s, u64 *val)
{
	u64 v = *val;

	if (v >> 32)
		return false;
	v = (v & CR0_DEFINED) | CR0_ET;
	if ((v & CR0_NW) && !(v & CR0_CD))
		return false;
	if ((v & CR0_PG) && !(v & CR0_PE))
		return false;
	/* IA-32e mode needs PAE paging (SDM Vol 3 §10.8.5) */
	if ((v & CR0_PG) && !(s->cr0 & CR0_PG) && (s->efer & EFER_LME) && !(s->cr4 & CR4_PAE))
		return false;
	/* paging stays on in 64-bit mode and with PCIDs (SDM Vol 2B MOV CR) */
	if (!(v & CR0_PG) && (s->code64 || (s->cr4 & CR4_PCIDE)))
		return false;
	if (!(v & CR0_WP) && (s->cr4 & CR4_CET))
		return false;
	*val = v;
	return true;
}

bool ctlreg_cr4_write(const struct ctlreg_state *s, u64 val)
{
	bool lma = s->efer & EFER_LMA;

	if (val & ~s->cr4_valid)
		return false;
	/* IA-32e mode cannot leave PAE paging or change its depth */
	if (lma && (!(val & CR4_PAE) || ((val ^ s->cr4) & CR4_LA57)))
		return false;
	/* PCIDs need IA-32e mode and PCID 0 in CR3 at the switch */
	if ((val & CR4_PCIDE) && !(s->cr4 & CR4_PCIDE) && (!lma || (s->cr3 & 0xfff)))
		return false;
	if ((val & CR4_CET) && !(s->cr0 & CR0_WP))
		return false;
	return true;
}
