// SPDX-License-Identifier: MIT
/*
 * The plan's size, known before its first VM: how many benchmark rows one
 * CPU's pass over it can report.  Each guest program says what its
 * variants report at most (struct guest_info, from the program's own
 * tables); the plan is every VM of every selected suite in every column
 * this host runs.  The rows are allocated from that count at the start,
 * so a run that has started never refuses a result for want of room.
 */
#include "runner_priv.h"
#include "platform/console.h"
#include "host/finish.h"

u32 runner_vm_bench_rows(const struct suite *s, const struct suite_vm *sv)
{
	const struct guest_info *gi = (const void *)(s->blob + GUEST_INFO_OFFSET);

	if (s->blob_end - s->blob < GUEST_INFO_OFFSET + (long)sizeof(*gi) ||
	    gi->magic != GUEST_INFO_MAGIC)
		hv_fatal(MHV_FATAL, "guest program %s carries no struct guest_info (guest.ld)",
			 s->name);
	if (sv->variant >= GUEST_INFO_VARIANTS)
		hv_fatal(MHV_FATAL, "VM %s: variant %u past the %u of struct guest_info", sv->name,
			 sv->variant, GUEST_INFO_VARIANTS);
	return gi->bench_rows[sv->variant];
}

struct plan_count {
	const struct mhv_config *cfg;
	u32 vms, rows;
};

/* a column the host refuses runs no VM */
static void count_nothing(void *arg, const struct suite *s, const struct vm_config *c,
			  const char *why)
{
}

static void count_column(void *arg, const struct suite *s, const struct vm_config *c)
{
	struct plan_count *pc = arg;
	unsigned j;

	for (j = 0; j < s->nr_vms; j++) {
		if (suite_vm_why_not(&s->vms[j], pc->cfg).verdict != VERDICT_RUN)
			continue;
		pc->vms++;
		pc->rows += runner_vm_bench_rows(s, &s->vms[j]);
	}
}

u32 runner_plan_bench_rows(const struct mhv_config *cfg)
{
	struct plan_count pc = { .cfg = cfg };
	const struct plan_walk w = { count_nothing, count_column, &pc, NULL };

	runner_walk_plan(cfg, PLAN_ALL, &w);
	console_printf("mhv: plan: %u VMs per CPU, up to %u benchmark rows (%u KiB of results "
		       "per CPU, allocated now)\n",
		       pc.vms, pc.rows,
		       (u32)(((u64)pc.rows * sizeof(struct bench_row) + 1023) >> 10));
	return pc.rows;
}
