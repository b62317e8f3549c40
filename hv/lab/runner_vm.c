// SPDX-License-Identifier: MIT
/*
 * One VM's life, the same for the VMs of the suites and the guest
 * kernels: create, announce, run, judge, destroy; and the harness its
 * guest reports to meanwhile.
 */
#include "runner_priv.h"
#include "core/backend.h"
#include "core/vm_harness.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "vdev/guest_console.h"
#include "host/selfcheck.h"
#include "host/finish.h"
#include "arch/x86.h"

/* ---- what the guest reports and asks (core/vm_harness.h); ctx: its vm_life ---- */

/* The core hands on guest text as printable ASCII only (vm_harness.h):
 * checked here, independently of how it filters, for the judge. */
static void count_unfiltered(struct vm_life *l, const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e) {
			__atomic_fetch_add(&l->unfiltered, 1, __ATOMIC_RELAXED);
			return;
		}
}

static void harness_test_result(void *ctx, const char *name, enum test_status st,
				const char *reason)
{
	struct vm_life *l = ctx;

	count_unfiltered(l, name);
	count_unfiltered(l, reason);
	results_test(l->cr->results, l->suite, name, st, reason);
}

static bool harness_bench_result(void *ctx, const struct hc_bench_result *r,
				 const struct sample_stats *st)
{
	struct vm_life *l = ctx;

	count_unfiltered(l, r->name);
	count_unfiltered(l, r->skip_reason);
	return results_bench(l->cr->results, l->suite, l->config->name, r, st);
}

static bool harness_test_wanted(void *ctx, const char *name)
{
	const struct vm_life *l = ctx;

	return config_test_wanted(l->cr->run->cfg, name) && vm_config_wants(l->config, name);
}

static void harness_params(void *ctx, struct hc_params *p)
{
	const struct vm_life *l = ctx;
	const struct mhv_config *cfg = l->cr->run->cfg;

	p->iterations = cfg->iterations;
	p->batches = cfg->batches;
	p->warmup = cfg->warmup;
}

static const struct vm_harness lab_harness = {
	.test_result = harness_test_result,
	.bench_result = harness_bench_result,
	.test_wanted = harness_test_wanted,
	.params = harness_params,
};

struct vm_spec runner_vm_spec(struct vm_life *l, const char *name, u64 time_limit_ms, u32 nr_vcpus)
{
	const struct mhv_config *cfg = l->cr->run->cfg;

	return (struct vm_spec){
		.name = name,
		.config = l->config,
		.time_limit_ms = time_limit_ms,
		.nr_vcpus = nr_vcpus,
		.xstate_cache = cfg->xstate_cache,
		.pmu_account = cfg->pmu_account,
		.harness = &lab_harness,
		.harness_ctx = l,
	};
}

/* ---- the life ---- */

static void vcpu_work(void *arg)
{
	vm_vcpu_run(arg);
}

/*
 * Every vCPU of @v at once, vCPU i on on[i]; false when a CPU did not
 * run its vCPU to the end in time.  Meanwhile each CPU's output goes out
 * in whole lines: characters of two CPUs mixed in one line could let a
 * guest's text start a line of the log, after another CPU's newline.
 */
static bool run_vcpus(struct vm *v, struct cpu *const on[])
{
	void *args[VM_MAX_VCPUS];
	bool done[VM_MAX_VCPUS], lines_were_per_cpu;
	unsigned i;

	for (i = 0; i < v->nr_vcpus; i++)
		args[i] = &v->vcpus[i];
	lines_were_per_cpu = console_lines_per_cpu(true);
	runner_run_together(on, v->nr_vcpus, vcpu_work, args, v->time_limit_ms + CPU_GRACE_MS,
			    done);
	if (!lines_were_per_cpu)
		console_lines_per_cpu(false);
	for (i = 0; i < v->nr_vcpus; i++)
		if (!done[i])
			return false;
	return true;
}

/*
 * After a hostile VM: did it end as it had to, and is mhv as it was?  A
 * host that changed cannot be trusted to judge anything further.
 */
static void check_host_intact(struct cpu_run *cr, const struct suite_vm *sv, u32 failed_before)
{
	bool contained = cr->results->failed == failed_before;
	char why[96];

	cr->hostile_tried++;
	if (!selfcheck_verify(why, sizeof(why)))
		hv_fatal(MHV_FATAL, "after hostile case %s: %s", sv->name, why);
	if (contained)
		cr->hostile_contained++;
	console_printf("mhv: hostile: case %s %s; mhv's code, page tables and stacks intact\n",
		       sv->name, contained ? "contained" : "NOT contained");
}

/*
 * A VM with one vCPU lives on the CPU chosen for it, since its VMCS/VMCB
 * state and nested TLB entries belong to the CPU that created it; one
 * with more is made on the BSP and each vCPU makes its state on its own
 * CPU.
 */
void runner_vm_life(struct vm_life *l)
{
	struct vm *vm = l->cr->vm;
	/* a hostile case is contained when it failed nothing itself */
	u32 failed_before = l->cr->results->failed;
	bool ended = true;
	u64 t0, ticks = 0;

	if (l->ops->create(l)) {
		l->ops->say_start(l);
		t0 = rdtsc();
		if (l->on[0])
			ended = run_vcpus(vm, l->on);
		else
			vm_vcpu_run(&vm->vcpus[0]);
		ticks = rdtsc() - t0;
		guest_console_flush(vm);
		l->ops->judge(l, ended, ticks);
	}
	vm_destroy(vm);
	if (l->s && l->s->selfcheck)
		check_host_intact(l->cr, l->sv, failed_before);
}

void runner_print_exit_counts(const struct vm *v)
{
	char line[256];
	size_t used;
	unsigned k;
	u32 i;

	for (i = 0; i < v->nr_vcpus; i++) {
		used = 0;
		for (k = 0; k < EXIT_KIND_COUNT && used < sizeof(line); k++)
			if (v->vcpus[i].exits[k])
				used += fmt_snprintf(line + used, sizeof(line) - used, " %s=%llu",
						     exit_kind_name(k), v->vcpus[i].exits[k]);
		if (v->nr_vcpus > 1)
			console_printf("mhv: vm %s: vcpu %u on cpu %u: exits:%s\n", v->name, i,
				       v->vcpus[i].cpu ? v->vcpus[i].cpu->index : 0,
				       used ? line : " none");
		else
			console_printf("mhv: vm %s: exits:%s\n", v->name, used ? line : " none");
	}
}

/* ---- a VM of a suite ---- */

static bool suite_vm_create(struct vm_life *l)
{
	const struct suite *s = l->s;
	const struct suite_vm *sv = l->sv;
	struct vm_spec spec =
	    runner_vm_spec(l, sv->name, suite_vm_limit_ms(sv, l->cr->run->cfg), sv->nr_vcpus);
	enum vm_create_error err;

	spec.blob = s->blob;
	spec.blob_size = s->blob_end - s->blob;
	spec.variant = sv->variant;
	spec.timed = sv->timed;
	spec.timer_reach_ms = suite_vm_timer_reach_ms(sv);
	err = vm_create(l->cr->vm, &spec, l->id);
	if (err == VM_CREATED)
		return true;
	console_printf("mhv: vm %s: cannot create (%s)\n", sv->name, vm_create_error_str(err));
	results_test(l->cr->results, s->name, sv->name, TEST_FAIL, "VM creation failed");
	return false;
}

static void suite_vm_say_start(const struct vm_life *l)
{
	const struct vm *vm = l->cr->vm;
	char where[32 * VM_MAX_VCPUS];
	size_t used = 0;
	u32 i;

	if (!l->on[0]) {
		console_printf("mhv: vm %s: start (%s, configuration %s, %llu KiB RAM)\n", vm->name,
			       backend->name, l->config->name, vm->ram_size >> 10);
		return;
	}
	for (i = 0; i < vm->nr_vcpus && used < sizeof(where); i++)
		used += fmt_snprintf(where + used, sizeof(where) - used, "%svcpu %u on cpu %u",
				     i ? ", " : "", i, l->on[i]->index);
	console_printf("mhv: vm %s: start (%s, configuration %s, %s)\n", vm->name, backend->name,
		       l->config->name, where);
}

/* Judge how the VM ended against how it had to end. */
static void suite_vm_judge(struct vm_life *l, bool ended, u64 ticks)
{
	const struct suite_vm *sv = l->sv;
	const struct vm *v = l->cr->vm;
	const char *test = suite_vm_test(sv);
	char why[200];

	if (!ended) {
		results_test(l->cr->results, l->suite, test, TEST_FAIL,
			     "a CPU did not run its vCPU to the VM's end");
		return;
	}
	console_printf("mhv: vm %s stopped: %s: %s\n", v->name, vm_stop_name(v->stop),
		       v->stop_reason);
	runner_print_exit_counts(v);
	/* what no guest may do to mhv's output, whichever way it ended */
	if (l->unfiltered) {
		fmt_snprintf(why, sizeof(why),
			     "VM %s: %u guest strings reached the results with control characters",
			     v->name, l->unfiltered);
		results_test(l->cr->results, l->suite, test, TEST_FAIL, why);
		return;
	}
	if (v->console_taken != v->console_printed) {
		fmt_snprintf(why, sizeof(why),
			     "VM %s: its console took %llu bytes and printed %llu of them", v->name,
			     v->console_taken, v->console_printed);
		results_test(l->cr->results, l->suite, test, TEST_FAIL, why);
		return;
	}
	/* a limit holds when the VM stops at it: not never, and not earlier */
	if (v->stop == VM_STOP_TIME_LIMIT && ticks < vm_ms_to_tsc(v->time_limit_ms)) {
		fmt_snprintf(
		    why, sizeof(why),
		    "VM %s was stopped after %llu TSC ticks, before its time limit of %llu ms",
		    v->name, ticks, v->time_limit_ms);
		results_test(l->cr->results, l->suite, test, TEST_FAIL, why);
		return;
	}
	if ((v->stop == sv->expect && (v->stop != VM_STOP_EXIT || v->exit_code == 0)) ||
	    (sv->expect_alt != VM_RUNNING && v->stop == sv->expect_alt)) {
		if (sv->test)
			results_test(l->cr->results, l->suite, test, TEST_PASS, v->stop_reason);
		return;
	}
	fmt_snprintf(why, sizeof(why), "VM %s ended with %s (%s), expected %s", v->name,
		     vm_stop_name(v->stop), v->stop_reason, vm_stop_name(sv->expect));
	results_test(l->cr->results, l->suite, test, TEST_FAIL, why);
}

static const struct vm_life_ops suite_vm_ops = {
	.create = suite_vm_create,
	.say_start = suite_vm_say_start,
	.judge = suite_vm_judge,
};

void runner_suite_vm(struct vm_life *l, struct cpu_run *cr, const struct suite *s,
		     const struct suite_vm *sv, const struct vm_config *config)
{
	*l = (struct vm_life){
		.ops = &suite_vm_ops,
		.cr = cr,
		.suite = s->name,
		.config = suite_vm_config(sv, config),
		.id = cr->run->next_vm_id++,
		.s = s,
		.sv = sv,
	};
}

void runner_vm_lost(const struct vm_life *l, const struct cpu *c)
{
	char why[96];

	fmt_snprintf(why, sizeof(why), "cpu %u did not run VM %s to its end: %s", c->index,
		     l->sv->name, c->why);
	results_test(l->cr->results, l->suite, suite_vm_test(l->sv), TEST_FAIL, why);
}
