// SPDX-License-Identifier: MIT
/*
 * The run plan: for every suite the config selects, the VMs it needs, one
 * after another, on each chosen CPU in turn or on all of them at once;
 * then the results tables and the summary.
 */
#include "runner_priv.h"
#include "core/backend.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "vdev/guest_console.h"
#include "pmu/pmu_caps.h"
#include "report.h"
#include "host/selfcheck.h"
#include "host/finish.h"
#include "vm_run.h"

struct run_results results;
struct vm vm;

static struct cpu_run one_by_one = { .results = &results, .vm = &vm };
u32 next_vm_id;

/*
 * After a hostile VM: did it end as it had to, and is mhv as it was?  A
 * host that changed cannot be trusted to judge anything further.
 */
static void check_host_intact(struct cpu_run *cr, const struct suite *s, const struct suite_vm *sv)
{
	u32 failed = cr->results->failed;
	char why[96];

	cr->hostile_tried++;
	if (!selfcheck_verify(why, sizeof(why)))
		hv_fatal(MHV_FATAL, "after hostile case %s: %s", sv->name, why);
	if (failed == cr->hostile_failed_before)
		cr->hostile_contained++;
	console_printf("mhv: hostile: case %s %s; mhv's code, page tables and stacks intact\n",
		       sv->name,
		       failed == cr->hostile_failed_before ? "contained" : "NOT contained");
	cr->hostile_failed_before = failed;
}

static void make_spec(struct vm_spec *spec, const struct suite *s, const struct suite_vm *sv,
		      const struct vm_config *config)
{
	*spec = (struct vm_spec){
		.suite = s->name,
		.name = sv->name,
		.blob = s->blob,
		.blob_size = s->blob_end - s->blob,
		.variant = sv->variant,
		.config = config,
		.timed = sv->timed,
		.time_limit_ms = sv->time_limit_ms,
		.nr_vcpus = sv->nr_vcpus,
	};
}

void vcpu_work(void *arg)
{
	vm_vcpu_run(arg);
}

/* CPUs for @n vCPUs: @first, then idle APs, then the BSP (which then runs
 * one itself); how many were found. */
unsigned pick_cpus(struct cpu *first, unsigned n, struct cpu *on[VM_MAX_VCPUS])
{
	unsigned k = 0, i;

	on[k++] = first;
	for (i = 1; i < nr_cpus && k < n; i++)
		if (&cpus[i] != first && cpus[i].state == CPU_IDLE)
			on[k++] = &cpus[i];
	if (k < n && first != &cpus[0])
		on[k++] = &cpus[0];
	return k;
}

void run_together(struct cpu *const on[], unsigned n, cpu_work_fn *fn, void *const args[],
		  u64 timeout_ms, bool done[])
{
	bool started[MAX_CPUS];
	unsigned i;

	for (i = 0; i < n; i++)
		started[i] = on[i] != &cpus[0] && smp_start(on[i], fn, args[i]);
	for (i = 0; i < n; i++)
		if (on[i] == &cpus[0])
			fn(args[i]);
	for (i = 0; i < n; i++)
		done[i] = on[i] == &cpus[0] || (started[i] && smp_wait(on[i], timeout_ms));
}

void format_cpu_list(char *buf, size_t size, struct cpu *const on[], unsigned n)
{
	size_t used = 0;
	unsigned i;

	buf[0] = 0;
	for (i = 0; i < n && used < size; i++)
		used += fmt_snprintf(buf + used, size - used, "%s%u", i ? "," : "", on[i]->index);
}

/* Every vCPU of @v at once, vCPU i on on[i]; false when a CPU did not
 * run its vCPU to the end in time. */
bool run_vcpus(struct vm *v, struct cpu *const on[], u64 limit_ms)
{
	void *args[VM_MAX_VCPUS];
	bool done[VM_MAX_VCPUS];
	unsigned i;

	for (i = 0; i < v->nr_vcpus; i++)
		args[i] = &v->vcpus[i];
	run_together(on, v->nr_vcpus, vcpu_work, args, limit_ms + CPU_GRACE_MS, done);
	for (i = 0; i < v->nr_vcpus; i++)
		if (!done[i])
			return false;
	return true;
}

/*
 * A VM whose two vCPUs run at once on two physical CPUs (cross-CPU IPIs).
 * Guest RAM and the vCPUs' initial state are made here; each vCPU's
 * VMCB/VMCS on its own CPU.
 */
static void run_two_vcpu_vm(struct cpu_run *cr, const struct suite *s, const struct suite_vm *sv,
			    const struct vm_config *config, u32 id, u64 limit_ms)
{
	struct cpu *on[VM_MAX_VCPUS];
	struct vm *vm = cr->vm;
	struct vm_spec spec;
	int err;

	if (pick_cpus(cr->cpu, 2, on) < 2) {
		results_test(cr->results, s->name, sv->name, TEST_SKIP,
			     "needs a second CPU: start mhv on a machine with two or more");
		return;
	}
	make_spec(&spec, s, sv, config);
	err = vm_create(vm, &spec, id, cr->results);
	if (err) {
		results_test(cr->results, s->name, sv->name, TEST_FAIL, "VM creation failed");
		vm_destroy(vm);
		return;
	}
	console_printf("mhv: vm %s: start (%s, configuration %s, vcpu 0 on cpu %u, vcpu 1 on cpu "
		       "%u)\n",
		       vm->name, backend->name, config->name, on[0]->index, on[1]->index);
	if (run_vcpus(vm, on, limit_ms)) {
		guest_console_flush(vm);
		judge_stop(s, sv, vm);
	} else {
		guest_console_flush(vm);
		results_test(cr->results, s->name, sv->name, TEST_FAIL,
			     "a CPU did not run its vCPU to the VM's end");
	}
	vm_destroy(vm);
}

/* On the chosen CPU: the VM's whole life, since its VMCS/VMCB state and
 * nested TLB entries belong to the CPU that created it. */
void vm_job_run(void *arg)
{
	const struct vm_job *j = arg;
	const struct suite *s = j->s;
	const struct suite_vm *sv = j->sv;
	struct vm *vm = j->cr->vm;
	struct vm_spec spec;
	int err;

	make_spec(&spec, s, sv, j->config);
	err = vm_create(vm, &spec, j->id, j->cr->results);

	if (err) {
		console_printf("mhv: vm %s: cannot create (%s)\n", sv->name,
			       err == -2 ? "guest image too large" : "out of memory");
		results_test(j->cr->results, s->name, sv->name, TEST_FAIL, "VM creation failed");
	} else {
		console_printf("mhv: vm %s: start (%s, configuration %s, %llu KiB RAM)\n", vm->name,
			       backend->name, j->config->name, vm->ram_size >> 10);
		vm_vcpu_run(&vm->vcpus[0]);
		guest_console_flush(vm);
		judge_stop(s, sv, vm);
	}
	vm_destroy(vm);
	if (s->selfcheck)
		check_host_intact(j->cr, s, sv);
}

static void run_suite_vm(struct cpu_run *cr, const struct suite *s, const struct suite_vm *sv,
			 const struct vm_config *config, u32 id)
{
	const char *test = sv->test ? sv->test : sv->name;
	const char *why_not = vm_left_out(sv, cr->results->cfg);
	struct vm_job job = { cr, s, sv, config, id };
	u64 limit_ms = vm_limit_ms(sv, cr->results->cfg);
	char why[96];

	if (why_not) {
		if (why_not[0])
			results_test(cr->results, s->name, test, TEST_SKIP, why_not);
		return;
	}
	if (sv->nr_vcpus > 1) {
		run_two_vcpu_vm(cr, s, sv, config, id, limit_ms);
		return;
	}
	/* The VM's own time limit ends it first; this catches a lost CPU. */
	if (!smp_run_on(cr->cpu, vm_job_run, &job, limit_ms + CPU_GRACE_MS)) {
		fmt_snprintf(why, sizeof(why), "cpu %u did not run VM %s to its end: %s",
			     cr->cpu->index, sv->name, cr->cpu->why);
		results_test(cr->results, s->name, test, TEST_FAIL, why);
	}
}

bool plan_takes(enum plan_vms which, const struct suite_vm *sv)
{
	return which == PLAN_ALL || (which == PLAN_TWO_VCPUS) == (sv->nr_vcpus > 1);
}

bool suite_has(const struct suite *s, enum plan_vms which)
{
	unsigned j;

	for (j = 0; j < s->nr_vms; j++)
		if (plan_takes(which, &s->vms[j]))
			return true;
	return false;
}

bool plan_has(const struct mhv_config *cfg, enum plan_vms which)
{
	unsigned i;

	for (i = 0; i < nr_suites; i++)
		if ((cfg->suites & suites[i].bit) && suite_has(&suites[i], which))
			return true;
	return false;
}

void walk_plan(const struct mhv_config *cfg, enum plan_vms which, const struct plan_walk *w)
{
	unsigned i, c;

	for (i = 0; i < nr_suites; i++) {
		if (!(cfg->suites & suites[i].bit) || !suite_has(&suites[i], which))
			continue;
		console_printf("mhv: suite %s\n", suites[i].name);
		for (c = 0; c < nr_vm_configs; c++) {
			const char *why;

			if (!suite_runs_in(&suites[i], &vm_configs[c], cfg))
				continue;
			why = pmu_mode_unsupported(vm_configs[c].pmu);
			if (why)
				w->refuse(w->arg, &suites[i], &vm_configs[c], why);
			else
				w->run(w->arg, &suites[i], &vm_configs[c]);
		}
	}
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
		if (plan_takes(p->which, &s->vms[j]))
			run_suite_vm(p->cr, s, &s->vms[j], c, next_vm_id++);
}

/* The VMs of the plan on one CPU, one after another. */
void run_plan_on(struct cpu_run *cr, const struct mhv_config *cfg, enum plan_vms which)
{
	struct plan_on p = { cr, which };
	const struct plan_walk w = { refuse_on, run_on, &p };

	walk_plan(cfg, which, &w);
}

/* A CPU's hostile summary and tables; its rows are then done with. */
void finish_cpu_run(struct cpu_run *cr)
{
	if (cr->hostile_tried)
		console_printf("mhv: hostile: %u cases tried, %u contained\n", cr->hostile_tried,
			       cr->hostile_contained);
	cr->hostile_tried = cr->hostile_contained = 0;
	report_bench_tables(cr->results);
	cr->results->nr_bench = 0;
	cr->results->nr_refused = 0;
}

/*
 * Where the suites run: the CPUs "cpus =" names, or all that started, or
 * by default one AP on another core than the BSP (which spin-waits while
 * the AP measures), else the BSP.
 */
static unsigned choose_cpus(const struct mhv_config *cfg, struct cpu *chosen[MAX_CPUS])
{
	unsigned i, n = 0;

	if (!cfg->cpus_all && !cfg->cpus) {
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
	for (i = 0; i < MAX_CPUS; i++) {
		if (!cfg->cpus_all && !(cfg->cpus & BIT(i)))
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

enum mhv_status runner_run_plan(const struct mhv_config *cfg, const struct boot_info *bi)
{
	struct cpu *chosen[MAX_CPUS];
	unsigned n = choose_cpus(cfg, chosen), i;
	bool at_once = cfg->cpus_at_once && n > 1;

	results.cfg = cfg;
	if (cfg->cpus_at_once && n == 1)
		console_printf("mhv: cpus_at_once: only cpu %u is chosen, none runs beside it\n",
			       chosen[0]->index);
	if (at_once && !run_cpus_at_once(chosen, n, cfg)) {
		console_printf("mhv: cpus_at_once: no memory for an arena per CPU: the CPUs run "
			       "one after another\n");
		at_once = false;
	}
	for (i = 0; i < n && !at_once; i++) {
		console_printf("mhv: ==== suites on cpu %u (APIC ID %u%s), %u of %u chosen ====\n",
			       chosen[i]->index, chosen[i]->apic_id,
			       chosen[i]->index ? "" : ", the BSP", i + 1, n);
		if (n > 1)
			fmt_snprintf(results.cpu_tag, sizeof(results.cpu_tag), "@cpu%u",
				     chosen[i]->index);
		one_by_one.cpu = chosen[i];
		run_plan_on(&one_by_one, cfg, PLAN_ALL);
		finish_cpu_run(&one_by_one);
	}
	if (cfg->nr_guests) {
		console_printf("mhv: ==== guests from the boot volume, on cpu %u ====\n",
			       chosen[0]->index);
		run_guests(cfg, bi, chosen[0]);
	}
	console_printf("mhv: summary: %u passed, %u failed, %u skipped\n", results.passed,
		       results.failed, results.skipped);
	return results.failed ? MHV_TEST_FAILED : MHV_PASS;
}
