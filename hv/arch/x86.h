/* SPDX-License-Identifier: MIT */
/* Thin wrappers around the x86 instructions the host code needs; the
 * registers' bits and MSR indices are in regs.h, msr.h and their neighbours. */
#ifndef MHV_X86_H
#define MHV_X86_H

#include "lib/types.h"

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline void cpuid_raw(u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	asm volatile("cpuid"
		     : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
		     : "a"(leaf), "c"(subleaf));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 val)
{
	asm volatile("wrmsr" ::"c"(msr), "a"((u32)val), "d"((u32)(val >> 32)) : "memory");
}

/* RDMSR that survives #GP (host/isr.asm): 0, or -1 when the MSR does not exist. */
int rdmsr_safe(u32 msr, u64 *val);
int wrmsr_safe(u32 msr, u64 val);

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline void outb(u16 port, u8 v)
{
	asm volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}

static inline void outw(u16 port, u16 v)
{
	asm volatile("outw %0, %1" ::"a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	asm volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* read_cr0() ... write_dr7(): MOV to and from control and debug registers */
#define DEFINE_MOV_ACCESS(reg, n)                                       \
	static inline u64 read_##reg##n(void)                           \
	{                                                               \
		u64 v;                                                  \
		asm volatile("mov %%" #reg #n ", %0" : "=r"(v));        \
		return v;                                               \
	}                                                               \
	static inline void write_##reg##n(u64 v)                        \
	{                                                               \
		asm volatile("mov %0, %%" #reg #n ::"r"(v) : "memory"); \
	}
DEFINE_MOV_ACCESS(cr, 0)
DEFINE_MOV_ACCESS(cr, 2)
DEFINE_MOV_ACCESS(cr, 3)
DEFINE_MOV_ACCESS(cr, 4)
DEFINE_MOV_ACCESS(cr, 8)
DEFINE_MOV_ACCESS(dr, 0)
DEFINE_MOV_ACCESS(dr, 1)
DEFINE_MOV_ACCESS(dr, 2)
DEFINE_MOV_ACCESS(dr, 3)
DEFINE_MOV_ACCESS(dr, 6)
DEFINE_MOV_ACCESS(dr, 7)

static inline u64 read_rflags(void)
{
	u64 v;

	asm volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void cli(void)
{
	asm volatile("cli" ::: "memory");
}

static inline __noreturn void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

static inline void cpu_relax(void)
{
	asm volatile("pause");
}

/* A test-and-set lock for the few host structures CPUs share (not on the
 * exit path). */
static inline void spin_lock(volatile bool *lock)
{
	while (__atomic_test_and_set(lock, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static inline void spin_unlock(volatile bool *lock)
{
	__atomic_clear(lock, __ATOMIC_RELEASE);
}

/*
 * Block fill and copy with REP STOSB and REP MOVSB (SDM Vol 2B; fast
 * strings, IA32_MISC_ENABLE[0]): one instruction for the megabytes of
 * guest RAM and kernel images, where libefi's memset and memcpy are byte
 * loops (8 s per 256 MiB of guest RAM under Bochs).
 */
static inline void fill_bytes(void *dst, u8 val, u64 n)
{
	asm volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(val) : "memory");
}

static inline void copy_bytes(void *dst, const void *src, u64 n)
{
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

#endif
