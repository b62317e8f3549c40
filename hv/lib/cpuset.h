/* SPDX-License-Identifier: MIT */
/*
 * A set of CPU indices (0 is the BSP), as mhv.cfg's "cpus =" names them:
 * a bitmap with a compile-time bound, the one place where mhv keeps one.
 * Per-CPU data itself is allocated for the CPUs present (host/percpu.h).
 */
#ifndef MHV_CPUSET_H
#define MHV_CPUSET_H

#include "types.h"

#define CPUSET_BITS 1024

struct cpuset {
	u64 w[CPUSET_BITS / 64];
};

static inline void cpuset_clear(struct cpuset *s)
{
	__builtin_memset(s, 0, sizeof(*s));
}

static inline void cpuset_add(struct cpuset *s, unsigned cpu)
{
	if (cpu < CPUSET_BITS)
		s->w[cpu / 64] |= BIT(cpu % 64);
}

static inline bool cpuset_has(const struct cpuset *s, unsigned cpu)
{
	return cpu < CPUSET_BITS && (s->w[cpu / 64] & BIT(cpu % 64));
}

static inline unsigned cpuset_count(const struct cpuset *s)
{
	unsigned i, n = 0;

	for (i = 0; i < ARRAY_SIZE(s->w); i++)
		n += (unsigned)__builtin_popcountll(s->w[i]);
	return n;
}

static inline bool cpuset_empty(const struct cpuset *s)
{
	return !cpuset_count(s);
}

#endif
