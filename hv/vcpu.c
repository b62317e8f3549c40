// SPDX-License-Identifier: MIT
/* Guest-virtual memory reads and instruction skipping without NRIP save. */
#include "vcpu.h"
#include "console.h"
#include "pagetable.h"

struct guest_pt_ctx {
	struct pt_ctx pt;
	struct vm *vm;
};

static void *guest_table(struct pt_ctx *ctx, u64 gpa)
{
	return gpa_to_hva(((struct guest_pt_ctx *)ctx)->vm, gpa, PAGE_SIZE);
}

#define CR0_PG BIT(31)
#define EFER_LMA BIT(10)

size_t vcpu_read_guest_virt(struct vcpu *vcpu, u64 gva, void *buf, size_t len)
{
	struct guest_pt_ctx ctx = { .pt = { .phys_to_virt = guest_table }, .vm = vcpu->vm };
	u64 cr3 = backend->guest_cr3(vcpu) & PTE_ADDR_MASK;
	size_t done = 0;

	/* mhv's own guests always run in long mode; a multiboot kernel starts
	 * with paging off (linear = physical).  Paging outside long mode (32-bit
	 * or PAE tables) is not walked here. */
	if (unlikely(vcpu->boot32)) {
		if (!(backend->guest_cr0(vcpu) & CR0_PG)) {
			const void *src = gpa_to_hva(vcpu->vm, gva, len);

			if (!src)
				return 0;
			__builtin_memcpy(buf, src, len);
			return len;
		}
		if (!(backend->guest_efer(vcpu) & EFER_LMA))
			return 0;
	}

	while (done < len) {
		u64 gpa, page_left = PAGE_SIZE - ((gva + done) & (PAGE_SIZE - 1));
		size_t n = len - done < page_left ? len - done : page_left;
		const u8 *src;

		if (pt_translate(&ctx.pt, cr3, gva + done, &gpa, NULL, NULL) < 0)
			break;
		src = gpa_to_hva(vcpu->vm, gpa, n);
		if (!src)
			break;
		__builtin_memcpy((u8 *)buf + done, src, n);
		done += n;
	}
	return done;
}

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op)
{
	u8 bytes[15];
	size_t n;
	int len;

	if (op >= INSN_OP_COUNT) {
		vm_stop(vcpu->vm, VM_STOP_INSN_DECODE,
			"no instruction length for this exit at rip 0x%llx", vcpu->regs.rip);
		return false;
	}
	n = vcpu_read_guest_virt(vcpu, vcpu->regs.rip, bytes, sizeof(bytes));
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
	return true;
}
