/* SPDX-License-Identifier: MIT */
/* What the fuzz guest's operation files share (ops.c, ops_io.c, ops_cpu.c). */
#ifndef GUEST_FUZZ_OPS_PRIV_H
#define GUEST_FUZZ_OPS_PRIV_H

#include "fuzz.h"

/* CR/EFER bits: arch/regs.h (through rt.h) */
#define MSR_DEBUGCTL 0x1d9
#define X2APIC_TPR 0x808
#define X2APIC_SVR 0x80f
#define X2APIC_ICR 0x830
#define X2APIC_LVTT 0x832
#define X2APIC_TMICT 0x838
#define X2APIC_TDCR 0x83e
#define X2APIC_SELF_IPI 0x83f
#define TIMER_VECTOR 0x40
#define IPI_VECTOR 0x41
#define IOAPIC_BASE 0xfec00000ull
#define XAPIC_BASE 0xfee00000ull

/* The scratch pages string I/O, hypercalls and INVLPG point into. */
extern u8 fuzz_scratch[2 * 4096];
/* Distinct ports and MSRs touched (bitmaps; MSRs by a hash of the index). */
extern u64 fuzz_seen_port[65536 / 64];
extern u64 fuzz_seen_msr[4096 / 64];

u64 fuzz_below(u64 n);
u64 fuzz_value(u64 old);
void fuzz_record(struct fuzz_stats *st, unsigned op, int vec, u64 result);
void fuzz_ring_put(u32 n, unsigned op, u32 size, u64 a, u64 b);
void fuzz_seen(u64 *map, u32 i, u32 *count);
void fuzz_diff(const struct fuzz_env *env, u32 n, const char *fmt, ...) __printf(3, 4);
void fuzz_apic_sane(void);
void fuzz_io_init(void);
void fuzz_cpu_init(void);

/* The operations: ops_io.c */
void op_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out);
void op_string_io(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool out);
void op_mmio(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool write);
void op_hypercall(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
/* ops_cpu.c */
void op_cpuid(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_rdmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_wrmsr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_cr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_xcr0(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_dr(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_invlpg(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_ipi(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_timer(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_hlt(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_rdpmc(const struct fuzz_env *env, struct fuzz_stats *st, u32 n);
void op_xsave(const struct fuzz_env *env, struct fuzz_stats *st, u32 n, bool restore);

#endif
