// SPDX-License-Identifier: MIT
/*
 * The plan on several CPUs at once: each CPU its own arena, results and
 * VM, the VMs with one vCPU on all of them together, one VM at a time.
 */
#include "runner_priv.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "host/page_alloc.h"

/* ---- the plan on several CPUs at once ("cpus_at_once = on") ---- */

/* A CPU's own arena: a suite VM (GUEST_RAM_SIZE, its nested tables and
 * vCPU state, about 4.1 MiB) with room to spare, at most 16 MiB. */
#define ARENA_MIN_PAGES (GUEST_RAM_SIZE / PAGE_SIZE + 256)
#define ARENA_MAX_PAGES ((16ull << 20) / PAGE_SIZE)

/* What each CPU of a run at once keeps until the BSP has printed it,
 * and what the BSP keeps for it while its VM runs. */
struct at_once_state {
	struct run_results results;
	struct vm vm;
	struct cpu_run run;
	struct vm_life life;
	bool lost;
};

/* The CPUs of a run at once, and the lists runner_run_together takes. */
struct plan_at_once {
	struct at_once_state *st;
	unsigned n;
	struct cpu **on;
	void **args;
	struct vm **vms;
	enum work_end *end;
};

/* On each CPU: its lines tagged "[cpuN] ", what run_suite_vm does for one. */
static void at_once_job(void *arg)
{
	struct vm_life *l = arg;
	struct why_not w = suite_vm_why_not(l->sv, l->cr->run->cfg);

	console_tag_cpu_lines(true);
	if (w.verdict == VERDICT_RUN)
		runner_vm_life(l);
	else
		results_test(l->cr->results, l->suite, suite_vm_test(l->sv), TEST_SKIP, w.reason);
	console_tag_cpu_lines(false);
}

/*
 * One VM on every CPU at once, each its own copy: all start, the BSP
 * runs its own if it is one of them, then waits for each, bounded by the
 * VM's time limit, so that a CPU that is lost is left out, not waited for.
 */
static void run_vm_at_once(const struct plan_at_once *p, const struct suite *s,
			   const struct suite_vm *sv, const struct vm_config *config)
{
	u64 limit_ms = suite_vm_limit_ms(sv, p->st[0].run.run->cfg);
	unsigned i;

	for (i = 0; i < p->n; i++) {
		struct at_once_state *st = &p->st[i];

		p->on[i] = st->run.cpu;
		p->args[i] = &st->life;
		p->vms[i] = st->run.vm;
		/* a CPU lost at an earlier VM stays out (it cannot start), as in
		 * runner_run_plan_on, and is not reported again; its life is
		 * left as it was */
		st->lost = p->on[i]->state == CPU_FAILED;
		if (!st->lost)
			runner_suite_vm(&st->life, &st->run, s, sv, config);
	}
	runner_run_together(p->on, p->n, at_once_job, p->args, p->vms, limit_ms + CPU_GRACE_MS,
			    p->end);
	for (i = 0; i < p->n; i++) {
		struct at_once_state *st = &p->st[i];

		if (st->lost || p->end[i] == WORK_DONE)
			continue;
		runner_vm_lost(&st->life, p->on[i]);
		if (p->end[i] == WORK_LOST)
			runner_keep_lost_vm(&st->run, st->run.vm, p->on[i]);
	}
}

/* Said once, in every CPU's tables. */
static void refuse_at_once(void *arg, const struct suite *s, const struct vm_config *c,
			   const char *why)
{
	const struct plan_at_once *p = arg;
	unsigned k;

	results_refuse_column(p->st[0].run.results, s->name, c->name, why);
	for (k = 1; k < p->n; k++)
		results_add_refused(p->st[k].run.results, c->name, why);
}

static void run_at_once(void *arg, const struct suite *s, const struct vm_config *c)
{
	const struct plan_at_once *p = arg;
	unsigned j;

	for (j = 0; j < s->nr_vms; j++) {
		const struct suite_vm *sv = &s->vms[j];
		struct why_not w = suite_vm_why_not(sv, p->st[0].run.run->cfg);

		/* skipped ones are said on each CPU; left-out ones nowhere */
		if (runner_plan_takes(PLAN_ONE_VCPU, sv) && w.verdict != VERDICT_LEFT_OUT)
			run_vm_at_once(p, s, sv, c);
	}
}

/*
 * The plan with every chosen CPU at once: the VMs with one vCPU run on
 * all of them together, one VM at a time, so each CPU measures its exits
 * while the others take theirs (shared caches, uncore, memory).  Then,
 * CPU by CPU, the VMs with two vCPUs (they need a second CPU of their
 * own, so they run alone) and that CPU's tables.  Refused when the
 * memory for it is not there: the caller then runs the CPUs one after
 * another.
 */
struct why_not runner_run_at_once(struct runner *run, struct cpu *chosen[], unsigned n)
{
	const struct mhv_config *cfg = run->cfg;
	struct plan_at_once p = { .n = n };
	const struct plan_walk w = { refuse_at_once, run_at_once, &p, runner_say_suite };
	u64 state_pages = (n * sizeof(struct at_once_state) + PAGE_SIZE - 1) / PAGE_SIZE;
	u64 list_pages =
	    (n * (3 * sizeof(void *) + sizeof(enum work_end) + sizeof(u32)) + PAGE_SIZE - 1) /
	    PAGE_SIZE;
	u64 arena_pages = (n * sizeof(struct page_alloc) + PAGE_SIZE - 1) / PAGE_SIZE, pages;
	struct page_alloc_mark before, arenas;
	u32 nr_lost = run->nr_lost;
	struct at_once_state *st;
	struct page_alloc *arena;
	char list[160];
	unsigned i;
	u32 *nodes = NULL;
	u8 *lists;

	page_alloc_get_mark(&hv_pages, &before);
	st = alloc_pages_zeroed(state_pages);
	arena = alloc_pages_zeroed(arena_pages);
	lists = alloc_pages_zeroed(list_pages);
	/* each CPU's rows on its node, kept until its tables are printed */
	for (i = 0; st && i < n; i++)
		if (!results_alloc(&st[i].results, run->results.max_bench, chosen[i]->node))
			st = NULL; /* released below with the rest */
	pages = page_alloc_largest(&hv_pages) / n;
	if (pages > ARENA_MAX_PAGES)
		pages = ARENA_MAX_PAGES;
	page_alloc_get_mark(&hv_pages, &arenas);
	if (lists) {
		p.on = (struct cpu **)lists;
		p.args = (void **)(p.on + n);
		p.vms = (struct vm **)(p.args + n);
		p.end = (enum work_end *)(p.vms + n);
		nodes = (u32 *)(p.end + n);
		for (i = 0; i < n; i++)
			nodes[i] = chosen[i]->node; /* each arena on its CPU's node */
	}
	if (!st || !arena || !lists || pages < ARENA_MIN_PAGES ||
	    !page_alloc_carve(&hv_pages, arena, n, pages, nodes)) {
		page_alloc_release(&hv_pages, &before);
		return verdict_cannot("no memory for an arena and the results per CPU: the CPUs "
				      "run one after another");
	}
	p.st = st;
	for (i = 0; i < n; i++) {
		st[i].run = (struct cpu_run){
			.run = run, .cpu = chosen[i], .results = &st[i].results, .vm = &st[i].vm
		};
		st[i].results.cfg = cfg;
		fmt_snprintf(st[i].results.cpu_tag, sizeof(st[i].results.cpu_tag), "@cpu%u",
			     chosen[i]->index);
		chosen[i]->arena = &arena[i];
	}
	runner_format_cpu_list(list, sizeof(list), chosen, n);
	console_printf("mhv: ==== suites on cpus %s at once (each CPU its own VMs and a %llu MiB "
		       "arena; their lines marked [cpuN]) ====\n",
		       list, pages >> 8);
	console_lines_per_cpu(true);
	runner_walk_plan(cfg, PLAN_ONE_VCPU, &w);
	console_lines_per_cpu(false);
	for (i = 0; i < n; i++)
		chosen[i]->arena = NULL;
	/* a CPU lost in its arena may still use it, and its state */
	if (run->nr_lost == nr_lost)
		page_alloc_release(&hv_pages, &arenas);

	for (i = 0; i < n; i++) {
		console_printf(
		    "mhv: ==== cpu %u (APIC ID %u%s%s), %u of %u run at once: %sits tables "
		    "====\n",
		    chosen[i]->index, chosen[i]->apic_id, runner_cpu_node(chosen[i]),
		    chosen[i]->index ? "" : ", the BSP", i + 1, n,
		    runner_plan_has(cfg, PLAN_TWO_VCPUS) ? "its VMs with two vCPUs, then " : "");
		runner_run_plan_on(&st[i].run, PLAN_TWO_VCPUS);
		runner_finish_cpu_run(&st[i].run);
		run->results.passed += st[i].results.passed;
		run->results.failed += st[i].results.failed;
		run->results.skipped += st[i].results.skipped;
	}
	if (run->nr_lost == nr_lost)
		page_alloc_release(&hv_pages, &before);
	return verdict_run();
}
