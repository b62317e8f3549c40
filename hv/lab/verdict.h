/* SPDX-License-Identifier: MIT */
#ifndef MHV_VERDICT_H
#define MHV_VERDICT_H

/*
 * Whether a part of the plan (a suite VM, a matrix column, a guest, the
 * CPUs at once) runs on this machine under this config, and if not, why.
 */
enum verdict {
	VERDICT_RUN,
	VERDICT_LEFT_OUT, /* the config leaves it out: nothing is said */
	VERDICT_CANNOT,	  /* this machine cannot: said, with the reason */
};

struct why_not {
	enum verdict verdict;
	const char *reason; /* VERDICT_CANNOT: a sentence for the user; else NULL */
};

static inline struct why_not verdict_run(void)
{
	return (struct why_not){ VERDICT_RUN, NULL };
}

static inline struct why_not verdict_left_out(void)
{
	return (struct why_not){ VERDICT_LEFT_OUT, NULL };
}

static inline struct why_not verdict_cannot(const char *reason)
{
	return (struct why_not){ VERDICT_CANNOT, reason };
}

/* For the lower layers' bare answers (pmu_mode_unsupported): NULL runs. */
static inline struct why_not verdict_unless(const char *reason)
{
	return reason ? verdict_cannot(reason) : verdict_run();
}

#endif
