/* SPDX-License-Identifier: MIT */
/* Fixed-width types shared by the hypervisor, the guests and the host tests. */
#ifndef MHV_TYPES_H
#define MHV_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64; /* as in Linux: %llx prints it everywhere */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1ull << (n))

/* The n-bit field of v that starts at bit lo (n < 32): CPUID's counts and widths */
static inline u32 field32(u32 v, unsigned lo, unsigned n)
{
	return (v >> lo) & ((1u << n) - 1);
}

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((u64)(a)-1))
#define PAGE_SIZE 4096ull
#define PAGE_SHIFT 12

#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __noreturn __attribute__((noreturn))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* A tail call the compiler must make (clang: the fast exit handlers keep
 * no frame); a plain return for a host compiler without the attribute
 * (gcc 12 builds the unit tests). */
#if __has_attribute(musttail)
#define MUST_TAIL __attribute__((musttail))
#else
#define MUST_TAIL
#endif

#endif
