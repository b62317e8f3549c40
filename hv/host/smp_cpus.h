/* SPDX-License-Identifier: MIT */
/*
 * Which CPUs smp_init starts: the MADT's list, every CPU in x2APIC mode
 * when an APIC ID needs it, and the line that says how many started.
 */
#ifndef MHV_SMP_CPUS_H
#define MHV_SMP_CPUS_H

#include "lib/types.h"

struct boot_info;

#define BROADCAST_APS 16 /* slots when there is no MADT to count the CPUs */

struct smp_cpus {
	const u32 *ids;	 /* the MADT's APIC IDs, NULL without a MADT */
	int n;		 /* how many; 0 or -1 without a (good) MADT */
	u32 bsp_id;	 /* after any switch to x2APIC */
	bool xapic_only; /* IDs above 254 left out: this CPU has no x2APIC */
	unsigned aps;	 /* APs to start (the slots, without a MADT) */
};

/* Read the MADT into @p and turn x2APIC on when an ID needs it. */
void smp_cpus_plan(const struct boot_info *bi, struct smp_cpus *p);
/* The MADT's APs into cpus[1..], nr_cpus counting them (p->n > 0). */
void smp_cpus_list(const struct smp_cpus *p);
/* The run header's line, and smp_census: @up APs started, @parked CPUs
 * parked for good (late or unknown: smp_state.h). */
void smp_cpus_say(const struct smp_cpus *p, unsigned up, u32 parked, u32 smt_shift);

#endif
