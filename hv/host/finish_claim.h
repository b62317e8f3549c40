/* SPDX-License-Identifier: MIT */
/*
 * Which CPU ends the run (host/finish.c): the first to call hv_finish.
 * The others must not take the exit action (a reset) while it stores
 * the log in UEFI variables: they wait, a bounded time, for it to be
 * done.  Kept apart so that host tests race real threads through it.
 */
#ifndef MHV_FINISH_CLAIM_H
#define MHV_FINISH_CLAIM_H

#include "lib/types.h"

enum finish_role {
	FINISH_FIRST, /* this CPU ends the run */
	FINISH_AGAIN, /* this CPU, again: a fatal error while it ended the run */
	FINISH_OTHER, /* another CPU ends the run */
};

/* @owner: 0, or the index + 1 of the CPU that claimed the end; @me: this
 * CPU's index + 1. */
static inline enum finish_role finish_claim(u32 *owner, u32 me)
{
	u32 first = 0;

	if (__atomic_compare_exchange_n(owner, &first, me, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return FINISH_FIRST;
	return first == me ? FINISH_AGAIN : FINISH_OTHER;
}

/* Waits for *@done to be set, at most @spins rounds of @relax(); true
 * when it was. */
static inline bool finish_wait(const u32 *done, u64 spins, void (*relax)(void))
{
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
		if (!spins--)
			return false;
		relax();
	}
	return true;
}

#endif
