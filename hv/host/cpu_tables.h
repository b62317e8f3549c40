/* SPDX-License-Identifier: MIT */
#ifndef MHV_CPU_TABLES_H
#define MHV_CPU_TABLES_H

#include "lib/types.h"

#define HOST_CS 0x08
#define HOST_DS 0x10
#define HOST_TSS 0x18

/* What the exception stubs push (isr.asm), lowest address first. */
struct isr_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rdi, rsi, rbp, rbx, rdx, rcx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

/* 64-bit TSS (SDM Vol 3 §8.7, APM Vol 2 §12.2.5) */
struct tss64 {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

/* One CPU's GDT (null, code, data, 16-byte TSS descriptor) and TSS. */
struct cpu_tables {
	u64 gdt[5] __aligned(16);
	struct tss64 tss __aligned(16);
};

/* Own GDT, TSS and IDT: the firmware's are gone after ExitBootServices. */
void cpu_tables_init(void);
/* An AP's: its own GDT and TSS in t, the shared IDT. */
void cpu_tables_load(struct cpu_tables *t);
struct cpu_tables *cpu_tables_bsp(void);
/* The host's tables, for the VMX host-state area. */
u64 host_tss_base(void);
u64 host_gdt_base(void);
u64 host_idt_base(void);

#endif
