// SPDX-License-Identifier: MIT
/*
 * Fast exit handlers, called straight from the VMRESUME loop through
 * vmx_fast_exits[basic exit reason] (vmx_entry.asm): each reads and
 * writes only the VMCS fields its exit needs (never the guest's RSP),
 * counts the exit and returns non-zero to enter again.  What one does not
 * cover it hands to vmx_handle_exit_reason before it has changed
 * anything; every other reason goes there directly.
 *
 * Which exits may come here, when they must not, and what each must still
 * do are core/fast_exit.c's rules; vmx_fast_exits_init builds the table
 * from them, and this file keeps what reads and writes the VMCS.  VMX's
 * own: the IDT-vectoring information needs no look (SDM Vol 3
 * §28.2.4), and VM exits clear the VM-entry interruption-information valid
 * bit (SDM Vol 3 §25.8.3); in sw-lazy a WRMSR of the guest's GLOBAL_CTRL,
 * which the next VM entry loads from the VMCS, also goes to
 * vmx_pmu_general_exit.
 */
#include "vmx.h"
#include "vmx_exit.h"
#include "vmx_insn.h"
#include "core/exit_dispatch.h"
#include "core/fast_exit.h"
#include "pmu/pmu_vcpu.h"
#include "arch/regs.h"
#include "arch/x86.h"

vmx_fast_fn *vmx_fast_exits[VMX_FAST_EXITS];
vmx_fast_fn *vmx_fast_exits_pmu[VMX_FAST_EXITS + 1];

static inline bool vmx_fast_allowed(void)
{
	return fast_exit_tf_clear(vmread(VMCS_GUEST_RFLAGS));
}

/* Past the instruction: its length is valid for every instruction exit
 * (SDM Vol 3 §28.2.5). */
static inline void vmx_fast_done(struct vcpu *vcpu, enum exit_kind kind)
{
	vmwrite(VMCS_GUEST_RIP, vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSTRUCTION_LEN));
	vcpu->exits[kind]++;
}

/* The hypercalls fast_hypercall answers. */
static int fast_vmcall(struct vcpu *vcpu, u32 reason)
{
	enum fast_hc_answer a;

	if (!vmx_fast_allowed())
		return vmx_handle_exit_reason(vcpu, reason);
	a = fast_hypercall(vcpu->regs.gpr[GPR_RAX]);
	if (a == FAST_HC_GENERAL)
		return vmx_handle_exit_reason(vcpu, reason);
	if (unlikely(a == FAST_HC_ERROR))
		vcpu->regs.gpr[GPR_RAX] = HC_ERROR;
	vmx_fast_done(vcpu, EXIT_HYPERCALL);
	return 1;
}

static inline int vmx_cpuid_done(struct vcpu *vcpu, const struct cpuid_regs *r)
{
	u64 *g = vcpu->regs.gpr;

	g[GPR_RAX] = r->eax;
	g[GPR_RBX] = r->ebx;
	g[GPR_RCX] = r->ecx;
	g[GPR_RDX] = r->edx;
	vmx_fast_done(vcpu, EXIT_CPUID);
	return 1;
}

/* Out of line, and a tail call: the hot leaves' handler keeps no frame. */
static __attribute__((noinline)) int vmx_cpuid_any(struct vcpu *vcpu, u32 reason)
{
	struct cpuid_regs r;

	guest_cpuid_any(vcpu, (u32)vcpu->regs.gpr[GPR_RAX], (u32)vcpu->regs.gpr[GPR_RCX], &r);
	return vmx_cpuid_done(vcpu, &r);
}

/* Every leaf: none needs more than the vCPU's own state. */
static int vmx_fast_cpuid_exit(struct vcpu *vcpu, u32 reason)
{
	u32 leaf = (u32)vcpu->regs.gpr[GPR_RAX];
	const struct cpuid_regs *r;

	if (!vmx_fast_allowed())
		return vmx_handle_exit_reason(vcpu, reason);
	r = fast_cpuid(vcpu, leaf);
	if (unlikely(!r))
		MUST_TAIL return vmx_cpuid_any(vcpu, reason);
	return vmx_cpuid_done(vcpu, r);
}

static int fast_rdmsr(struct vcpu *vcpu, u32 reason)
{
	u64 *g = vcpu->regs.gpr;
	u32 index = (u32)g[GPR_RCX];
	u64 val;

	if (!fast_msr_index(index) || !vmx_fast_allowed())
		return vmx_handle_exit_reason(vcpu, reason);
	fast_msr_read(vcpu, index, &val);
	g[GPR_RAX] = (u32)val;
	g[GPR_RDX] = val >> 32;
	vmx_fast_done(vcpu, EXIT_MSR_READ);
	return 1;
}

static inline __attribute__((always_inline)) int fast_wrmsr(struct vcpu *vcpu, u32 reason,
							    vmx_fast_fn *general)
{
	u64 *g = vcpu->regs.gpr;
	u32 index = (u32)g[GPR_RCX];

	if (!fast_msr_index(index) || !vmx_fast_allowed() ||
	    !fast_msr_write(vcpu, index, (g[GPR_RDX] << 32) | (u32)g[GPR_RAX]))
		return general(vcpu, reason);
	vmx_fast_done(vcpu, EXIT_MSR_WRITE);
	return 1;
}

static int fast_wrmsr_plain(struct vcpu *vcpu, u32 reason)
{
	return fast_wrmsr(vcpu, reason, vmx_handle_exit_reason);
}

/* While the PMU needs no hook, only a write that may change that, or the
 * GLOBAL_CTRL the VM entry loads (SDM Vol 3 §25.8.1), needs the switch. */
static __attribute__((noinline)) int wrmsr_general_pmu(struct vcpu *vcpu, u32 reason)
{
	u32 index = (u32)vcpu->regs.gpr[GPR_RCX];

	if (pmu_vcpu_msr_write_needs_switch(index))
		return vmx_pmu_general_exit(vcpu, reason);
	return vmx_handle_exit_reason(vcpu, reason);
}

static int fast_wrmsr_pmu(struct vcpu *vcpu, u32 reason)
{
	return fast_wrmsr(vcpu, reason, wrmsr_general_pmu);
}

/* Exit qualification (SDM Vol 3 Table 28-5): bits 2:0 size - 1, 3 IN,
 * 4 string, 5 REP, 31:16 the port. */
#define IO_QUAL_STRING_REP (BIT(4) | BIT(5))
#define IO_QUAL_SIZE 7u
#define IO_QUAL_SIZE4 3u

/* IN and OUT to a port device; a write to the exit port stops the VM. */
static __attribute__((noinline)) int io_device(struct vcpu *vcpu, u32 reason)
{
	u64 qual = vmread(VMCS_EXIT_QUALIFICATION);

	if (!io_port_fast(vcpu, qual >> 16, (qual & IO_QUAL_SIZE) + 1, qual & BIT(3),
			  &vcpu->regs.gpr[GPR_RAX]))
		return vmx_handle_exit_reason(vcpu, reason);
	vmx_fast_done(vcpu, EXIT_IO);
	return vcpu->vm->stop == VM_RUNNING;
}

/* The exit benchmark's port inline, the others out of line (a tail call:
 * no frame here). */
static int fast_io(struct vcpu *vcpu, u32 reason)
{
	u64 qual = vmread(VMCS_EXIT_QUALIFICATION);
	u64 *rax = &vcpu->regs.gpr[GPR_RAX];

	if ((qual & IO_QUAL_STRING_REP) || !vmx_fast_allowed())
		return vmx_handle_exit_reason(vcpu, reason);
	if (likely((qual & IO_QUAL_SIZE) == IO_QUAL_SIZE4 &&
		   (u16)(qual >> 16) == GUEST_TEST_PORT)) {
		if (qual & BIT(3))
			*rax = vcpu->vm->test_port_value;
		else
			vcpu->vm->test_port_value = (u32)*rax;
		vmx_fast_done(vcpu, EXIT_IO);
		return 1;
	}
	MUST_TAIL return io_device(vcpu, reason);
}

/*
 * The exit reasons the fast path may take, the kind each stands for, and
 * their handlers: the rows of core/fast_exit.c decide which are
 * installed.  The instruction length is known for every one (SDM Vol 3
 * §28.2.5).
 */
struct vmx_fast_entry {
	u16 reason;
	u32 kinds; /* BIT(enum exit_kind) */
	vmx_fast_fn *fn;
	vmx_fast_fn *pmu_fn; /* in the PMU loops' table, if not fn */
};

static const struct vmx_fast_entry vmx_fast_entries[] = {
	{ EXIT_REASON_VMCALL, BIT(EXIT_HYPERCALL), fast_vmcall, NULL },
	{ EXIT_REASON_CPUID, BIT(EXIT_CPUID), vmx_fast_cpuid_exit, NULL },
	{ EXIT_REASON_RDMSR, BIT(EXIT_MSR_READ), fast_rdmsr, NULL },
	{ EXIT_REASON_WRMSR, BIT(EXIT_MSR_WRITE), fast_wrmsr_plain, fast_wrmsr_pmu },
	{ EXIT_REASON_IO, BIT(EXIT_IO), fast_io, NULL },
};

void vmx_fast_exits_init(void)
{
	unsigned i;

	for (i = 0; i < VMX_FAST_EXITS; i++)
		vmx_fast_exits[i] = vmx_fast_exits_pmu[i] = vmx_handle_exit_reason;
	vmx_fast_exits_pmu[VMX_FAST_EXITS] = vmx_handle_exit_reason; /* reasons from 256 up */
	for (i = 0; i < ARRAY_SIZE(vmx_fast_entries); i++) {
		const struct vmx_fast_entry *e = &vmx_fast_entries[i];

		if (fast_exit_may_take(e->kinds, true)) {
			vmx_fast_exits[e->reason] = e->fn;
			vmx_fast_exits_pmu[e->reason] = e->pmu_fn ? e->pmu_fn : e->fn;
		} else if (fast_exit_pmu_switch(e->kinds)) {
			vmx_fast_exits_pmu[e->reason] = vmx_pmu_general_exit;
		}
	}
}
