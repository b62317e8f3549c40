/* SPDX-License-Identifier: MIT */
#ifndef MHV_VCPU_H
#define MHV_VCPU_H

#include "backend.h"
#include "exit_dispatch.h"
#include "vm.h"
#include "arch/regs.h"

/* Count and handle one exit; false once the VM has been stopped. */
static inline bool vcpu_dispatch_exit(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vcpu->exits[exit->kind]++;
	exit_handlers[exit->kind](vcpu, exit);
	return likely(vcpu->vm->stop == VM_RUNNING);
}

bool vcpu_skip_decoded(struct vcpu *vcpu, enum insn_op op);
void vcpu_single_step_trap(struct vcpu *vcpu);

/*
 * mhv completed an instruction for the guest: with RFLAGS.TF set before
 * it, a single-step #DB follows it (SDM Vol 3 §18.3.1.4; APM Vol 2
 * §13.1.1.5).  One test on the common path, and only here: RFLAGS is
 * not copied at exits (vcpu->guest_rflags points at it).
 */
static inline void vcpu_insn_completed(struct vcpu *vcpu)
{
	if (unlikely(*vcpu->guest_rflags & RFLAGS_TF))
		vcpu_single_step_trap(vcpu);
}

/*
 * Advance past the intercepted instruction: from the CPU's next RIP when
 * it gave one, else from the opcode bytes at RIP, checked to be the
 * instruction the exit names.  False when the VM was stopped instead.
 */
static inline bool vcpu_skip_insn(struct vcpu *vcpu, const struct vm_exit *exit)
{
	if (likely(exit->next_rip)) {
		vcpu->regs.rip = exit->next_rip;
		vcpu_insn_completed(vcpu);
		return true;
	}
	return vcpu_skip_decoded(vcpu, exit->insn);
}

static inline void vcpu_inject_gp(struct vcpu *vcpu)
{
	backend->inject_exception(vcpu, 13, true, 0);
}

static inline void vcpu_inject_ud(struct vcpu *vcpu)
{
	backend->inject_exception(vcpu, 6, false, 0);
}

/* #PF with the address in CR2 and the error code of SDM Vol 3 §4.7. */
static inline void vcpu_inject_pf(struct vcpu *vcpu, u64 addr, u32 error)
{
	backend->set_guest_cr2(vcpu, addr);
	backend->inject_exception(vcpu, 14, true, error);
}

/* Copy len bytes at guest-virtual gva into buf; number of bytes copied. */
size_t vcpu_read_guest_virt(struct vcpu *vcpu, u64 gva, void *buf, size_t len);
/* Guest-linear to guest-physical through the guest's paging as it is now
 * (present bits only: no access rights); false when not mapped. */
bool vcpu_translate_gva(struct vcpu *vcpu, u64 gva, u64 *gpa);
size_t vcpu_fetch_insn_any_mode(struct vcpu *vcpu, u8 *buf, size_t len, unsigned *code_bits);

/* The bytes at the guest's CS:RIP and the code size they decode in (16,
 * 32, 64); mhv's own guests are always in 64-bit mode. */
static inline size_t vcpu_fetch_insn(struct vcpu *vcpu, u8 *buf, size_t len, unsigned *code_bits)
{
	if (unlikely(vcpu->boot32))
		return vcpu_fetch_insn_any_mode(vcpu, buf, len, code_bits);
	*code_bits = 64;
	return vcpu_read_guest_virt(vcpu, vcpu->regs.rip, buf, len);
}

#endif
