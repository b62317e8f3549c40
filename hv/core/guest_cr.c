// SPDX-License-Identifier: MIT
/*
 * Guest writes to CR0 and CR4 that the backend intercepted because they
 * touch bits mhv holds (VMX's fixed bits, CD/NW; CR4 bits the guest's
 * CPUID does not offer).  The value is checked as the CPU the guest's
 * CPUID describes would check it, then loaded by the backend.
 */
#include "guest_cr.h"
#include "arch/ctlreg.h"
#include "host/cpu_features.h"
#include "vcpu.h"

static u64 cr4_valid(const struct cpuid_cache *v)
{
	bool l7 = v->max_std >= 7;

	return ctlreg_cr4_valid(v->std[1].ecx, v->std[1].edx, l7 ? v->std[7].ebx : 0,
				l7 ? v->std[7].ecx : 0, l7 ? v->std[7].edx : 0,
				l7 ? v->leaf7_1.eax : 0);
}

u64 guest_cr4_valid(const struct vcpu *vcpu)
{
	return cr4_valid(vcpu->cpuid_view);
}

u64 guest_cr4_hidden(const struct vcpu *vcpu)
{
	return cr4_valid(&host_cpu.cpuid) & ~cr4_valid(vcpu->cpuid_view);
}

/* The source GPR when the CPU did not name it (SVM without decode assists). */
static bool decode_gpr(struct vcpu *vcpu, const struct vm_exit *exit, u8 *gpr)
{
	struct mov_cr_insn insn;
	unsigned code_bits;
	u8 bytes[INSN_MAX_LEN];
	size_t n = vcpu_fetch_insn(vcpu, bytes, sizeof(bytes), &code_bits);

	if (insn_decode_mov_cr(bytes, n, code_bits, &insn) < 0 || !insn.to_cr ||
	    insn.cr != exit->cr.cr) {
		vm_stop(
		    vcpu->vm, VM_STOP_INSN_DECODE,
		    "bytes at rip 0x%llx (%02x %02x %02x) are not the MOV to CR%u the exit names",
		    vcpu->regs.rip, n > 0 ? bytes[0] : 0, n > 1 ? bytes[1] : 0,
		    n > 2 ? bytes[2] : 0, exit->cr.cr);
		return false;
	}
	*gpr = insn.gpr;
	return true;
}

void handle_cr_write(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 cs_base;
	struct ctlreg_state s = {
		.cr0 = backend->guest_cr0(vcpu),
		.cr3 = backend->guest_cr3(vcpu),
		.cr4 = backend->guest_cr4(vcpu),
		.efer = backend->guest_efer(vcpu),
		.code64 = backend->guest_code_bits(vcpu, &cs_base) == 64,
	};
	u64 val = 0;
	u8 gpr = exit->cr.gpr;
	bool ok;

	switch (exit->cr.op) {
	case CR_WRITE_MOV:
		if (gpr == CR_GPR_DECODE && !decode_gpr(vcpu, exit, &gpr))
			return;
		/* the operand is 32 bits outside 64-bit mode (SDM Vol 2B MOV CR) */
		val = vcpu->regs.gpr[gpr & 15];
		if (!s.code64)
			val = (u32)val;
		break;
	case CR_WRITE_CLTS:
		val = s.cr0 & ~CR0_TS;
		break;
	case CR_WRITE_LMSW:
		/* PE, MP, EM, TS only, and PE is never cleared (SDM Vol 2A LMSW) */
		val = (s.cr0 & ~(u64)(CR0_MP | CR0_EM | CR0_TS)) |
		      (exit->cr.lmsw & (CR0_PE | CR0_MP | CR0_EM | CR0_TS));
		break;
	}
	if (exit->cr.cr == 0) {
		ok = ctlreg_cr0_write(&s, &val);
	} else if (exit->cr.cr == 4) {
		s.cr4_valid = guest_cr4_valid(vcpu);
		ok = ctlreg_cr4_write(&s, val);
	} else {
		vm_stop(vcpu->vm, VM_STOP_UNHANDLED, "write to CR%u at rip 0x%llx: not emulated",
			exit->cr.cr, vcpu->regs.rip);
		return;
	}
	if (!ok || !backend->set_guest_cr(vcpu, exit->cr.cr, val)) {
		vcpu_inject_gp(vcpu);
		return;
	}
	/* Paging on with EFER.LME enters IA-32e mode, paging off leaves it
	 * (SDM Vol 3 §10.8.5; APM Vol 2 §14.6). */
	if (exit->cr.cr == 0 && ((val ^ s.cr0) & CR0_PG) && (s.efer & EFER_LME))
		backend->set_guest_efer(vcpu,
					val & CR0_PG ? s.efer | EFER_LMA : s.efer & ~EFER_LMA);
	vcpu_skip_insn(vcpu, exit);
}
