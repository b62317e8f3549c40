// SPDX-License-Identifier: MIT
/*
 * A VM's life: guest RAM and its nested mapping, the page tables and GDT
 * that let the guest start in 64-bit mode, the run loop, and teardown.
 */
#include "vm.h"
#include "backend.h"
#include "cpu_reset.h"
#include "platform/console.h"
#include "exit_dispatch.h"
#include "lib/fmt.h"
#include "lib/guest_abi.h"
#include "platform/host_timer.h"
#include "platform/tsc.h"
#include "arch/x86.h"
#include "arch/guest_tables.h"
#include "arch/pagetable.h"
#include "vcpu.h"
#include "pmu/pmu_vcpu.h"
#include "host/smp.h"
#include "vm_config.h"
#include "mitigations.h"
#include "arch/msr.h"
#include "vdev/board.h"

const char *vm_create_error_str(enum vm_create_error err)
{
	switch (err) {
	case VM_CREATED:
		return "created";
	case VM_NO_MEMORY:
		return "out of memory";
	case VM_IMAGE_TOO_LARGE:
		return "guest image too large";
	case VM_NO_DEVICES:
		return "its devices could not be made";
	}
	return "unknown error";
}

/* The PMU's interrupt line (struct pmu_pmi_line): the vCPU's LVTPC. */
static bool vcpu_pmi_line(void *vcpu, bool mask_on_delivery)
{
	return apic_raise_pmi(vcpu, mask_on_delivery);
}

enum vm_create_error vm_init(struct vm *vm, const struct vm_spec *spec, u32 id)
{
	const struct vm_config *config = spec->config;
	enum pmu_mode mode = config->pmu;
	u32 i;

	__builtin_memset(vm, 0, sizeof(*vm));
	vm->arena = page_arena();
	page_alloc_get_mark(vm->arena, &vm->mark);
	fmt_snprintf(vm->name, sizeof(vm->name), "%s", spec->name);
	vm->id = id;
	vm->config = config;
	vm->harness = spec->harness;
	vm->harness_ctx = spec->harness_ctx;
	vm->time_limit_ms = spec->time_limit_ms;
	vm->timer_reach_tsc = vm_ms_to_tsc(spec->timer_reach_ms);
	vm->nr_vcpus = spec->nr_vcpus > 1 && spec->nr_vcpus <= VM_MAX_VCPUS ? spec->nr_vcpus : 1;
	guest_cpuid_build(vm);
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->vm = vm;
		v->index = i;
		xstate_vcpu_reset(v, !spec->xstate_cache || config->xstate_uncached);
		pmu_vcpu_init(v, mode, config->no_accounting ? 0 : spec->pmu_account,
			      config->guest_counts_insn);
		pmu_set_pmi_line(&v->pmu, vcpu_pmi_line, v);
		v->cpuid_view = &vm->cpuid;
		v->port_hint = &bus_no_ports;
		msr_vcpu_reset(v);
	}
	return board_attach(vm, vm_ram_node(spec)) ? VM_NO_DEVICES : VM_CREATED;
}

u32 vm_ram_node(const struct vm_spec *spec)
{
	return (spec->home ? spec->home : this_cpu())->node;
}

enum vm_create_error vm_create(struct vm *vm, const struct vm_spec *spec, u32 id)
{
	enum vm_create_error err = vm_init(vm, spec, id);
	void *ram;
	u32 i;

	if (err)
		return err;
	vm->ram_size = GUEST_RAM_SIZE;
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->timed = spec->timed;
		v->mitigated = !spec->mitigations_off;
		v->duty_set = v->mitigated ? mitigations.auto_set : 0;
		/* mhv's guests use the x2APIC MSRs, where their VM has them */
		apic_reset(&v->apic, i == 0, vcpu_has_x2apic(v));
		/* every vCPU enters the same image; RDI says which one it is */
		v->regs.rip = GUEST_LOAD;
		v->regs.gpr[GPR_RSP] = GUEST_STACK_TOP - i * GUEST_VCPU_STACK;
		v->regs.gpr[GPR_RDI] = spec->variant | (u64)i << GUEST_VCPU_SHIFT;
		v->regs.gpr[GPR_RSI] = GUEST_RAM_SIZE;
	}
	ram = alloc_pages_zeroed_node(vm->ram_size / PAGE_SIZE, vm_ram_node(spec));
	if (!ram)
		return VM_NO_MEMORY;
	vm->ram_hpa = (u64)(uintptr_t)ram;
	if (spec->blob_size > GUEST_STACK_TOP - GUEST_LOAD - 0x10000 * VM_MAX_VCPUS)
		return VM_IMAGE_TOO_LARGE;
	__builtin_memcpy((u8 *)ram + GUEST_LOAD, spec->blob, spec->blob_size);
	if (guest_tables_build((u8 *)ram))
		return VM_NO_MEMORY;
	if (backend->map_ram(vm, 0, vm->ram_hpa, vm->ram_size))
		return VM_NO_MEMORY;
	return VM_CREATED;
}

u64 vm_ms_to_tsc(u64 ms)
{
	return host_tsc.clock_hz / 1000 * ms;
}

/*
 * Bound the VM's run: the host timer ends it even when it spins without
 * exits, re-armed at each of its interrupts until the deadline
 * (host_timer_interrupt).  Without a host timer only halts and SIPI waits
 * see the deadline; the lab refuses the guests that would need more.
 */
static void arm_time_limit(struct vcpu *vcpu, u64 limit_ms)
{
	struct vm *vm = vcpu->vm;
	const char *why;

	if (!limit_ms)
		return;
	/* one deadline for the VM, each vCPU's CPU times it */
	if (!vm->deadline_tsc)
		vm->deadline_tsc = rdtsc() + vm_ms_to_tsc(limit_ms);
	if (!host_timer_available(&why))
		return;
	host_timer_arm(vcpu->timer, TIMER_VM_LIMIT, vm->deadline_tsc);
	if (vm->timer_reach_tsc)
		host_timer_set_reach(vcpu->timer, vm->timer_reach_tsc);
}

void vm_vcpu_run(struct vcpu *vcpu)
{
	struct backend_error err = { 0 };

	vcpu->cpu = this_cpu();
	vcpu->timer = &vcpu->cpu->timer;
	arm_time_limit(vcpu, vcpu->vm->time_limit_ms);
	/* an AP of an external guest runs from the SIPI its BSP sends, if any */
	if (vcpu->wait_sipi && !apic_wait_for_sipi(vcpu))
		goto out;
	if (backend->vcpu_create(vcpu, GUEST_PML4, GUEST_GDT, GUEST_GDT_LIMIT, &err)) {
		vm_stop(vcpu->vm, VM_STOP_ENTRY_FAILED, "vCPU %u: %s", vcpu->index, err.reason);
		goto out;
	}
	if (vcpu->vm->stop == VM_RUNNING) {
		struct host_ctl_saved saved;

		cpu_reset_for_new_vcpu(); /* nothing of the VM before it on this CPU */
		/* nor its branch predictions (IBPB), and the host controls */
		mitigations_vcpu_enter(vcpu, &saved);
		backend->vcpu_run(vcpu);
		mitigations_vcpu_leave(&saved);
	}
	backend->vcpu_destroy(vcpu);
out:
	host_timer_disarm(vcpu->timer, TIMER_GUEST_APIC); /* a deadline the guest left armed */
	host_timer_disarm(vcpu->timer, TIMER_GUEST_DEVICE);
	host_timer_disarm(vcpu->timer, TIMER_VM_LIMIT);
	host_timer_set_reach(vcpu->timer, 0);
}

int vm_map_nested(struct vm *vm, struct pt_ctx *ctx, u64 gpa, u64 hpa, u64 size, u64 leaf_flags)
{
	if (!vm->npt_root) {
		void *root = alloc_page_zeroed();

		if (!root)
			return -1;
		vm->npt_root = (u64)(uintptr_t)root;
	}
	return pt_map_range(ctx, vm->npt_root, gpa, hpa, size, leaf_flags, PAGE_SHIFT);
}

void vm_destroy(struct vm *vm)
{
	page_alloc_release(vm->arena, &vm->mark);
}
