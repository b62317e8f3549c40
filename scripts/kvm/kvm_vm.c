// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kvm_vm.h"
#include "arch/apic.h"
#include "arch/guest_tables.h"
#include "arch/regs.h"
#include "lib/guest_abi.h"

/* QEMU's choice for KVM_SET_TSS_ADDR: three pages below the BIOS */
#define TSS_ADDR 0xfffbd000ul
#define CPUID_ENTRIES_MAX 256

static enum kvm_vm_status fail(enum kvm_vm_status st, char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return st;
}

#define FAIL(...) fail(KVM_VM_ERROR, why, why_size, __VA_ARGS__)
#define SKIP(...) fail(KVM_VM_SKIP, why, why_size, __VA_ARGS__)

/* Capabilities the guests need (Documentation/virt/kvm/api.rst §8) */
static const struct {
	int cap;
	const char *name;
} needed_caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
	{ KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP (the in-kernel local APIC)" },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },
	{ KVM_CAP_TSC_DEADLINE_TIMER, "KVM_CAP_TSC_DEADLINE_TIMER" },
	{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD" },
};

/*
 * The host's CPUID as KVM can offer it, and what mhv adds in its own leaf:
 * 0x40000001 EBX is reserved (zero) in KVM's (Documentation/virt/kvm/x86/
 * cpuid.rst); there HV_FEATURE_TIMER says a TSC deadline ends the guest's
 * run, which KVM's in-kernel LAPIC timer does.  ECX stays 0, HV_PMU_OFF:
 * the guest gets KVM's own vPMU, which is none of mhv's modes.
 */
static int set_cpuid(struct kvm_vm *v, int vcpu)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + CPUID_ENTRIES_MAX * sizeof(c->entries[0]));
	int r = -1;
	__u32 i;

	if (!c)
		return -1;
	c->nent = CPUID_ENTRIES_MAX;
	if (ioctl(v->kvm, KVM_GET_SUPPORTED_CPUID, c) == 0) {
		for (i = 0; i < c->nent; i++) {
			if (c->entries[i].function == 0x40000001)
				c->entries[i].ebx |= HV_FEATURE_TIMER;
			/* api.rst, KVM_GET_SUPPORTED_CPUID: user space sets the
			 * TSC-deadline bit where KVM_CAP_TSC_DEADLINE_TIMER says
			 * the in-kernel LAPIC has it (checked in needed_caps) */
			if (c->entries[i].function == 1)
				c->entries[i].ecx |= 1u << 24;
		}
		r = ioctl(vcpu, KVM_SET_CPUID2, c);
	}
	free(c);
	return r;
}

static void flat(struct kvm_segment *s, __u16 sel, __u8 type, bool code)
{
	*s = (struct kvm_segment){ .base = 0,
				   .limit = 0xffffffff,
				   .selector = sel,
				   .type = type,
				   .present = 1,
				   .s = 1,
				   .g = 1,
				   .db = !code,
				   .l = code };
}

/* The state mhv gives a suite vCPU (hv/svm/svm_vcpu.c svm_init_guest_state,
 * hv/vmx/vmx_vcpu.c): 64-bit mode on the guest_tables, x2APIC on. */
static int set_state(int vcpu, unsigned index, unsigned variant)
{
	struct kvm_regs regs = { 0 };
	struct kvm_sregs s;

	if (ioctl(vcpu, KVM_GET_SREGS, &s))
		return -1;
	flat(&s.cs, 0x08, 11, true);
	flat(&s.ds, 0x10, 3, false);
	s.es = s.fs = s.gs = s.ss = s.ds;
	s.tr = (struct kvm_segment){ .base = GUEST_TSS,
				     .limit = 0x67,
				     .selector = GUEST_TSS_SEL,
				     .type = 11,
				     .present = 1 };
	s.gdt.base = GUEST_GDT;
	s.gdt.limit = GUEST_GDT_LIMIT;
	s.idt.base = 0;
	s.idt.limit = 0;
	s.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	s.cr3 = GUEST_PML4;
	s.cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	s.efer = EFER_LME | EFER_LMA | EFER_NXE;
	/* mhv's virtual APIC starts in x2APIC mode (core/vm.c apic_reset) */
	s.apic_base =
	    APIC_DEFAULT_BASE | (index ? 0 : APIC_BASE_BSP) | APIC_BASE_EN | APIC_BASE_EXTD;
	if (ioctl(vcpu, KVM_SET_SREGS, &s))
		return -1;
	/* as core/vm.c vm_create: every vCPU enters the image, RDI says which */
	regs.rip = GUEST_LOAD;
	regs.rsp = GUEST_STACK_TOP - index * GUEST_VCPU_STACK;
	regs.rdi = variant | index << GUEST_VCPU_SHIFT;
	regs.rsi = GUEST_RAM_SIZE;
	regs.rflags = 2;
	return ioctl(vcpu, KVM_SET_REGS, &regs);
}

/* Software-enabled, as mhv's virtual APIC is at reset for its guests */
static int enable_lapic(int vcpu)
{
	struct kvm_lapic_state l;
	__u32 svr;

	if (ioctl(vcpu, KVM_GET_LAPIC, &l))
		return -1;
	memcpy(&svr, l.regs + APIC_SVR, 4);
	svr |= APIC_SVR_ENABLE | 0xff;
	memcpy(l.regs + APIC_SVR, &svr, 4);
	return ioctl(vcpu, KVM_SET_LAPIC, &l);
}

/*
 * Writes to mhv's test port and MMIO scratch register end in the kernel,
 * as under mhv: an ioeventfd (api.rst KVM_IOEVENTFD) is KVM's in-kernel
 * write sink.  Reads have no such sink and exit to user space.
 */
static int add_ioeventfd(struct kvm_vm *v, int i, __u64 addr, __u32 flags)
{
	struct kvm_ioeventfd e = { .addr = addr, .len = 4, .flags = flags };

	v->ioeventfd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	e.fd = v->ioeventfd[i];
	return e.fd < 0 ? -1 : ioctl(v->vm, KVM_IOEVENTFD, &e);
}

/* vCPU @i: made, its kvm_run mapped, its CPUID, start state and LAPIC set */
static enum kvm_vm_status add_vcpu(struct kvm_vm *v, unsigned i, unsigned variant, char *why,
				   size_t why_size)
{
	v->vcpu[i] = ioctl(v->vm, KVM_CREATE_VCPU, i);
	if (v->vcpu[i] < 0)
		return FAIL("KVM_CREATE_VCPU: %s", strerror(errno));
	v->run[i] = mmap(NULL, v->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu[i], 0);
	if (v->run[i] == MAP_FAILED) {
		v->run[i] = NULL;
		return FAIL("mmap of the vCPU's kvm_run: %s", strerror(errno));
	}
	if (set_cpuid(v, v->vcpu[i]))
		return FAIL("KVM_SET_CPUID2: %s", strerror(errno));
	if (set_state(v->vcpu[i], i, variant))
		return FAIL("the vCPU's 64-bit start state: %s", strerror(errno));
	if (enable_lapic(v->vcpu[i]))
		return FAIL("KVM_SET_LAPIC: %s", strerror(errno));
	/* with the in-kernel LAPIC an AP waits for INIT and SIPI (api.rst,
	 * KVM_SET_MP_STATE); mhv starts every vCPU at GUEST_LOAD at once */
	if (i && ioctl(v->vcpu[i], KVM_SET_MP_STATE,
		       &(struct kvm_mp_state){ .mp_state = KVM_MP_STATE_RUNNABLE }))
		return FAIL("KVM_SET_MP_STATE: %s", strerror(errno));
	return KVM_VM_OK;
}

enum kvm_vm_status kvm_vm_create(struct kvm_vm *v, const char *dev, const void *image,
				 size_t image_size, unsigned variant, unsigned nr_vcpus, char *why,
				 size_t why_size)
{
	struct kvm_userspace_memory_region mem = { 0 };
	enum kvm_vm_status st;
	size_t i;
	long run_size;

	memset(v, 0, sizeof(*v));
	v->vm = v->ioeventfd[0] = v->ioeventfd[1] = -1;
	for (i = 0; i < KVM_VM_MAX_VCPUS; i++)
		v->vcpu[i] = -1;
	v->kvm = open(dev, O_RDWR | O_CLOEXEC);
	if (v->kvm < 0 && (errno == ENOENT || errno == ENXIO || errno == ENODEV))
		return SKIP("no %s: KVM is not loaded here (modprobe kvm_amd or kvm_intel)", dev);
	if (v->kvm < 0 && (errno == EACCES || errno == EPERM))
		return SKIP("no permission to open %s (join its group, usually kvm)", dev);
	if (v->kvm < 0)
		return FAIL("cannot open %s: %s", dev, strerror(errno));
	if (ioctl(v->kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return SKIP("%s is not KVM API version %d", dev, KVM_API_VERSION);
	for (i = 0; i < sizeof(needed_caps) / sizeof(needed_caps[0]); i++)
		if (ioctl(v->kvm, KVM_CHECK_EXTENSION, needed_caps[i].cap) <= 0)
			return SKIP("this KVM lacks %s", needed_caps[i].name);
	v->vm = ioctl(v->kvm, KVM_CREATE_VM, 0);
	if (v->vm < 0)
		return FAIL("KVM_CREATE_VM: %s", strerror(errno));
	/* VMX without unrestricted guest needs it; QEMU always sets it */
	if (ioctl(v->kvm, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0 &&
	    ioctl(v->vm, KVM_SET_TSS_ADDR, TSS_ADDR))
		return FAIL("KVM_SET_TSS_ADDR: %s", strerror(errno));
	if (ioctl(v->vm, KVM_CREATE_IRQCHIP, 0))
		return FAIL("KVM_CREATE_IRQCHIP: %s", strerror(errno));
	v->ram =
	    mmap(NULL, GUEST_RAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v->ram == MAP_FAILED) {
		v->ram = NULL;
		return FAIL("no memory for the guest's %llu KiB", GUEST_RAM_SIZE >> 10);
	}
	/* the room mhv gives an image (core/vm.c vm_create): up to the stacks */
	if (image_size > GUEST_STACK_TOP - GUEST_LOAD - GUEST_VCPU_STACK * 4)
		return FAIL("guest image too large (%zu bytes)", image_size);
	memcpy(v->ram + GUEST_LOAD, image, image_size);
	if (guest_tables_build(v->ram))
		return FAIL("the guest's page tables do not fit");
	mem.memory_size = GUEST_RAM_SIZE;
	mem.userspace_addr = (__u64)(unsigned long)v->ram;
	if (ioctl(v->vm, KVM_SET_USER_MEMORY_REGION, &mem))
		return FAIL("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	run_size = ioctl(v->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size <= 0)
		return FAIL("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	v->run_size = (size_t)run_size;
	v->nr_vcpus = nr_vcpus < KVM_VM_MAX_VCPUS ? nr_vcpus : KVM_VM_MAX_VCPUS;
	for (i = 0; i < v->nr_vcpus; i++)
		if ((st = add_vcpu(v, i, variant, why, why_size)))
			return st;
	if (add_ioeventfd(v, 0, GUEST_TEST_PORT, KVM_IOEVENTFD_FLAG_PIO) ||
	    add_ioeventfd(v, 1, GUEST_MMIO_BASE + MMIO_REG_SCRATCH, 0))
		return FAIL("KVM_IOEVENTFD: %s", strerror(errno));
	return KVM_VM_OK;
}

void kvm_vm_destroy(struct kvm_vm *v)
{
	int i;

	for (i = 0; i < 2; i++)
		if (v->ioeventfd[i] >= 0)
			close(v->ioeventfd[i]);
	for (i = 0; i < KVM_VM_MAX_VCPUS; i++) {
		if (v->run[i])
			munmap(v->run[i], v->run_size);
		if (v->vcpu[i] >= 0)
			close(v->vcpu[i]);
	}
	if (v->vm >= 0)
		close(v->vm);
	if (v->kvm >= 0)
		close(v->kvm);
	if (v->ram)
		munmap(v->ram, GUEST_RAM_SIZE);
}
