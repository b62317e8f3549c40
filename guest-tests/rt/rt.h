/* SPDX-License-Identifier: MIT */
/* The test guests' runtime: hypercalls, console, results, faults. */
#ifndef GUEST_RT_H
#define GUEST_RT_H

#include "lib/guest_abi.h"
#include "arch/msr.h"
#include "arch/regs.h"
#include "arch/x86.h"

struct guest_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rdi, rsi, rbp, rbx, rdx, rcx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;
};

extern bool hypercall_is_vmcall;
extern bool hypercall_by_port; /* set by guest_rt_init (rt/hypercall.c) */
extern bool guest_is_amd;
extern bool guest_has_xsave;	/* CPUID says XSAVE; CR4.OSXSAVE set by guest_rt_init */
extern volatile u64 guest_irqs; /* interrupts taken (vectors 32-255) */
/* NMIs taken while guest_nmi_ok is set; otherwise an NMI fails the guest. */
extern volatile u64 guest_nmis;
extern volatile bool guest_nmi_ok;
/* An exception no probe was armed for: the hook may fix the frame up and
 * return true to resume, else it fails the guest (NULL: always fails). */
extern bool (*guest_exception_hook)(struct guest_frame *f);

/*
 * Each program says once how many benchmark rows its variants report at
 * most, from its own tables: GUEST_BENCH_ROWS([0] = ARRAY_SIZE(benches)),
 * or GUEST_BENCH_ROWS() for none (struct guest_info).
 */
#define GUEST_BENCH_ROWS(...)                                             \
	__attribute__((section(".guest_info"), used))                     \
	const struct guest_info guest_info = { .magic = GUEST_INFO_MAGIC, \
					       .bench_rows = { __VA_ARGS__ } }

u64 hypercall(u64 nr, u64 a0, u64 a1);
int gprintf(const char *fmt, ...) __printf(1, 2);
void test_report(const char *name, enum test_status st, const char *fmt, ...) __printf(3, 4);
bool test_wanted(const char *name);
/* test_wanted for a benchmark that runs at once after it: asked twice. */
bool bench_wanted(const char *name);

/* PASS when ok, else FAIL with the printf-style reason. */
#define expect(name, ok, ...)                                      \
	do {                                                       \
		if (ok)                                            \
			test_report(name, TEST_PASS, "%s", "");    \
		else                                               \
			test_report(name, TEST_FAIL, __VA_ARGS__); \
	} while (0)
u64 exit_count(unsigned kind);
void guest_rt_init(void);
/* Load an IDT of size zero: the next exception shuts the VM down. */
void guest_idt_clear(void);

/* Probes (rt/entry.asm): -1 when no fault, else the vector that arrived. */
int rdmsr_safe(u32 msr, u64 *val);
int wrmsr_safe(u32 msr, u64 val);
int rdpmc_safe(u32 ecx, u64 *val);
int cr4_write_probe(u64 value);
int single_step_probe(void);
int single_step_exit_probe(void);
extern const u8 single_step_exit_next[];
extern u64 fault_rip; /* where the last fault a probe caught arrived */
int xsetbv_safe(u32 index, u64 value);
int syscall_probe(void);
extern const u8 syscall_landing[];
extern volatile u32 syscall_taken;
/* XSAVES of the components in mask: a vector on a fault, else -1. */
int xsaves_safe(void *area, u64 mask);
/* XRSTORS of the components in mask: a vector on a fault, else -1. */
int xrstors_safe(const void *area, u64 mask);

/* rt/simd.asm: the vector registers to and from memory, and XSAVE/XRSTOR */
void simd_load_xmm(const void *src);
void simd_store_xmm(void *dst);
void simd_load_ymm(const void *src);
void simd_store_ymm(void *dst);
void simd_load_zmm(const void *src);
void simd_store_zmm(void *dst);
void xsave_area(void *area, u64 mask);
void xrstor_area(void *area, u64 mask);
/* rt/probe_ops.asm: any operand; -1, or the vector of the fault raised */
int probe_in(u16 port, u32 size, u32 *val);
int probe_out(u16 port, u32 size, u32 val);
int probe_ins(u16 port, u32 size, void *buf, u64 count);
int probe_outs(u16 port, u32 size, const void *buf, u64 count);
int probe_mmio_read(u64 addr, u32 size, u64 *val);
int probe_mmio_write(u64 addr, u32 size, u64 val);
int probe_cr_write(u32 cr, u64 val);
int probe_dr_write(u32 dr, u64 val); /* DR7 is 0 again after it */
int probe_hypercall(bool vmcall, u64 nr, u64 a0, u64 a1, u64 *ret);
int probe_invlpg(u64 addr);
int probe_xsave(void *area, u64 mask);
int probe_xrstor(const void *area, u64 mask);
void probe_halt(void); /* STI; HLT; CLI */
int vmrun_probe(void);
int vmload_probe(void);
int vmsave_probe(void);
int stgi_probe(void);
int clgi_probe(void);
int invlpga_probe(void);
int ud2_probe(void);
int rdpmc_probe(void);
int vmxon_probe(void);
int vmxoff_probe(void);
int vmclear_probe(void);
int vmptrld_probe(void);
int vmptrst_probe(void);
int vmread_probe(void);
int vmwrite_probe(void);
int vmlaunch_probe(void);
int vmresume_probe(void);
int invept_probe(void);
int invvpid_probe(void);

static inline void cpuid_count(u32 leaf, u32 sub, struct cpuid_regs *r)
{
	cpuid_raw(leaf, sub, r);
}

static inline u32 inl(u16 port)
{
	u32 v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;

	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u64 xgetbv(u32 index)
{
	u32 lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(index));
	return ((u64)hi << 32) | lo;
}

/* Serialised TSC read: LFENCE orders it after earlier instructions. */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((u64)hi << 32) | lo;
}

/* The end stamp with RDTSCP: it waits for earlier instructions itself;
 * the LFENCE keeps later ones from starting before it (SDM Vol 2B RDTSCP). */
static inline u64 rdtscp_ordered(void)
{
	u32 lo, hi, aux;

	asm volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((u64)hi << 32) | lo;
}

#endif
