/* SPDX-License-Identifier: MIT */
#ifndef MHV_CPU_TABLES_H
#define MHV_CPU_TABLES_H

#include "types.h"

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

/* Own GDT, TSS and IDT: the firmware's are gone after ExitBootServices. */
void cpu_tables_init(void);
/* The host's tables, for the VMX host-state area. */
u64 host_tss_base(void);
u64 host_gdt_base(void);
u64 host_idt_base(void);

#endif
