// SPDX-License-Identifier: MIT
/*
 * The exit dispatch table and the handlers small enough to live beside
 * it.  Handlers resume the guest by returning; they stop it through
 * vm_stop().
 */
#include "exit_dispatch.h"
#include "pmu/pmu_vcpu.h"
#include "platform/host_timer.h"
#include "host/nmi_mce.h"
#include "arch/regs.h"
#include "vcpu.h"
#include "vcpu_halt.h"
#include "arch/x86.h"

static const char *const exit_kind_names[EXIT_KIND_COUNT] = {
	[EXIT_HYPERCALL] = "hypercall",
	[EXIT_CPUID] = "cpuid",
	[EXIT_MSR_READ] = "msr_read",
	[EXIT_MSR_WRITE] = "msr_write",
	[EXIT_IO] = "io",
	[EXIT_HLT] = "hlt",
	[EXIT_CACHE_FLUSH] = "cache_flush",
	[EXIT_XSETBV] = "xsetbv",
	[EXIT_RDPMC] = "rdpmc",
	[EXIT_CR_WRITE] = "cr_write",
	[EXIT_PAUSE] = "pause",
	[EXIT_NPF] = "npf",
	[EXIT_EXCEPTION] = "exception",
	[EXIT_INTR] = "intr",
	[EXIT_NMI] = "nmi",
	[EXIT_SMI] = "smi",
	[EXIT_INTERRUPT_WINDOW] = "interrupt_window",
	[EXIT_VIRT_INSN] = "virt_insn",
	[EXIT_SHUTDOWN] = "shutdown",
	[EXIT_INVALID] = "invalid",
	[EXIT_UNHANDLED] = "unhandled",
};

const char *exit_kind_name(enum exit_kind kind)
{
	return kind < EXIT_KIND_COUNT ? exit_kind_names[kind] : "?";
}

/*
 * HLT: the guest waits for an interrupt.  One that is pending is delivered
 * after the HLT; an armed LAPIC timer or PIT IRQ0 is waited for on the
 * host; with nothing to wait for, HLT completes at once.
 */
static void handle_hlt(struct vcpu *vcpu, const struct vm_exit *exit)
{
	if (!vcpu_skip_insn(vcpu, exit))
		return;
	/* "sti; hlt": the HLT was the shadowed instruction, and it is done. */
	backend->end_interrupt_shadow(vcpu);
	if (apic_deliverable_vector(&vcpu->apic) < 0 && !vcpu->nmi_pending)
		vcpu_halt(vcpu);
	apic_update_interrupts(vcpu);
}

/* XSETBV: checked against the cache as hardware would, then loaded. */
static void handle_xsetbv(struct vcpu *vcpu, const struct vm_exit *exit)
{
	const u64 *g = vcpu->regs.gpr;

	if (!xstate_xsetbv(vcpu, (u32)g[GPR_RCX], (g[GPR_RDX] << 32) | (u32)g[GPR_RAX])) {
		vcpu_inject_gp(vcpu);
		return;
	}
	vcpu_skip_insn(vcpu, exit);
}

/* A vCPU spun on PAUSE long enough to exit: every vCPU has a CPU of its
 * own, so there is nothing to yield to; the PAUSE completes. */
static void handle_pause(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vcpu_skip_insn(vcpu, exit);
}

static void handle_interrupt_window(struct vcpu *vcpu, const struct vm_exit *exit)
{
	apic_update_interrupts(vcpu);
}

/* WBINVD/INVD are never run on the host's caches: INVD would throw away
 * the host's dirty lines. With no device DMA there is nothing to flush. */
static void handle_cache_flush(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vcpu_skip_insn(vcpu, exit);
}

/* Exceptions are intercepted to stop endless delivery loops, and the
 * guest gets them back as they were; a machine check is the host's. */
static void handle_exception(struct vcpu *vcpu, const struct vm_exit *exit)
{
	if (unlikely(exit->exc.vector == VECTOR_MC))
		host_machine_check_in_guest(vcpu->regs.rip);
	backend->inject_exception(vcpu, exit->exc.vector, exit->exc.has_error,
				  exit->exc.error_code);
}

static void handle_host_event(struct vcpu *vcpu, const struct vm_exit *exit)
{
	backend->host_interrupt_window();
	apic_poll_timer(vcpu);
	bus_poll_timer(&vcpu->vm->bus, vcpu, vcpu->timer->deadlines[TIMER_GUEST_DEVICE]);
	/* the interrupt may have been another vCPU's kick: its IPI is in IRR */
	if (vcpu->vm->nr_vcpus > 1)
		apic_update_interrupts(vcpu);
	if (vcpu->vm->deadline_tsc && rdtsc() >= vcpu->vm->deadline_tsc)
		vm_stop(vcpu->vm, VM_STOP_TIME_LIMIT,
			"still running after its time limit of %llu ms (rip 0x%llx)",
			vcpu->vm->time_limit_ms, vcpu->regs.rip);
}

/* mhv offers no nested virtualization: its instructions raise #UD. */
static void handle_virt_insn(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vcpu_inject_ud(vcpu);
}

static void handle_shutdown(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vm_stop(vcpu->vm, VM_STOP_TRIPLE_FAULT, "triple fault (shutdown) at rip 0x%llx",
		vcpu->regs.rip);
}

static void handle_invalid(struct vcpu *vcpu, const struct vm_exit *exit)
{
	char why[96] = "";

	if (backend->explain_invalid)
		backend->explain_invalid(vcpu, exit->vendor_code, why, sizeof(why));
	if (why[0])
		vm_stop(vcpu->vm, VM_STOP_ENTRY_FAILED,
			"the CPU refused the guest state: exit code 0x%llx (%s): %s",
			exit->vendor_code, backend->exit_name(exit->vendor_code), why);
	else
		vm_stop(vcpu->vm, VM_STOP_ENTRY_FAILED,
			"the CPU refused the guest state: exit code 0x%llx (%s), qualification "
			"0x%llx",
			exit->vendor_code, backend->exit_name(exit->vendor_code), exit->info1);
}

static void handle_unhandled(struct vcpu *vcpu, const struct vm_exit *exit)
{
	vm_stop(vcpu->vm, VM_STOP_UNHANDLED,
		"unhandled exit code 0x%llx (%s), info 0x%llx 0x%llx, at rip 0x%llx",
		exit->vendor_code, backend->exit_name(exit->vendor_code), exit->info1, exit->info2,
		vcpu->regs.rip);
}

exit_handler_fn *const exit_handlers[EXIT_KIND_COUNT] = {
	[EXIT_HYPERCALL] = handle_hypercall,
	[EXIT_CPUID] = handle_cpuid,
	[EXIT_MSR_READ] = handle_msr_read,
	[EXIT_MSR_WRITE] = handle_msr_write,
	[EXIT_IO] = handle_io,
	[EXIT_HLT] = handle_hlt,
	[EXIT_CACHE_FLUSH] = handle_cache_flush,
	[EXIT_XSETBV] = handle_xsetbv,
	[EXIT_RDPMC] = pmu_vcpu_rdpmc,
	[EXIT_CR_WRITE] = handle_cr_write,
	[EXIT_PAUSE] = handle_pause,
	[EXIT_NPF] = handle_npf,
	[EXIT_EXCEPTION] = handle_exception,
	[EXIT_INTR] = handle_host_event,
	[EXIT_NMI] = handle_host_event,
	[EXIT_SMI] = handle_host_event,
	[EXIT_INTERRUPT_WINDOW] = handle_interrupt_window,
	[EXIT_VIRT_INSN] = handle_virt_insn,
	[EXIT_SHUTDOWN] = handle_shutdown,
	[EXIT_INVALID] = handle_invalid,
	[EXIT_UNHANDLED] = handle_unhandled,
};
