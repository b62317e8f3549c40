// SPDX-License-Identifier: MIT
/*
 * Fast exit handlers, called straight from the VMRUN loop through
 * svm_fast_exits[exit code] (svm_entry.asm): each touches only the VMCB
 * fields its exit needs, counts the exit and returns non-zero to enter
 * again.  What one does not cover it hands to the general path
 * (svm_handle_exit) before it has changed anything; every other code goes
 * there directly.
 *
 * Left to the general path:
 * - a guest with RFLAGS.TF set: the #DB after the completed instruction
 *   (and mhv's own NMI single step) is vcpu_insn_completed()'s;
 * - EXITINTINFO needs no look: an instruction intercept is not taken
 *   while an event is delivered (APM Vol 2 §15.7.2);
 * - a stop comes from another CPU, whose kick is an INTR exit, or from a
 *   port device (fast_ioio says so).
 * Each handler comes twice: falling back to svm_handle_exit(_nrips), for
 * VMs without a PMU, and to svm_pmu_general_exit, for the PMU loops while
 * their PMU needs no hook (svm_pmu.c): none of these exits touches a PMU
 * register, and whatever they hand on gets the world switch around it.
 */
#include "svm.h"
#include "svm_exit.h"
#include "core/exit_dispatch.h"
#include "core/fast_exit.h"
#include "arch/regs.h"
#include "arch/x86.h"

svm_fast_fn *svm_fast_exits[SVM_EXIT_TABLE_SIZE];
svm_fast_fn *svm_fast_exits_pmu[SVM_EXIT_TABLE_SIZE];

/* Inlined into each instance, where the general path it hands on to is a
 * constant: a direct tail call, as before there were two. */
#define ALWAYS __attribute__((always_inline))

static inline bool fast_allowed(const struct vmcb *vmcb)
{
	return !(vmcb->save.rflags & RFLAGS_TF);
}

/* What svm_handle_exit does for every exit, and the step past the
 * instruction to next_rip. */
static inline void fast_done(struct vcpu *vcpu, struct vmcb *vmcb, enum exit_kind kind,
			     u64 next_rip)
{
	vmcb->control.tlb_control = 0;
	vmcb->control.event_inj = 0;
	vmcb->save.rip = next_rip;
	vcpu->exits[kind]++;
}

/*
 * Hypercalls that need no table (core/hypercall.c): HC_NULL, the
 * benchmark floor, leaves RAX at 0; a number past the table returns
 * HC_ERROR.  The others take the general path.
 */
static inline ALWAYS int fast_vmmcall(struct vcpu *vcpu, struct vmcb *vmcb, svm_fast_fn *general)
{
	u64 nr = vmcb->save.rax;

	if (!fast_allowed(vmcb))
		return general(vcpu, vmcb);
	if (unlikely(nr != HC_NULL)) {
		if (nr < HC_COUNT)
			return general(vcpu, vmcb);
		vmcb->save.rax = HC_ERROR;
	}
	fast_done(vcpu, vmcb, EXIT_HYPERCALL, vmcb->control.next_rip);
	return 1;
}

static inline int cpuid_done(struct vcpu *vcpu, struct vmcb *vmcb, const struct cpuid_regs *r)
{
	u64 *g = vcpu->regs.gpr;

	vmcb->save.rax = r->eax;
	g[GPR_RBX] = r->ebx;
	g[GPR_RCX] = r->ecx;
	g[GPR_RDX] = r->edx;
	fast_done(vcpu, vmcb, EXIT_CPUID, vmcb->control.next_rip);
	return 1;
}

/* Out of line, and a tail call: the hot leaves' handler keeps no frame. */
static __attribute__((noinline)) int cpuid_any(struct vcpu *vcpu, struct vmcb *vmcb)
{
	struct cpuid_regs r;

	guest_cpuid_any(vcpu, (u32)vmcb->save.rax, (u32)vcpu->regs.gpr[GPR_RCX], &r);
	return cpuid_done(vcpu, vmcb, &r);
}

/*
 * Every leaf: none needs more than the vCPU's own state.  A macro, not an
 * inline function taking the general path, for the MUSTTAIL: cpuid_any
 * always returns 1, so a plain call would be no tail call and cost a frame.
 */
#define FAST_CPUID_EXIT(name, general)                                          \
	static int name(struct vcpu *vcpu, struct vmcb *vmcb)                   \
	{                                                                       \
		const struct cpuid_regs *r;                                     \
                                                                                \
		if (!fast_allowed(vmcb))                                        \
			return general(vcpu, vmcb);                             \
		r = fast_cpuid(vcpu, (u32)vmcb->save.rax);                      \
		if (unlikely(!r))                                               \
			__attribute__((musttail)) return cpuid_any(vcpu, vmcb); \
		return cpuid_done(vcpu, vmcb, r);                               \
	}

/* EXITINFO1: 0 = RDMSR, 1 = WRMSR (APM Vol 2 §15.11) */
static inline ALWAYS int fast_msr(struct vcpu *vcpu, struct vmcb *vmcb, svm_fast_fn *general)
{
	u64 *g = vcpu->regs.gpr;
	u32 index = (u32)g[GPR_RCX];
	u64 val;

	if (!fast_msr_index(index) || !fast_allowed(vmcb))
		return general(vcpu, vmcb);
	if (vmcb->control.exit_info_1 & 1) {
		if (!fast_msr_write(vcpu, index, (g[GPR_RDX] << 32) | (u32)vmcb->save.rax))
			return general(vcpu, vmcb);
		fast_done(vcpu, vmcb, EXIT_MSR_WRITE, vmcb->control.next_rip);
		return 1;
	}
	fast_msr_read(vcpu, index, &val);
	vmcb->save.rax = (u32)val;
	g[GPR_RDX] = val >> 32;
	fast_done(vcpu, vmcb, EXIT_MSR_READ, vmcb->control.next_rip);
	return 1;
}

/* EXITINFO1 (APM Vol 2 §15.10.2): bit 0 IN, 2 string, 3 REP, 4-6 size
 * 1/2/4, 31:16 the port; EXITINFO2 the next RIP, NRIP save or not. */
#define IOIO_STRING_REP (BIT(2) | BIT(3))
#define IOIO_SIZE_MASK (BIT(4) | BIT(5) | BIT(6))
#define IOIO_SZ32 BIT(6)

/* IN and OUT to a port device; a write to the exit port stops the VM. */
static inline ALWAYS int ioio_device(struct vcpu *vcpu, struct vmcb *vmcb, svm_fast_fn *general)
{
	u64 info = vmcb->control.exit_info_1;
	u8 size = info & BIT(4) ? 1 : info & BIT(5) ? 2 : 4;
	u64 rax = vmcb->save.rax;

	if (!io_port_fast(vcpu, info >> 16, size, info & BIT(0), &rax))
		return general(vcpu, vmcb);
	vmcb->save.rax = rax;
	fast_done(vcpu, vmcb, EXIT_IO, vmcb->control.exit_info_2);
	return vcpu->vm->stop == VM_RUNNING;
}

static __attribute__((noinline)) int ioio_device_plain(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return ioio_device(vcpu, vmcb, svm_handle_exit);
}

static __attribute__((noinline)) int ioio_device_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return ioio_device(vcpu, vmcb, svm_pmu_general_exit);
}

/* The exit benchmark's port inline, the others out of line (a tail call:
 * no frame here). */
static inline ALWAYS int fast_ioio(struct vcpu *vcpu, struct vmcb *vmcb, svm_fast_fn *general,
				   svm_fast_fn *device)
{
	u64 info = vmcb->control.exit_info_1;

	if ((info & IOIO_STRING_REP) || !fast_allowed(vmcb))
		return general(vcpu, vmcb);
	if (likely((info & IOIO_SIZE_MASK) == IOIO_SZ32 && (u16)(info >> 16) == GUEST_TEST_PORT)) {
		if (info & BIT(0))
			vmcb->save.rax = vcpu->vm->test_port_value;
		else
			vcpu->vm->test_port_value = (u32)vmcb->save.rax;
		fast_done(vcpu, vmcb, EXIT_IO, vmcb->control.exit_info_2);
		return 1;
	}
	return device(vcpu, vmcb);
}

/* The two instances of each handler: without a PMU, and in the PMU loops. */
#define FAST_PAIR(name, general, pmu_general)                         \
	static int name##_plain(struct vcpu *vcpu, struct vmcb *vmcb) \
	{                                                             \
		return name(vcpu, vmcb, general);                     \
	}                                                             \
	static int name##_pmu(struct vcpu *vcpu, struct vmcb *vmcb)   \
	{                                                             \
		return name(vcpu, vmcb, pmu_general);                 \
	}

FAST_PAIR(fast_vmmcall, svm_handle_exit_nrips, svm_pmu_general_exit)
FAST_CPUID_EXIT(fast_cpuid_exit_plain, svm_handle_exit_nrips)
FAST_CPUID_EXIT(fast_cpuid_exit_pmu, svm_pmu_general_exit)
FAST_PAIR(fast_msr, svm_handle_exit_nrips, svm_pmu_general_exit)

/*
 * Without NRIP save an instruction's length is known only from its bytes
 * (prefixes may pad it), which the general path decodes and checks: the
 * instruction intercepts stay there; IOIO has its next RIP regardless.
 */
static int fast_ioio_plain(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return fast_ioio(vcpu, vmcb, svm_handle_exit, ioio_device_plain);
}

static int fast_ioio_pmu(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return fast_ioio(vcpu, vmcb, svm_pmu_general_exit, ioio_device_pmu);
}

void svm_fast_exits_init(bool nrips)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(svm_fast_exits); i++) {
		svm_fast_exits[i] = nrips ? svm_handle_exit_nrips : svm_handle_exit;
		svm_fast_exits_pmu[i] = svm_pmu_general_exit;
	}
	svm_fast_exits[SVM_EXIT_IOIO] = fast_ioio_plain;
	svm_fast_exits_pmu[SVM_EXIT_IOIO] = fast_ioio_pmu;
	if (!nrips)
		return;
	svm_fast_exits[SVM_EXIT_VMMCALL] = fast_vmmcall_plain;
	svm_fast_exits[SVM_EXIT_CPUID] = fast_cpuid_exit_plain;
	svm_fast_exits[SVM_EXIT_MSR] = fast_msr_plain;
	svm_fast_exits_pmu[SVM_EXIT_VMMCALL] = fast_vmmcall_pmu;
	svm_fast_exits_pmu[SVM_EXIT_CPUID] = fast_cpuid_exit_pmu;
	svm_fast_exits_pmu[SVM_EXIT_MSR] = fast_msr_pmu;
}
