// SPDX-License-Identifier: MIT
/*
 * External guests: a multiboot kernel from the boot volume ("guest =" in
 * mhv.cfg) in a VM of its own size, started as the Multiboot
 * Specification says (§3.2: EAX = 0x2BADB002, EBX = the boot information,
 * 32-bit protected mode, paging off).
 */
#include "guest_kernel.h"
#include "core/backend.h"
#include "lib/boot_info.h"
#include "lib/fmt.h"
#include "vdev/guest_acpi.h"
#include "multiboot.h"
#include "host/page_alloc.h"
#include "pmu/pmu_vcpu.h"
#include "core/vcpu.h"
#include "core/vm_config.h"
#include "lab/vm_run.h"
#include "xstate/xstate_guest.h"

static const struct vm_config guest_configs[] = {
	{ "guest", "a multiboot kernel, PMU off", false, NULL, "off", false, false },
	{ "guest-pmu-sw", "a multiboot kernel, software PMU switch", false, NULL, "sw", false,
	  false },
	{ "guest-pmu-sw-noelide", "a multiboot kernel, PMU switch without elision", false, NULL,
	  "sw-noelide", false, false },
	{ "guest-pmu-sw-lazy", "a multiboot kernel, lazy PMU switch", false, NULL, "sw-lazy", false,
	  false },
	{ "guest-pmu-hw", "a multiboot kernel, AMD PMC virtualization", false, NULL, "hw", false,
	  false },
};

const struct vm_config *guest_kernel_config(const struct mhv_guest *g)
{
	return &guest_configs[g->pmu_mode < ARRAY_SIZE(guest_configs) ? g->pmu_mode : 0];
}

/* "\\dir\\vmexit.flat" -> "vmexit.flat": the VM's name and console prefix. */
static const char *base_name(const char *path)
{
	const char *b = path;

	for (; *path; path++)
		if (*path == '\\' || *path == '/')
			b = path + 1;
	return b;
}

int guest_kernel_create(struct vm *vm, const struct mhv_guest *g, const struct boot_file *kernel,
			const struct boot_file *module, u32 id, struct run_results *results,
			char *why, size_t why_size)
{
	const struct vm_config *config = guest_kernel_config(g);
	struct mb_module_file mod = { module ? module->data : NULL, module ? (u32)module->size : 0,
				      base_name(g->module) };
	enum pmu_mode mode = (enum pmu_mode)g->pmu_mode;
	struct mb_kernel k;
	void *ram;
	u32 i;

	__builtin_memset(vm, 0, sizeof(*vm));
	page_alloc_get_mark(&hv_pages, &vm->mark);
	fmt_snprintf(vm->name, sizeof(vm->name), "%s", base_name(g->path));
	vm->id = id;
	vm->results = results;
	vm->suite = "guests";
	vm->config = config;
	vm->time_limit_ms = (u64)(g->time_limit ? g->time_limit : results->cfg->time_limit) * 1000;
	vm->ram_size = (u64)g->mem_mib << 20;
	vm->nr_vcpus = g->nr_cpus > 1 && g->nr_cpus <= VM_MAX_VCPUS ? g->nr_cpus : 1;
	if (!kernel->data) {
		fmt_snprintf(why, why_size, "cannot read %s: %s", g->path, kernel->error);
		return -1;
	}
	if (g->module[0] && !module->data) {
		fmt_snprintf(why, why_size, "cannot read module %s: %s", g->module, module->error);
		return -1;
	}
	/* refuse a bad kernel for what it is before looking for memory */
	if (multiboot_load(kernel->data, kernel->size, NULL, vm->ram_size, &k, why, why_size))
		return -1;
	ram = alloc_pages_zeroed(vm->ram_size / PAGE_SIZE);
	if (!ram) {
		fmt_snprintf(why, why_size,
			     "no %u MiB of contiguous host memory for its RAM (try a smaller mem)",
			     g->mem_mib);
		return -1;
	}
	vm->ram_hpa = (u64)(uintptr_t)ram;
	if (multiboot_load(kernel->data, kernel->size, ram, vm->ram_size, &k, why, why_size) ||
	    multiboot_write_info(ram, vm->ram_size, &k, g->cmdline, &mod, g->module[0] ? 1 : 0, why,
				 why_size))
		return -1;
	guest_acpi_build(ram, vm->nr_vcpus);
	vm->fw_cfg.ram_size = vm->ram_size;
	vm->fw_cfg.nr_cpus = (u16)vm->nr_vcpus;
	if (backend->map_ram(vm, 0, vm->ram_hpa, vm->ram_size)) {
		fmt_snprintf(why, why_size, "out of memory for its nested page table");
		return -1;
	}
	/* vCPU 0 enters the kernel; the others wait for INIT-SIPI (MP spec
	 * wake-up, SDM Vol 3 §9.4.4) and start in real mode */
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->vm = vm;
		v->index = i;
		v->boot32 = true;
		v->wait_sipi = i > 0;
		v->cpuid_view = guest_cpuid_view(mode != PMU_OFF);
		apic_reset(&v->apic, i == 0, false); /* xAPIC mode, as after power-up */
		xstate_vcpu_reset(v, !results->cfg->xstate_cache);
		pmu_vcpu_init(v, mode, results->cfg->pmu_account, false);
	}
	vm->vcpus[0].regs.rip = k.entry;
	vm->vcpus[0].regs.gpr[GPR_RAX] = MULTIBOOT_BOOT_MAGIC;
	vm->vcpus[0].regs.gpr[GPR_RBX] = MB_INFO_GPA;
	return 0;
}
