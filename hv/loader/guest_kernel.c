// SPDX-License-Identifier: MIT
/*
 * External guests: a multiboot kernel from the boot volume ("guest =" in
 * mhv.cfg) in a VM of its own size, started as the Multiboot
 * Specification says (§3.2: EAX = 0x2BADB002, EBX = the boot information,
 * 32-bit protected mode, paging off); or a Linux bzImage, started at its
 * 64-bit entry (linux_boot.h: RSI = the zero page, paging on).
 */
#include "guest_kernel.h"
#include "core/backend.h"
#include "lib/boot_info.h"
#include "lib/fmt.h"
#include "lib/guest_abi.h"
#include "vdev/board.h"
#include "vdev/guest_acpi.h"
#include "linux_boot.h"
#include "multiboot.h"
#include "host/page_alloc.h"
#include "core/vcpu.h"

/* "\\dir\\vmexit.flat" -> "vmexit.flat": the VM's name and console prefix. */
static const char *base_name(const char *path)
{
	const char *b = path;

	for (; *path; path++)
		if (*path == '\\' || *path == '/')
			b = path + 1;
	return b;
}

/* Either kind of kernel into ram (NULL: only check), with what it reads at entry. */
static int guest_kernel_place(const struct guest_kernel *gk, bool is_linux, u8 *ram, u64 ram_size,
			      struct mb_kernel *k, struct linux_kernel *lk, char *why,
			      size_t why_size)
{
	const struct boot_file *kernel = gk->kernel, *module = gk->module;
	struct mb_module_file mod = { module ? module->data : NULL, module ? (u32)module->size : 0,
				      base_name(gk->module_path) };
	bool has_module = gk->module_path[0];

	if (is_linux) {
		if (has_module && !gk->initrd) {
			fmt_snprintf(
			    why, why_size,
			    "a Linux bzImage takes 'initrd =', not a multiboot 'module ='");
			return -1;
		}
		return linux_load(kernel->data, kernel->size, has_module ? module->data : NULL,
				  has_module ? module->size : 0, gk->cmdline, ram, ram_size, lk,
				  why, why_size);
	}
	if (gk->initrd) {
		fmt_snprintf(why, why_size,
			     "'initrd =' is for a Linux bzImage, and this is none (a multiboot "
			     "kernel takes 'module =')");
		return -1;
	}
	if (multiboot_load(kernel->data, kernel->size, ram, ram_size, k, why, why_size))
		return -1;
	return ram ? multiboot_write_info(ram, ram_size, k, gk->cmdline, &mod, has_module ? 1 : 0,
					  why, why_size)
		   : 0;
}

int guest_kernel_create(struct vm *vm, const struct vm_spec *spec, const struct guest_kernel *gk,
			u32 id, char *why, size_t why_size)
{
	const struct boot_file *kernel = gk->kernel, *module = gk->module;
	struct vm_spec named = *spec;
	struct linux_kernel lk;
	struct mb_kernel k;
	void *ram, *testdev;
	enum vm_create_error err;
	bool is_linux;
	u32 i;

	named.name = base_name(gk->path);
	err = vm_init(vm, &named, id);
	if (err) {
		fmt_snprintf(why, why_size, "%s", vm_create_error_str(err));
		return -1;
	}
	vm->ram_size = (u64)gk->mem_mib << 20;
	if (!kernel->data) {
		fmt_snprintf(why, why_size, "cannot read %s: %s", gk->path, kernel->error);
		return -1;
	}
	if (gk->module_path[0] && !module->data) {
		fmt_snprintf(why, why_size, "cannot read module %s: %s", gk->module_path,
			     module->error);
		return -1;
	}
	/* refuse a bad kernel for what it is before looking for memory */
	is_linux = linux_is_bzimage(kernel->data, kernel->size);
	if (guest_kernel_place(gk, is_linux, NULL, vm->ram_size, &k, &lk, why, why_size))
		return -1;
	ram = alloc_pages_zeroed_node(vm->ram_size / PAGE_SIZE, vm_ram_node(spec));
	if (!ram) {
		fmt_snprintf(why, why_size,
			     "no %u MiB of contiguous host memory for its RAM (try a smaller mem)",
			     gk->mem_mib);
		return -1;
	}
	vm->ram_hpa = (u64)(uintptr_t)ram;
	if (guest_kernel_place(gk, is_linux, ram, vm->ram_size, &k, &lk, why, why_size))
		return -1;
	guest_acpi_build(ram, vm->nr_vcpus);
	if (is_linux)
		linux_set_rsdp(ram, GUEST_ACPI_RSDP);
	board_set_fw_cfg(vm, vm->ram_size, (u16)vm->nr_vcpus);
	/* The test device's window behaves as memory, so it is memory: the
	 * guest's accesses run as on QEMU, any instruction, without exits. */
	testdev = alloc_pages_zeroed(GUEST_TESTDEV_MEM_SIZE / PAGE_SIZE);
	if (!testdev ||
	    backend->map_ram(vm, GUEST_TESTDEV_MEM, (u64)(uintptr_t)testdev,
			     GUEST_TESTDEV_MEM_SIZE) ||
	    backend->map_ram(vm, 0, vm->ram_hpa, vm->ram_size)) {
		fmt_snprintf(why, why_size, "out of memory for its nested page table");
		return -1;
	}
	vm->testdev_hpa = (u64)(uintptr_t)testdev;
	/* vCPU 0 enters the kernel; the others wait for INIT-SIPI (MP spec
	 * wake-up, SDM Vol 3 §9.4.4) and start in real mode */
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->boot32 = true;
		v->boot64 = is_linux && i == 0;
		v->wait_sipi = i > 0;
		apic_reset(&v->apic, i == 0, false); /* xAPIC mode, as after power-up */
	}
	if (is_linux) {
		vm->vcpus[0].regs.rip = lk.entry;
		vm->vcpus[0].regs.gpr[GPR_RSI] = LINUX_BOOT_PARAMS;
		return 0;
	}
	vm->vcpus[0].regs.rip = k.entry;
	vm->vcpus[0].regs.gpr[GPR_RAX] = MULTIBOOT_BOOT_MAGIC;
	vm->vcpus[0].regs.gpr[GPR_RBX] = k.info;
	return 0;
}
