// SPDX-License-Identifier: MIT
/*
 * The run plan: for every suite the config selects, the VMs it needs, one
 * after another, on each chosen CPU in turn or on all of them at once;
 * then the results tables and the summary.
 */
#include "runner_priv.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "host/finish.h"
#include "host/page_alloc.h"
#include "report.h"
#include "fw_probe.h"

/* runner_run_together work: the whole life of the VM of @arg (a struct vm_life). */
static void vm_life_work(void *arg)
{
	runner_vm_life(arg);
}

/* One VM of a suite on cr's CPU (with its second vCPU on another), unless
 * the config leaves it out or this machine cannot run it. */
static void run_suite_vm(struct cpu_run *cr, const struct suite *s, const struct suite_vm *sv,
			 const struct vm_config *config)
{
	const struct mhv_config *cfg = cr->run->cfg;
	struct why_not w = suite_vm_why_not(sv, cfg);
	struct vm_life life;
	void *arg = &life;
	struct vm *vm = cr->vm;
	enum work_end end;

	runner_suite_vm(&life, cr, s, sv, config);
	if (w.verdict == VERDICT_CANNOT)
		results_test(cr->results, s->name, suite_vm_test(sv), TEST_SKIP, w.reason);
	if (w.verdict != VERDICT_RUN)
		return;
	if (suite_vm_lost_cpu(sv) == LOST_CPU_NEXT && !cr->run->nr_lost) {
		results_test(cr->results, s->name, suite_vm_test(sv), TEST_SKIP,
			     "no VM before it lost a CPU: nothing to keep apart from");
		return;
	}
	if (sv->nr_vcpus > 1) {
		if (runner_pick_cpus(cr->cpu, sv->nr_vcpus, life.on) < sv->nr_vcpus)
			results_test(cr->results, s->name, sv->name, TEST_SKIP,
				     "needs a second CPU: start mhv on a machine with two or more");
		else if (suite_vm_lost_cpu(sv) == LOST_CPU_LOSE && life.on[1] == &cpus[0])
			results_test(cr->results, s->name, suite_vm_test(sv), TEST_SKIP,
				     "needs an AP to lose besides the suites' CPU: run the "
				     "suites on the BSP (cpus = 0) of a machine with two CPUs");
		else
			runner_vm_life(&life);
		return;
	}
	/* The VM's own time limit ends it first; this catches a lost CPU. */
	fw_probe_expect(life.id);
	runner_run_together(&cr->cpu, 1, vm_life_work, &arg, &vm,
			    suite_vm_limit_ms(sv, cfg) + CPU_GRACE_MS, &end);
	if (end == WORK_DONE)
		return;
	runner_vm_lost(&life, cr->cpu);
	if (end == WORK_LOST)
		runner_keep_lost_vm(cr, vm, cr->cpu);
}

bool runner_plan_takes(enum plan_vms which, const struct suite_vm *sv)
{
	return which == PLAN_ALL || (which == PLAN_TWO_VCPUS) == (sv->nr_vcpus > 1);
}

/* Whether suite @s has a VM a pass of kind @which runs. */
static bool suite_has(const struct suite *s, enum plan_vms which)
{
	unsigned j;

	for (j = 0; j < s->nr_vms; j++)
		if (runner_plan_takes(which, &s->vms[j]))
			return true;
	return false;
}

bool runner_plan_has(const struct mhv_config *cfg, enum plan_vms which)
{
	unsigned i;

	for (i = 0; i < nr_suites; i++)
		if ((cfg->suites & suites[i].bit) && suite_has(&suites[i], which))
			return true;
	return false;
}

void runner_walk_plan(const struct mhv_config *cfg, enum plan_vms which, const struct plan_walk *w)
{
	unsigned i, c;

	for (i = 0; i < nr_suites; i++) {
		if (!(cfg->suites & suites[i].bit) || !suite_has(&suites[i], which))
			continue;
		if (w->suite)
			w->suite(w->arg, &suites[i]);
		for (c = 0; c < nr_vm_configs; c++) {
			struct why_not col = suite_column_why_not(&suites[i], &vm_configs[c], cfg);

			if (col.verdict == VERDICT_CANNOT)
				w->refuse(w->arg, &suites[i], &vm_configs[c], col.reason);
			else if (col.verdict == VERDICT_RUN)
				w->run(w->arg, &suites[i], &vm_configs[c]);
		}
	}
}

void runner_say_suite(void *arg, const struct suite *s)
{
	console_printf("mhv: suite %s\n", s->name);
}

/* One CPU's pass over the plan: the columns of PLAN_ALL or PLAN_TWO_VCPUS. */
struct plan_on {
	struct cpu_run *cr;
	enum plan_vms which;
};

/* A column the host cannot run is refused in the pass that runs
 * everything; the pass for the VMs with two vCPUs after a run at once
 * has refused it already. */
static void refuse_on(void *arg, const struct suite *s, const struct vm_config *c, const char *why)
{
	const struct plan_on *p = arg;

	if (p->which == PLAN_ALL)
		results_refuse_column(p->cr->results, s->name, c->name, why);
}

static void run_on(void *arg, const struct suite *s, const struct vm_config *c)
{
	const struct plan_on *p = arg;
	unsigned j;

	for (j = 0; j < s->nr_vms && p->cr->cpu->state != CPU_FAILED; j++)
		if (runner_plan_takes(p->which, &s->vms[j]))
			run_suite_vm(p->cr, s, &s->vms[j], c);
}

void runner_run_plan_on(struct cpu_run *cr, enum plan_vms which)
{
	struct plan_on p = { cr, which };
	const struct plan_walk w = { refuse_on, run_on, &p, runner_say_suite };

	runner_walk_plan(cr->run->cfg, which, &w);
}

void runner_finish_cpu_run(struct cpu_run *cr)
{
	if (cr->hostile_tried)
		console_printf("mhv: hostile: %u cases tried, %u contained\n", cr->hostile_tried,
			       cr->hostile_contained);
	cr->hostile_tried = cr->hostile_contained = 0;
	report_bench_tables(cr->results);
	cr->results->nr_bench = 0;
	cr->results->nr_refused = 0;
}

static u64 pages_for(u64 bytes)
{
	return (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
}

/*
 * Where the suites run: the CPUs "cpus =" names, or all that started, or
 * by default one AP on another core than the BSP (which spin-waits while
 * the AP measures), else the BSP.
 */
static unsigned choose_cpus(const struct mhv_config *cfg, struct cpu *chosen[])
{
	unsigned i, n = 0;

	if (!cfg->cpus_all && cpuset_empty(&cfg->cpus)) {
		/* Not the BSP's SMT sibling either: its spin-wait would share the core. */
		for (i = 1; i < nr_cpus && !n; i++)
			if (cpus[i].state == CPU_IDLE && !smp_same_core(&cpus[i], &cpus[0]))
				chosen[n++] = &cpus[i];
		for (i = 1; i < nr_cpus && !n; i++)
			if (cpus[i].state == CPU_IDLE)
				chosen[n++] = &cpus[i];
		if (!n)
			chosen[n++] = &cpus[0];
		return n;
	}
	for (i = 0; i < (cfg->cpus_all ? nr_cpus : CPUSET_BITS); i++) {
		if (!cfg->cpus_all && !cpuset_has(&cfg->cpus, i))
			continue;
		if (i < nr_cpus && cpus[i].state == CPU_IDLE)
			chosen[n++] = &cpus[i];
		else if (!cfg->cpus_all)
			console_printf("mhv: cpu %u (from mhv.cfg cpus) %s\n", i,
				       i >= nr_cpus ? "does not exist: left out"
						    : "cannot be used: left out");
	}
	if (!n) {
		console_printf("mhv: none of the CPUs in mhv.cfg can run guests: using the BSP\n");
		chosen[n++] = &cpus[0];
	}
	return n;
}

/* Whether the chosen CPUs run the plan at once: asked for and more than one. */
static struct why_not at_once_why_not(const struct mhv_config *cfg, struct cpu *const chosen[],
				      unsigned n, char *why, size_t size)
{
	if (!cfg->cpus_at_once)
		return verdict_left_out();
	if (n > 1)
		return verdict_run();
	fmt_snprintf(why, size, "only cpu %u is chosen, none runs beside it", chosen[0]->index);
	return verdict_cannot(why);
}

enum mhv_status runner_run_plan(const struct mhv_config *cfg, const struct boot_info *bi)
{
	static struct runner run;
	static struct vm first_vm;
	struct cpu_run one_by_one = { .run = &run, .results = &run.results, .vm = &first_vm };
	/* for the CPUs present, from hv_pages before any VM's mark */
	struct cpu **chosen = alloc_pages_zeroed(pages_for(nr_cpus * sizeof(*chosen)));
	unsigned n, i;
	u32 rows;
	char why[64];
	struct why_not at_once;
	struct aperf_sample run_start;

	run.lost = alloc_pages_zeroed(pages_for(nr_cpus * sizeof(*run.lost)));
	run.max_lost = nr_cpus;
	if (!chosen || !run.lost)
		hv_fatal(MHV_FATAL, "no memory for the run's lists of %u CPUs", nr_cpus);
	n = choose_cpus(cfg, chosen);
	if (smp_census.in_madt)
		fmt_snprintf(why, sizeof(why), "%u in the MADT (MADT rev %u)", smp_census.in_madt,
			     smp_census.madt_rev);
	else
		fmt_snprintf(why, sizeof(why), "no MADT");
	console_printf("mhv: cpus: %s, %u started, %u used (%s)\n", why, smp_census.started, n,
		       cfg->cpus_all		  ? "cpus = all"
		       : cpuset_empty(&cfg->cpus) ? "the default: one AP on another core"
						  : "mhv.cfg cpus");
	at_once = at_once_why_not(cfg, chosen, n, why, sizeof(why));
	rows = runner_plan_bench_rows(cfg);
	if (!results_alloc(&run.results, rows, chosen[0]->node) || !report_keep_room(rows))
		hv_fatal(MHV_FATAL,
			 "no memory for the plan's %u benchmark rows: mhv.cfg's suites "
			 "and pmu lists make a smaller plan",
			 rows);
	run.cfg = cfg;
	run.bi = bi;
	run.vm = &first_vm;
	run.results.cfg = cfg;
	run.next_guest_id = 1000;
	aperf_sample(&run_start);
	if (cfg->firmware_probe)
		fw_probe_arm(&run.results);
	if (at_once.verdict == VERDICT_RUN)
		at_once = runner_run_at_once(&run, chosen, n);
	if (at_once.verdict == VERDICT_CANNOT)
		console_printf("mhv: cpus_at_once: %s\n", at_once.reason);
	for (i = 0; i < n && at_once.verdict != VERDICT_RUN; i++) {
		console_printf(
		    "mhv: ==== suites on cpu %u (APIC ID %u%s%s), %u of %u chosen ====\n",
		    chosen[i]->index, chosen[i]->apic_id, runner_cpu_node(chosen[i]),
		    chosen[i]->index ? "" : ", the BSP", i + 1, n);
		if (chosen[i]->state == CPU_FAILED) {
			console_printf("mhv: cpu %u %s: the suites do not run on it\n",
				       chosen[i]->index, chosen[i]->why);
			continue;
		}
		if (n > 1)
			fmt_snprintf(run.results.cpu_tag, sizeof(run.results.cpu_tag), "@cpu%u",
				     chosen[i]->index);
		one_by_one.cpu = chosen[i];
		one_by_one.vm = run.vm;
		runner_run_plan_on(&one_by_one, PLAN_ALL);
		runner_finish_cpu_run(&one_by_one);
	}
	if (cfg->nr_guests) {
		console_printf("mhv: ==== guests from the boot volume, on cpu %u ====\n",
			       chosen[0]->index);
		runner_run_guests(&run, chosen[0]);
	}
	report_run_smis(&run_start, runner_guest_smis());
	report_screen_summary();
	console_printf("mhv: summary: %u passed, %u failed, %u skipped\n", run.results.passed,
		       run.results.failed, run.results.skipped);
	return run.results.failed ? MHV_TEST_FAILED : MHV_PASS;
}
