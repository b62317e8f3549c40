// SPDX-License-Identifier: MIT
/*
 * Fast exit handlers, called straight from the VMRUN loop through
 * svm_fast_exits[exit code] (svm_entry.asm): each touches only the VMCB
 * fields its exit needs, counts the exit and returns non-zero to enter
 * again.  What one does not cover it hands to the general path
 * (svm_handle_exit) before it has changed anything; every other code goes
 * there directly.
 *
 * Which exits may come here, when they must not, and what each must still
 * do are core/fast_exit.c's rules; svm_fast_exits_init builds the table
 * from them, and this file keeps what reads and writes the VMCB.  SVM's
 * own: EXITINTINFO needs no look (APM Vol 2 §15.7.2); without NRIP
 * save only IOIO, whose EXITINFO2 is the next RIP, goes fast
 * (svm_fast_exits_init).
 */
#include "svm.h"
#include "svm_exit.h"
#include "core/exit_dispatch.h"
#include "core/fast_exit.h"
#include "pmu/pmu_vcpu.h"
#include "arch/regs.h"
#include "arch/x86.h"

svm_fast_fn *svm_fast_exits[SVM_EXIT_TABLE_SIZE];
svm_fast_fn *svm_fast_exits_pmu[SVM_EXIT_TABLE_SIZE + 1];

/* The step past the instruction to next_rip, the exit counted, and no TLB
 * flush at the next VMRUN. */
static inline void svm_fast_step(struct vcpu *vcpu, struct vmcb *vmcb, enum exit_kind kind,
				 u64 next_rip)
{
	vmcb->control.tlb_control = 0;
	vmcb->save.rip = next_rip;
	vcpu->exits[kind]++;
}

/* What svm_handle_exit does for every exit (the event injected at the last
 * VMRUN is not injected again), and the step. */
static inline void svm_fast_done(struct vcpu *vcpu, struct vmcb *vmcb, enum exit_kind kind,
				 u64 next_rip)
{
	vmcb->control.event_inj = 0;
	svm_fast_step(vcpu, vmcb, kind, next_rip);
}

/* The hypercalls fast_hypercall answers; RAX is the VMCB's. */
static int fast_vmmcall(struct vcpu *vcpu, struct vmcb *vmcb)
{
	enum fast_hc_answer a;

	if (!fast_exit_tf_clear(vmcb->save.rflags))
		return svm_handle_exit_nrips(vcpu, vmcb);
	a = fast_hypercall(vmcb->save.rax);
	if (a == FAST_HC_GENERAL)
		return svm_handle_exit_nrips(vcpu, vmcb);
	if (unlikely(a == FAST_HC_ERROR))
		vmcb->save.rax = HC_ERROR;
	svm_fast_done(vcpu, vmcb, EXIT_HYPERCALL, vmcb->control.next_rip);
	return 1;
}

static inline int svm_cpuid_done(struct vcpu *vcpu, struct vmcb *vmcb, const struct cpuid_regs *r)
{
	u64 *g = vcpu->regs.gpr;

	vmcb->save.rax = r->eax;
	g[GPR_RBX] = r->ebx;
	g[GPR_RCX] = r->ecx;
	g[GPR_RDX] = r->edx;
	svm_fast_done(vcpu, vmcb, EXIT_CPUID, vmcb->control.next_rip);
	return 1;
}

/* Out of line, and a tail call: the hot leaves' handler keeps no frame. */
static __attribute__((noinline)) int svm_cpuid_any(struct vcpu *vcpu, struct vmcb *vmcb)
{
	struct cpuid_regs r;

	guest_cpuid_any(vcpu, (u32)vmcb->save.rax, (u32)vcpu->regs.gpr[GPR_RCX], &r);
	return svm_cpuid_done(vcpu, vmcb, &r);
}

/* Every leaf: none needs more than the vCPU's own state. */
static int svm_fast_cpuid_exit(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u32 leaf = (u32)vmcb->save.rax;
	const struct cpuid_regs *r;

	if (!fast_exit_tf_clear(vmcb->save.rflags))
		return svm_handle_exit_nrips(vcpu, vmcb);
	r = fast_cpuid(vcpu, leaf);
	if (unlikely(!r))
		MUST_TAIL return svm_cpuid_any(vcpu, vmcb);
	return svm_cpuid_done(vcpu, vmcb, r);
}

/* EXITINFO1: 0 = RDMSR, 1 = WRMSR (APM Vol 2 §15.11); inlined into both
 * instances below, where the general path is a constant: a direct tail call. */
static inline __attribute__((always_inline)) int fast_msr(struct vcpu *vcpu, struct vmcb *vmcb,
							  svm_fast_fn *general)
{
	u64 *g = vcpu->regs.gpr;
	u32 index = (u32)g[GPR_RCX];
	u64 val;

	if (!fast_msr_index(index) || !fast_exit_tf_clear(vmcb->save.rflags))
		return general(vcpu, vmcb);
	if (vmcb->control.exit_info_1 & 1) {
		if (!fast_msr_write(vcpu, index, (g[GPR_RDX] << 32) | (u32)vmcb->save.rax))
			return general(vcpu, vmcb);
		svm_fast_done(vcpu, vmcb, EXIT_MSR_WRITE, vmcb->control.next_rip);
		return 1;
	}
	fast_msr_read(vcpu, index, &val);
	vmcb->save.rax = (u32)val;
	g[GPR_RDX] = val >> 32;
	svm_fast_done(vcpu, vmcb, EXIT_MSR_READ, vmcb->control.next_rip);
	return 1;
}

static int fast_msr_plain(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return fast_msr(vcpu, vmcb, svm_handle_exit_nrips);
}

/* While the PMU needs no hook, only a write that may change that needs the
 * switch.  Out of line: inlined, it cost the fast path an instruction. */
static __attribute__((noinline)) int msr_general_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	if ((vmcb->control.exit_info_1 & 1) &&
	    pmu_vcpu_msr_write_needs_switch((u32)vcpu->regs.gpr[GPR_RCX]))
		return svm_pmu_general_exit(vcpu, vmcb);
	return svm_handle_exit_nrips(vcpu, vmcb);
}

static int fast_msr_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return fast_msr(vcpu, vmcb, msr_general_pmu);
}

/* EXITINFO1 (APM Vol 2 §15.10.2): bit 0 IN, 2 string, 3 REP, 4-6 size
 * 1/2/4, 31:16 the port; EXITINFO2 the next RIP, NRIP save or not. */
#define IOIO_STRING_REP (BIT(2) | BIT(3))
#define IOIO_SIZE_MASK (BIT(4) | BIT(5) | BIT(6))
#define IOIO_SZ32 BIT(6)

/* IN and OUT to a port device; a write to the exit port stops the VM. */
static __attribute__((noinline)) int ioio_device(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u64 info = vmcb->control.exit_info_1;
	u8 size = info & BIT(4) ? 1 : info & BIT(5) ? 2 : 4;
	u64 rax = vmcb->save.rax;

	/* Cleared first: the device may raise a line whose vector the APIC
	 * injects at once (a UART's THRE on its IER write), and that must
	 * reach the guest (tests/unit/test_svm_fast.c). */
	vmcb->control.event_inj = 0;
	if (!io_port_fast(vcpu, info >> 16, size, info & BIT(0), &rax))
		return svm_handle_exit(vcpu, vmcb);
	vmcb->save.rax = rax;
	svm_fast_step(vcpu, vmcb, EXIT_IO, vmcb->control.exit_info_2);
	return vcpu->vm->stop == VM_RUNNING;
}

/* The exit benchmark's port inline, the others out of line (a tail call:
 * no frame here). */
static int fast_ioio(struct vcpu *vcpu, struct vmcb *vmcb)
{
	u64 info = vmcb->control.exit_info_1;

	if ((info & IOIO_STRING_REP) || !fast_exit_tf_clear(vmcb->save.rflags))
		return svm_handle_exit(vcpu, vmcb);
	if (likely((info & IOIO_SIZE_MASK) == IOIO_SZ32 && (u16)(info >> 16) == GUEST_TEST_PORT)) {
		if (info & BIT(0))
			vmcb->save.rax = vcpu->vm->test_port_value;
		else
			vcpu->vm->test_port_value = (u32)vmcb->save.rax;
		svm_fast_done(vcpu, vmcb, EXIT_IO, vmcb->control.exit_info_2);
		return 1;
	}
	MUST_TAIL return ioio_device(vcpu, vmcb);
}

/*
 * The exit codes the fast path may take, the kinds each stands for, and
 * their handlers: the rows of core/fast_exit.c decide which are installed.
 */
struct svm_fast_entry {
	u16 code;
	u32 kinds; /* BIT(enum exit_kind) */
	svm_fast_fn *fn;
	svm_fast_fn *pmu_fn; /* in the PMU loops' table, if not fn */
};

static const struct svm_fast_entry svm_fast_entries[] = {
	{ SVM_EXIT_VMMCALL, BIT(EXIT_HYPERCALL), fast_vmmcall, NULL },
	{ SVM_EXIT_CPUID, BIT(EXIT_CPUID), svm_fast_cpuid_exit, NULL },
	/* one code for RDMSR and WRMSR, EXITINFO1 says which */
	{ SVM_EXIT_MSR, BIT(EXIT_MSR_READ) | BIT(EXIT_MSR_WRITE), fast_msr_plain, fast_msr_pmu },
	{ SVM_EXIT_IOIO, BIT(EXIT_IO), fast_ioio, NULL },
};

/*
 * Without NRIP save an instruction's length is known only from its bytes
 * (prefixes may pad it), which the general path decodes and checks: the
 * instruction intercepts stay there; IOIO has its next RIP regardless.
 * An exit whose write needs the PMU switch and is not fast goes to the
 * switch in the PMU loops' table.
 */
void svm_fast_exits_init(bool nrips)
{
	svm_fast_fn *general = nrips ? svm_handle_exit_nrips : svm_handle_exit;
	unsigned i;

	for (i = 0; i < SVM_EXIT_TABLE_SIZE; i++)
		svm_fast_exits[i] = svm_fast_exits_pmu[i] = general;
	svm_fast_exits_pmu[SVM_EXIT_TABLE_SIZE] = svm_handle_exit; /* codes above 255 */
	for (i = 0; i < ARRAY_SIZE(svm_fast_entries); i++) {
		const struct svm_fast_entry *e = &svm_fast_entries[i];

		if (fast_exit_may_take(e->kinds, nrips)) {
			svm_fast_exits[e->code] = e->fn;
			svm_fast_exits_pmu[e->code] = e->pmu_fn ? e->pmu_fn : e->fn;
		} else if (fast_exit_pmu_switch(e->kinds)) {
			svm_fast_exits_pmu[e->code] = svm_pmu_general_exit;
		}
	}
}
