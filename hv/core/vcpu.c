// SPDX-License-Identifier: MIT
/* Guest-virtual memory access and instruction skipping without NRIP save. */
#include "vcpu.h"
#include "platform/console.h"
#include "arch/pagetable.h"
#include "arch/regs.h"
#include "arch/x86.h"

struct guest_pt_ctx {
	struct pt_ctx pt;
	struct vm *vm;
};

static void *walk_table_hva(struct pt_ctx *ctx, u64 gpa)
{
	return gpa_to_hva(((struct guest_pt_ctx *)ctx)->vm, gpa, PAGE_SIZE);
}

static const void *guest_page(struct vm *vm, u64 gpa)
{
	return gpa_to_hva(vm, gpa & ~(PAGE_SIZE - 1), PAGE_SIZE);
}

/*
 * Paging outside long mode, for external guests: PAE paging (SDM Vol 3
 * §5.4.2: a 4-entry PDPT at CR3[31:5], 2 MiB pages in the PD) and 32-bit
 * paging (§5.3: 4 MiB pages when CR4.PSE; PSE-36 high bits ignored).
 */
static bool translate_legacy(struct vcpu *vcpu, u64 gva, u64 *gpa)
{
	struct vm *vm = vcpu->vm;
	u64 cr3 = backend->guest_cr3(vcpu), cr4 = backend->guest_cr4(vcpu);

	gva &= 0xffffffffull;
	if (cr4 & CR4_PAE) {
		const u64 *pdpt = gpa_to_hva(vm, cr3 & 0xffffffe0ull, 32), *t;
		u64 e;

		if (!pdpt || !((e = pdpt[(gva >> 30) & 3]) & PTE_P))
			return false;
		if (!(t = guest_page(vm, e & PTE_ADDR_MASK)) ||
		    !((e = t[(gva >> 21) & 511]) & PTE_P))
			return false;
		if (e & PTE_PS) {
			*gpa = (e & PTE_ADDR_MASK & ~0x1fffffull) | (gva & 0x1fffff);
			return true;
		}
		if (!(t = guest_page(vm, e & PTE_ADDR_MASK)) ||
		    !((e = t[(gva >> 12) & 511]) & PTE_P))
			return false;
		*gpa = (e & PTE_ADDR_MASK) | (gva & 0xfff);
		return true;
	}
	const u32 *pd = guest_page(vm, cr3), *pt;
	u32 e;

	if (!pd || !((e = pd[gva >> 22]) & PTE_P))
		return false;
	if ((e & PTE_PS) && (cr4 & CR4_PSE)) {
		*gpa = (e & 0xffc00000u) | (gva & 0x3fffff);
		return true;
	}
	if (!(pt = guest_page(vm, e)) || !((e = pt[(gva >> 12) & 1023]) & PTE_P))
		return false;
	*gpa = (e & 0xfffff000u) | (gva & 0xfff);
	return true;
}

/* External guests outside long mode: paging off (linear = physical), or
 * legacy / PAE paging. */
static bool translate_outside_long_mode(struct vcpu *vcpu, const void *ctx, u64 gva, u64 *gpa)
{
	if (!(backend->guest_cr0(vcpu) & CR0_PG)) {
		*gpa = gva & 0xffffffffull;
		return true;
	}
	return translate_legacy(vcpu, gva, gpa);
}

/* 4-level paging from the CR3 in @ctx (mhv's own guests, and long mode),
 * or 5-level where an external guest set CR4.LA57. */
struct long_mode_ctx {
	struct guest_pt_ctx walk;
	u64 cr3;
	bool la57;
};

/*
 * 5-level paging (SDM Vol 3 §5.5): the PML5 entry for bits 56:48, then
 * the 4-level walk from its PML4 with the address sign-extended from bit
 * 47, which leaves the bits that walk indexes as they are.
 */
static __attribute__((noinline, cold)) bool translate_la57(struct long_mode_ctx *c, u64 gva,
							   u64 *gpa)
{
	const u64 *pml5 = guest_page(c->walk.vm, c->cr3);
	u64 e;

	if ((u64)((s64)(gva << 7) >> 7) != gva || !pml5 || !((e = pml5[(gva >> 48) & 511]) & PTE_P))
		return false;
	return pt_translate(&c->walk.pt, e & PTE_ADDR_MASK, (u64)((s64)(gva << 16) >> 16), gpa,
			    NULL, NULL) >= 0;
}

static bool translate_long_mode(struct vcpu *vcpu, const void *ctx, u64 gva, u64 *gpa)
{
	struct long_mode_ctx *c = (struct long_mode_ctx *)ctx;

	if (unlikely(c->la57))
		return translate_la57(c, gva, gpa);
	return pt_translate(&c->walk.pt, c->cr3, gva, gpa, NULL, NULL) >= 0;
}

/* Only external guests may turn on 5-level paging (mhv's own never do). */
static bool guest_la57(struct vcpu *vcpu)
{
	return unlikely(vcpu->boot32) && (backend->guest_cr4(vcpu) & CR4_LA57);
}

/*
 * Copy guest-virtual memory page by page through @translate; inlined into
 * each caller so that @translate is a direct call (the long-mode one is on
 * the MMIO and no-NRIP exit paths).
 */
static inline __attribute__((always_inline)) size_t
copy_from_guest_virt(struct vcpu *vcpu, u64 gva, void *buf, size_t len,
		     bool (*translate)(struct vcpu *, const void *, u64, u64 *), const void *ctx)
{
	size_t done = 0;

	while (done < len) {
		u64 gpa, page_left = PAGE_SIZE - ((gva + done) & (PAGE_SIZE - 1));
		size_t n = len - done < page_left ? len - done : page_left;
		const u8 *src;

		if (!translate(vcpu, ctx, gva + done, &gpa))
			break;
		src = gpa_to_hva(vcpu->vm, gpa, n);
		if (!src)
			break;
		__builtin_memcpy((u8 *)buf + done, src, n);
		done += n;
	}
	return done;
}

static __attribute__((noinline)) size_t read_outside_long_mode(struct vcpu *vcpu, u64 gva,
							       void *buf, size_t len)
{
	return copy_from_guest_virt(vcpu, gva, buf, len, translate_outside_long_mode, NULL);
}

/* mhv's own guests always run in long mode; external ones may not */
static bool outside_long_mode(struct vcpu *vcpu)
{
	return unlikely(vcpu->boot32) &&
	       (!(backend->guest_cr0(vcpu) & CR0_PG) || !(backend->guest_efer(vcpu) & EFER_LMA));
}

size_t vcpu_read_guest_virt(struct vcpu *vcpu, u64 gva, void *buf, size_t len)
{
	struct long_mode_ctx ctx = {
		.walk = { .pt = { .phys_to_virt = walk_table_hva }, .vm = vcpu->vm },
		.cr3 = backend->guest_cr3(vcpu) & PTE_ADDR_MASK,
		.la57 = guest_la57(vcpu),
	};

	if (outside_long_mode(vcpu))
		return read_outside_long_mode(vcpu, gva, buf, len);
	return copy_from_guest_virt(vcpu, gva, buf, len, translate_long_mode, &ctx);
}

/* Long mode, or a guest outside it: the same choice as vcpu_read_guest_virt. */
bool vcpu_translate_gva(struct vcpu *vcpu, u64 gva, u64 *gpa)
{
	struct long_mode_ctx ctx = {
		.walk = { .pt = { .phys_to_virt = walk_table_hva }, .vm = vcpu->vm },
		.cr3 = backend->guest_cr3(vcpu) & PTE_ADDR_MASK,
		.la57 = guest_la57(vcpu),
	};

	if (outside_long_mode(vcpu))
		return translate_outside_long_mode(vcpu, NULL, gva, gpa);
	return translate_long_mode(vcpu, &ctx, gva, gpa);
}

size_t vcpu_fetch_insn_any_mode(struct vcpu *vcpu, u8 *buf, size_t len, unsigned *code_bits)
{
	u64 cs_base = 0, ip = vcpu->regs.rip;

	/* outside 64-bit mode the linear address is CS.base + IP (SDM Vol 3
	 * §3.4.3; §21.1.1 for real mode) */
	*code_bits = backend->guest_code_bits(vcpu, &cs_base);
	if (*code_bits != 64)
		ip = (cs_base + (*code_bits == 16 ? ip & 0xffff : ip)) & 0xffffffffull;
	return vcpu_read_guest_virt(vcpu, ip, buf, len);
}

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op)
{
	u8 bytes[15];
	unsigned code_bits;
	size_t n;
	int len;

	if (op >= INSN_OP_COUNT) {
		vm_stop(vcpu->vm, VM_STOP_INSN_DECODE,
			"no instruction length for this exit at rip 0x%llx", vcpu->regs.rip);
		return false;
	}
	n = vcpu_fetch_insn(vcpu, bytes, sizeof(bytes), &code_bits);
	len = insn_length(op, bytes, n);
	/* QEMU 7.2's SVM reports INVD with the WBINVD exit code; both are
	 * handled alike, so either instruction is accepted for that exit. */
	if (len < 0 && op == INSN_WBINVD)
		len = insn_length(INSN_INVD, bytes, n);
	if (len < 0) {
		vm_stop(vcpu->vm, VM_STOP_INSN_DECODE,
			"bytes at rip 0x%llx (%02x %02x %02x) are not the %s the exit names",
			vcpu->regs.rip, n > 0 ? bytes[0] : 0, n > 1 ? bytes[1] : 0,
			n > 2 ? bytes[2] : 0, insn_op_name(op));
		return false;
	}
	vcpu->regs.rip += len;
	vcpu_insn_completed(vcpu);
	return true;
}

void vcpu_single_step_trap(struct vcpu *vcpu)
{
	int taken_back = backend->single_step_trap(vcpu);

	if (taken_back == BACKEND_REQUEUE_NMI)
		vcpu->nmi_pending = 1;
	else if (taken_back >= 0)
		apic_requeue(vcpu, taken_back);
	/* what was taken back, or an NMI that waited for this instruction */
	if (taken_back >= 0 || vcpu->nmi_pending)
		apic_update_interrupts(vcpu);
}
