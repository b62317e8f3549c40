/* SPDX-License-Identifier: MIT */
/*
 * An AP's start-up as a race the BSP and the AP settle by compare-and-
 * swap: STARTING (SIPI sent) -> BOOTING (the AP answered, runs its own
 * set-up) -> IDLE or FAILED.  The BSP gives up on a CPU that stays
 * STARTING or BOOTING too long (FAILED); a CPU that answers after that
 * finds its state taken and parks for good instead of becoming usable.
 * Without a MADT the APs take slots; the BSP closes them at once, so no
 * AP holds a slot that the CPU count does not cover.
 */
#ifndef MHV_SMP_STATE_H
#define MHV_SMP_STATE_H

#include "percpu.h"

/* The trampoline's slot count once the BSP closed it: an AP's xadd then
 * returns at least this, which is at least any slot count. */
#define SMP_SLOTS_CLOSED 0x80000000u

/* The one change of c's state from @from to @to, against the other CPU's. */
bool cpu_state_change(struct cpu *c, u32 from, u32 to);
/* On the AP: it answered (STARTING -> BOOTING); false when the BSP has
 * given up on it already: it must park, touching nothing. */
bool smp_ap_claim(struct cpu *c);
/* On the AP: its set-up ended (BOOTING -> IDLE, or FAILED when !ok);
 * false when the BSP gave up on it meanwhile: it must park. */
bool smp_ap_ready(struct cpu *c, bool ok);
/* On the BSP: a CPU still STARTING or BOOTING is FAILED, with why (the
 * first for one that never answered, the second for one in its set-up);
 * false when it is up (or failed by itself) after all. */
bool smp_give_up(struct cpu *c, const char *no_answer, const char *no_setup);
/* A CPU that has not settled yet (STARTING or BOOTING). */
bool smp_unsettled(const struct cpu *c);
/* On the BSP: no AP takes a slot from now on; how many were taken. */
u32 smp_slots_close(u32 *slots);

#endif
