// SPDX-License-Identifier: MIT
#include "svm_vmcb_check.h"
#include "arch/regs.h"
#include "lib/fmt.h"

/* EFER bits that must be zero on every AMD64 CPU (APM Vol 2 §3.1.7) */
#define EFER_MBZ (0xfeull | BIT(9) | ~0xffffffffull)
#define EXCEPTION_VECTORS 32
#define NMI_VECTOR 2

static bool map_beyond(u64 base, u64 size, unsigned phys_bits)
{
	return phys_bits && phys_bits < 64 && base + size - 1 >= BIT(phys_bits);
}

/* §15.20: a reserved TYPE, or an "exception" whose vector is none (NMI included). */
static bool bad_event(u64 event_inj)
{
	u64 type = event_inj & EVENT_TYPE_MASK;
	u64 vector = event_inj & EVENT_VECTOR_MASK;

	if (!(event_inj & EVENT_VALID))
		return false;
	if (type == (1ull << 8) || type > (4ull << 8))
		return true;
	return type == EVENT_TYPE_EXCEPTION &&
	       (vector == NMI_VECTOR || vector >= EXCEPTION_VECTORS);
}

#define FAIL(...)                                     \
	do {                                          \
		fmt_snprintf(buf, size, __VA_ARGS__); \
		return buf;                           \
	} while (0)

const char *svm_vmcb_check(const struct vmcb *vmcb, unsigned phys_bits, char *buf, size_t size)
{
	const struct vmcb_control_area *c = &vmcb->control;
	const struct vmcb_save_area *g = &vmcb->save;
	bool long_paging = (g->efer & EFER_LME) && (g->cr0 & CR0_PG);

	if (!(g->efer & EFER_SVME))
		FAIL("guest EFER.SVME is 0 (EFER 0x%llx)", g->efer);
	if ((g->cr0 & CR0_NW) && !(g->cr0 & CR0_CD))
		FAIL("guest CR0.NW is set with CR0.CD clear (CR0 0x%llx)", g->cr0);
	if (g->cr0 >> 32)
		FAIL("guest CR0 0x%llx sets bits 63:32", g->cr0);
	if (long_paging && g->cr3 >> 52)
		FAIL("guest CR3 0x%llx sets bits 63:52", g->cr3);
	if (g->cr4 >> 32)
		FAIL("guest CR4 0x%llx sets bits 63:32", g->cr4);
	if (g->dr6 >> 32)
		FAIL("guest DR6 0x%llx sets bits 63:32", g->dr6);
	if (g->dr7 >> 32)
		FAIL("guest DR7 0x%llx sets bits 63:32", g->dr7);
	if (g->efer & EFER_MBZ)
		FAIL("guest EFER 0x%llx sets reserved bits 0x%llx", g->efer, g->efer & EFER_MBZ);
	if (long_paging && !(g->cr4 & CR4_PAE))
		FAIL("guest EFER.LME and CR0.PG are set with CR4.PAE clear");
	if (long_paging && !(g->cr0 & CR0_PE))
		FAIL("guest EFER.LME and CR0.PG are set with CR0.PE clear");
	if (long_paging && (g->cr4 & CR4_PAE) && (g->cs.attrib & SEG_ATTR_L) &&
	    (g->cs.attrib & SEG_ATTR_DB))
		FAIL("guest CS has both L and D set in long mode (attributes 0x%x)", g->cs.attrib);
	if (!(c->intercept_misc2 & INTERCEPT_VMRUN))
		FAIL("the VMRUN intercept is clear");
	if (map_beyond(c->msrpm_base_pa, SVM_MSRPM_SIZE, phys_bits))
		FAIL("the MSR permission map at 0x%llx ends beyond the %u-bit physical addresses",
		     c->msrpm_base_pa, phys_bits);
	if (map_beyond(c->iopm_base_pa, SVM_IOPM_SIZE, phys_bits))
		FAIL("the I/O permission map at 0x%llx ends beyond the %u-bit physical addresses",
		     c->iopm_base_pa, phys_bits);
	if (bad_event(c->event_inj))
		FAIL("illegal event injection: EVENTINJ 0x%llx", c->event_inj);
	if (!c->guest_asid)
		FAIL("guest ASID 0, the host's");
	return NULL;
}
