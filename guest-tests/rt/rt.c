// SPDX-License-Identifier: MIT
#include "rt.h"
#include "lib/fmt.h"

bool hypercall_is_vmcall;
bool guest_is_amd;
bool guest_has_xsave;

extern const u8 guest_isr_stubs[];
extern u64 fault_fixup, fault_rip;
extern u8 fault_armed, fault_vector;

struct idt_gate {
	u16 offset_low, selector;
	u8 ist, type_attr;
	u16 offset_mid;
	u32 offset_high, reserved;
} __packed;

static struct idt_gate idt[256] __aligned(16);

volatile u64 guest_irqs;
bool (*guest_exception_hook)(struct guest_frame *f);
volatile u64 guest_nmis;
volatile bool guest_nmi_ok;

int gprintf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hypercall(HC_PRINT, (u64)(uintptr_t)buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1);
	return n;
}

void test_report(const char *name, enum test_status st, const char *fmt, ...)
{
	struct hc_test_result r = { .status = st };
	va_list ap;

	fmt_snprintf(r.name, sizeof(r.name), "%s", name);
	va_start(ap, fmt);
	fmt_vsnprintf(r.reason, sizeof(r.reason), fmt, ap);
	va_end(ap);
	hypercall(HC_TEST_RESULT, (u64)(uintptr_t)&r, 0);
}

bool test_wanted(const char *name)
{
	char buf[HC_NAME_LEN] = { 0 };

	fmt_snprintf(buf, sizeof(buf), "%s", name);
	return hypercall(HC_TEST_WANTED, (u64)(uintptr_t)buf, 0) == 1;
}

bool bench_wanted(const char *name)
{
	if (!test_wanted(name))
		return false;
	/* asked again at once: mhv takes off what the hypercalls around the
	 * benchmark add to its instruction classes (hv/lab/runner_vm.c) */
	test_wanted(name);
	return true;
}

u64 exit_count(unsigned kind)
{
	return hypercall(HC_EXIT_COUNT, kind, 0);
}

/* Exceptions: an armed probe gets the vector and resumes at its fixup;
 * anything else is a failure that ends the guest. */
#define MSR_X2APIC_EOI 0x80b

/* Interrupts: counted and acknowledged at the virtual x2APIC. */
static void guest_interrupt(struct guest_frame *f)
{
	guest_irqs++;
	wrmsr(MSR_X2APIC_EOI, 0);
}

void guest_exception(struct guest_frame *f)
{
	if (f->vector >= 32) {
		guest_interrupt(f);
		return;
	}
	if (f->vector == 2 && guest_nmi_ok) {
		guest_nmis++;
		return;
	}
	if (f->vector == 1)
		f->rflags &= ~(u64)0x100; /* single step done: clear TF */
	if (fault_armed) {
		fault_armed = 0;
		fault_vector = (u8)f->vector;
		fault_rip = f->rip;
		f->rip = fault_fixup;
		return;
	}
	if (guest_exception_hook && guest_exception_hook(f))
		return;
	gprintf("unexpected exception %llu at rip 0x%llx, error 0x%llx\n", f->vector, f->rip,
		f->error_code);
	test_report("unexpected_exception", TEST_FAIL, "vector %llu at rip 0x%llx", f->vector,
		    f->rip);
	hypercall(HC_EXIT, 1, 0);
	for (;;)
		asm volatile("hlt");
}

void guest_rt_init(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed idtr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };
	struct cpuid_regs r;
	unsigned v;

	/* The hypercall instruction is the vendor's; CPUID leaf 0 says which. */
	cpuid_raw(0, 0, &r);
	guest_has_xsave = false;
	if (r.eax >= 0xd) {
		struct cpuid_regs l1;

		cpuid_raw(1, 0, &l1);
		guest_has_xsave = l1.ecx & BIT(26); /* XSAVE; then allow XSETBV (CR4.OSXSAVE) */
		if (guest_has_xsave)
			write_cr4(read_cr4() | BIT(18));
	}
	guest_is_amd = r.ebx == 0x68747541; /* "Auth" */
	hypercall_is_vmcall = !guest_is_amd;
	/* Leaf 0x40000000 reads back a bigger leaf's values on a CPU without
	 * it, never KVM's signature; mhv's is "mhvmhvmhvmhv" */
	cpuid_raw(0x40000000, 0, &r);
	hypercall_by_port =
	    r.ebx == KVM_SIGNATURE_EBX && r.ecx == KVM_SIGNATURE_ECX && r.edx == KVM_SIGNATURE_EDX;
	for (v = 0; v < 256; v++) {
		u64 a = (u64)(uintptr_t)(guest_isr_stubs + 16 * v);

		idt[v] =
		    (struct idt_gate){ (u16)a, 0x08, 0, 0x8e, (u16)(a >> 16), (u32)(a >> 32), 0 };
	}
	asm volatile("lidt %0" ::"m"(idtr));
}

void guest_idt_clear(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed idtr = { 0, 0 };

	asm volatile("lidt %0" ::"m"(idtr));
}
