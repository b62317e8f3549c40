/* SPDX-License-Identifier: MIT */
/* What the vendor parts of the bare PMU test (pmutest.c) share. */
#ifndef PMUTEST_H
#define PMUTEST_H

#include <stdint.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

#define PMI_VECTOR 0x40
#define N 1000
/* a handler retires at most this many instructions */
#define HANDLER_MAX 64

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr), "a"(0), "d"(0));
	return ((u64)hi << 32) | lo;
}

/* a #GP skips the 2-byte WRMSR/RDMSR/RDPMC (gp_handler) */
static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline u64 rdpmc(u32 n)
{
	u32 lo = 0, hi = 0;

	__asm__ volatile("rdpmc" : "+a"(lo), "+d"(hi) : "c"(n));
	return ((u64)hi << 32) | lo;
}

static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

__attribute__((no_caller_saved_registers)) void puts_e9(const char *s);
__attribute__((no_caller_saved_registers)) void put_hex(u64 v);
void put_dec(u64 v);
void check_range(const char *what, u64 got, u64 lo, u64 hi);
void check(const char *what, u64 got, u64 want);

extern volatile u32 gp_count; /* pmuasm.asm */
extern volatile u32 pmi_count, nmi_count;
extern volatile u32 *lapic;

void pmutest_intel(void); /* pmutest_intel.c */

#endif
