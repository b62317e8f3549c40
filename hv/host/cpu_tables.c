// SPDX-License-Identifier: MIT
/*
 * The host's GDT, TSS and IDT.  No IST stacks: the host runs at CPL 0
 * only and never switches stacks on an exception, so the TSS is never
 * read by the CPU; it exists because a valid TR is a VM-entry/VMRUN host
 * requirement on some paths and helps debuggers.
 */
#include "cpu_tables.h"
#include "platform/console.h"
#include "nmi_mce.h"
#include "platform/host_timer.h"
#include "platform/lapic.h"
#include "percpu.h"
#include "finish.h"
#include "arch/x86.h"

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

_Static_assert(sizeof(struct tss64) == 104, "TSS64 is 104 bytes");

/* 64-bit interrupt gate (SDM Vol 3 §6.14.1) */
struct idt_gate {
	u16 offset_low;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 offset_mid;
	u32 offset_high;
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate is 16 bytes");

#define GATE_INTERRUPT_PRESENT 0x8e
#define ISR_STUB_SIZE 16

extern const u8 isr_stubs[];
void gdt_load(const struct desc_ptr *gdtr, u16 cs, u16 ds, u16 tss);
void isr_dispatch(struct isr_frame *f);

static struct cpu_tables bsp_tables;
static struct idt_gate idt[256] __aligned(16);

/* Segment descriptors (SDM Vol 3 §3.4.5): L=1 for 64-bit code, P, S, DPL 0 */
#define DESC_CODE64 0x00af9a000000ffffull
#define DESC_DATA 0x00cf92000000ffffull

static void set_tss_descriptor(u64 *slot, u64 base, u32 limit)
{
	/* 16-byte system descriptor, type 9 = available 64-bit TSS */
	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
		  ((u64)((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

static const char *const exception_names[32] = {
	"#DE divide error",
	"#DB debug",
	"NMI",
	"#BP breakpoint",
	"#OF overflow",
	"#BR bound range",
	"#UD invalid opcode",
	"#NM device not available",
	"#DF double fault",
	"coprocessor overrun",
	"#TS invalid TSS",
	"#NP segment not present",
	"#SS stack fault",
	"#GP general protection",
	"#PF page fault",
	"reserved 15",
	"#MF x87 error",
	"#AC alignment check",
	"#MC machine check",
	"#XM SIMD exception",
	"#VE virtualization exception",
	"#CP control protection",
	"reserved 22",
	"reserved 23",
	"reserved 24",
	"reserved 25",
	"reserved 26",
	"reserved 27",
	"#HV hypervisor injection",
	"#VC VMM communication",
	"#SX security exception",
	"reserved 31",
};

static void dump_registers(const struct isr_frame *f)
{
	console_printf("  rip %016llx  cs %04llx  rflags %016llx\n", f->rip, f->cs, f->rflags);
	console_printf("  rsp %016llx  ss %04llx  error %016llx  cr2 %016llx\n", f->rsp, f->ss,
		       f->error_code, read_cr2());
	console_printf("  rax %016llx  rbx %016llx  rcx %016llx  rdx %016llx\n", f->rax, f->rbx,
		       f->rcx, f->rdx);
	console_printf("  rsi %016llx  rdi %016llx  rbp %016llx  r8  %016llx\n", f->rsi, f->rdi,
		       f->rbp, f->r8);
	console_printf("  r9  %016llx  r10 %016llx  r11 %016llx  r12 %016llx\n", f->r9, f->r10,
		       f->r11, f->r12);
	console_printf("  r13 %016llx  r14 %016llx  r15 %016llx\n", f->r13, f->r14, f->r15);
	console_printf("  cr0 %016llx  cr3 %016llx  cr4 %016llx\n", read_cr0(), read_cr3(),
		       read_cr4());
}

extern const u8 rdmsr_safe_insn[], wrmsr_safe_insn[], msr_fault[];

void isr_dispatch(struct isr_frame *f)
{
	/* rdmsr_safe/wrmsr_safe: a #GP of their RDMSR or WRMSR, known by its
	 * RIP, resumes at msr_fault; no per-CPU state needed. */
	if (f->vector == 13 && (f->rip == (u64)(uintptr_t)rdmsr_safe_insn ||
				f->rip == (u64)(uintptr_t)wrmsr_safe_insn)) {
		f->rip = (u64)(uintptr_t)msr_fault;
		return;
	}
	if (f->vector >= 32) {
		/* A host interrupt let in on purpose (see host_interrupt_window). */
		host_apic_eoi();
		if (f->vector == HOST_TIMER_VECTOR)
			host_timer_interrupt();
		/* Intel's APIC masks LVTPC as it delivers a PMI (SDM Vol 3 §11.5.1):
		 * unmasked again, the next guest overflow also exits at once. */
		if (f->vector == HOST_PMI_VECTOR) {
			this_cpu()->host_pmis++;
			lapic_host_lvtpc();
		}
		return;
	}
	if (f->vector == 2) {
		host_nmi(f);
		return;
	}
	if (f->vector == 1 && host_stray_db(f))
		return;
	if (f->vector == 18)
		host_machine_check(f);
	console_printf("\nmhv: host exception %llu (%s) at rip %llx\n", f->vector,
		       exception_names[f->vector], f->rip);
	dump_registers(f);
	hv_finish(MHV_FATAL);
}

/* The tables of the CPU this runs on (the VMX host state is per CPU). */
static struct cpu_tables *current_tables(void)
{
	struct cpu *c = this_cpu();

	return c && c->tables ? c->tables : &bsp_tables;
}

u64 host_tss_base(void)
{
	return (u64)(uintptr_t)&current_tables()->tss;
}

u64 host_gdt_base(void)
{
	return (u64)(uintptr_t)current_tables()->gdt;
}

u64 host_idt_base(void)
{
	return (u64)(uintptr_t)idt;
}

struct cpu_tables *cpu_tables_bsp(void)
{
	return &bsp_tables;
}

/* This CPU's GDT and TSS, and the shared IDT. */
void cpu_tables_load(struct cpu_tables *t)
{
	struct desc_ptr gdtr = { sizeof(t->gdt) - 1, (u64)(uintptr_t)t->gdt };
	struct desc_ptr idtr = { sizeof(idt) - 1, (u64)(uintptr_t)idt };

	t->gdt[0] = 0;
	t->gdt[HOST_CS / 8] = DESC_CODE64;
	t->gdt[HOST_DS / 8] = DESC_DATA;
	t->tss.iomap_base = sizeof(t->tss); /* no I/O bitmap */
	set_tss_descriptor(&t->gdt[HOST_TSS / 8], (u64)(uintptr_t)&t->tss, sizeof(t->tss) - 1);
	gdt_load(&gdtr, HOST_CS, HOST_DS, HOST_TSS);
	asm volatile("lidt %0" ::"m"(idtr));
}

void cpu_tables_init(void)
{
	unsigned v;

	for (v = 0; v < 256; v++) {
		u64 addr = (u64)(uintptr_t)(isr_stubs + v * ISR_STUB_SIZE);

		idt[v].offset_low = addr & 0xffff;
		idt[v].selector = HOST_CS;
		idt[v].ist = 0;
		idt[v].type_attr = GATE_INTERRUPT_PRESENT;
		idt[v].offset_mid = (addr >> 16) & 0xffff;
		idt[v].offset_high = addr >> 32;
		idt[v].reserved = 0;
	}
	cpu_tables_load(&bsp_tables);
}
