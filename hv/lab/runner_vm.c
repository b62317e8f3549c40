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
#include "host/numa.h"
#include "platform/lapic.h"
#include "arch/apic.h"
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

static bool harness_test_result(void *ctx, const char *name, enum test_status st,
				const char *reason)
{
	struct vm_life *l = ctx;

	count_unfiltered(l, name);
	count_unfiltered(l, reason);
	results_test(l->cr->results, l->suite, name, st, reason);
	return true;
}

/* One of the rows l's program declared, while it has one left; its vCPUs
 * may report at once. */
static bool take_bench_row(struct vm_life *l)
{
	u32 left = __atomic_load_n(&l->bench_rows_left, __ATOMIC_RELAXED);

	do {
		if (!left)
			return false;
	} while (!__atomic_compare_exchange_n(&l->bench_rows_left, &left, left - 1, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/* The benchmark ran from its test_wanted to here, on this CPU if the
 * samples say so: its clock counters' deltas, else none (0, 0). */
static bool harness_bench_result(void *ctx, const struct hc_bench_result *r,
				 const struct sample_stats *st)
{
	struct vm_life *l = ctx;
	struct aperf_sample now;
	struct aperf_sample *start = &l->bench_start;
	struct bench_clock clock = { 0 };
	struct insn_class_sample classes_now;
	const struct mhv_config *cfg = l->cr->run->cfg;

	/* first: the APERF read below is no part of the benchmark */
	insn_class_sample(&classes_now);
	/* the guest ran its warm-up and its batches between the two samples,
	 * and one round trip of hypercalls, which the bracket takes off */
	insn_class_rate(&clock.classes, &l->classes_start, &classes_now, &l->classes_bracket,
			(u64)cfg->warmup + (u64)r->nr_samples * r->iterations);
	l->classes_start.valid = l->classes_bracket.valid = false;
	aperf_sample(&now);
	if (now.cpu == start->cpu) {
		if (now.valid && start->valid) {
			clock.d_aperf = now.aperf - start->aperf;
			clock.d_mperf = now.mperf - start->mperf;
		}
		clock.smis_known = now.has_smis && start->has_smis;
		clock.smis = clock.smis_known ? now.smis - start->smis : 0;
	}
	start->valid = start->has_smis = false;
	count_unfiltered(l, r->name);
	count_unfiltered(l, r->skip_reason);
	/* a program that reports more than it declared would crowd out the
	 * plan's other rows */
	if (!take_bench_row(l)) {
		console_printf("mhv: vm %s: a benchmark row past the %u its program declares "
			       "(struct guest_info): refused\n",
			       l->sv->name, runner_vm_bench_rows(l->s, l->sv));
		return false;
	}
	return results_bench(l->cr->results, l->suite, l->config->name, r, st, &clock);
}

/* A benchmark's guest asks this just before it runs: its clock starts. */
static bool harness_test_wanted(void *ctx, const char *name)
{
	struct vm_life *l = ctx;
	bool wanted = config_test_wanted(l->cr->run->cfg, name) && vm_config_wants(l->config, name);
	struct insn_class_sample end, now;

	if (wanted) {
		/* first, as harness_bench_result samples first */
		insn_class_sample(&end);
		aperf_sample(&l->bench_start);
		/* last: what the guest runs from here on is the benchmark's */
		insn_class_sample(&now);
		/* asked again at once (bench_wanted): from the last sample of
		 * the first call to the first of this one lies one round trip
		 * of the hypercalls that bracket the benchmark */
		if (l->classes_start.valid && !__builtin_strcmp(l->wanted, name))
			insn_class_delta(&l->classes_bracket, &l->classes_start, &end);
		else
			l->classes_bracket.valid = false;
		fmt_snprintf(l->wanted, sizeof(l->wanted), "%s", name);
		l->classes_start = now;
	}
	return wanted;
}

static void harness_params(void *ctx, struct hc_params *p)
{
	const struct vm_life *l = ctx;
	const struct mhv_config *cfg = l->cr->run->cfg;

	p->iterations = cfg->iterations;
	p->batches = cfg->batches;
	p->warmup = cfg->warmup;
	/* a seed of 0 is none: one from the TSC, never 0, printed by the guest */
	p->fuzz_seed = cfg->fuzz_seed ? cfg->fuzz_seed : (u32)(rdtsc() * 0x9e3779b1u) | 1;
	p->fuzz_exits = cfg->fuzz_exits;
}

static const struct vm_harness lab_harness = {
	.test_result = harness_test_result,
	.bench_result = harness_bench_result,
	.test_wanted = harness_test_wanted,
	.params = harness_params,
};

/* ---- the harness of a VM whose CPU was retired: nobody listens ---- */

static bool unheard_test_result(void *ctx, const char *name, enum test_status st,
				const char *reason)
{
	return true;
}

static bool unheard_bench_result(void *ctx, const struct hc_bench_result *r,
				 const struct sample_stats *st)
{
	return false;
}

static bool unheard_test_wanted(void *ctx, const char *name)
{
	return false;
}

static void unheard_params(void *ctx, struct hc_params *p)
{
	*p = (struct hc_params){ 0 };
}

static const struct vm_harness unheard_harness = {
	.test_result = unheard_test_result,
	.bench_result = unheard_bench_result,
	.test_wanted = unheard_test_wanted,
	.params = unheard_params,
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
		.mitigations_off =
		    l->config->mitigations_off ||
		    (cfg->mitigations == MITIGATIONS_OFF && !l->config->mitigations_auto),
		.harness = &lab_harness,
		.harness_ctx = l,
		.home = l->on[0], /* NULL: made on its own CPU */
	};
}

/* ---- the life ---- */

/*
 * A vCPU on its CPU.  The lost-CPU case's vCPU 1 first makes its CPU deaf:
 * a task priority of 15 holds back every interrupt (SDM Vol 3 §11.8.3.1),
 * the kick and the time limit's alike, so the CPU stays in the guest.
 */
static void vcpu_work(void *arg)
{
	struct vcpu *vcpu = arg;
	const struct vm_life *l = vcpu->vm->harness_ctx; /* runner_vm_spec */
	bool deaf = l->sv && suite_vm_lost_cpu(l->sv) == LOST_CPU_LOSE && vcpu->index == 1;

	if (deaf)
		lapic_write(APIC_TPR, 0xff);
	vm_vcpu_run(vcpu);
	if (deaf)
		lapic_write(APIC_TPR, 0);
}

/*
 * Every vCPU of l's VM at once, vCPU i on l->on[i]; false when a CPU did
 * not run its vCPU to the end, *lost the first one retired, if any.
 * Meanwhile each CPU's output goes out in whole lines: characters of two
 * CPUs mixed in one line could let a guest's text start a line of the
 * log, after another CPU's newline.
 */
static bool run_vcpus(struct vm_life *l, struct cpu **lost)
{
	struct vm *v = l->cr->vm;
	/* the lost-CPU case's CPU is not waited for past the VM's time limit */
	u64 grace = l->sv && suite_vm_lost_cpu(l->sv) == LOST_CPU_LOSE ? 0 : CPU_GRACE_MS;
	void *args[VM_MAX_VCPUS];
	struct vm *vms[VM_MAX_VCPUS];
	enum work_end end[VM_MAX_VCPUS];
	bool ended = true, lines_were_per_cpu;
	unsigned i;

	for (i = 0; i < v->nr_vcpus; i++) {
		args[i] = &v->vcpus[i];
		vms[i] = v;
	}
	lines_were_per_cpu = console_lines_per_cpu(true);
	runner_run_together(l->on, v->nr_vcpus, vcpu_work, args, vms, v->time_limit_ms + grace,
			    end);
	if (!lines_were_per_cpu)
		console_lines_per_cpu(false);
	for (i = 0; i < v->nr_vcpus; i++) {
		if (end[i] == WORK_LOST && !*lost)
			*lost = l->on[i];
		ended = ended && end[i] == WORK_DONE;
	}
	return ended;
}

/* What @vm is made of: the pages its arena gave out since its mark, and
 * its struct vm; how many spans. */
static u32 vm_footprint(const struct vm *vm, struct page_span spans[LOST_VM_SPANS])
{
	struct page_alloc_mark now;
	u32 n;

	page_alloc_get_mark(vm->arena, &now);
	n = page_alloc_taken(&vm->mark, &now, spans, LOST_VM_SPANS - 1);
	spans[n++] = (struct page_span){ (u64)(uintptr_t)vm, (u64)(uintptr_t)(vm + 1) };
	return n;
}

void runner_keep_lost_vm(struct cpu_run *cr, struct vm *vm, const struct cpu *c)
{
	struct runner *run = cr->run;
	struct lost_vm *lost;
	struct vm *next;

	/* the unheard harness has no use for harness_ctx, which may be gone */
	vm->harness = &unheard_harness;
	/* each lost VM retired an AP of its own: there is room for all */
	if (run->nr_lost < run->max_lost) {
		lost = &run->lost[run->nr_lost++];
		fmt_snprintf(lost->name, sizeof(lost->name), "%s", vm->name);
		lost->cpu = c->index;
		lost->nr_spans = vm_footprint(vm, lost->spans);
	}
	/* a CPU run at once that lost its own CPU makes no VM again */
	if (vm != run->vm && cr->cpu == c)
		return;
	next = alloc_pages_zeroed((sizeof(*next) + PAGE_SIZE - 1) / PAGE_SIZE);
	if (!next)
		hv_fatal(MHV_FATAL, "no memory for a VM after VM %s kept its own", vm->name);
	if (cr->vm == vm)
		cr->vm = next;
	if (run->vm == vm)
		run->vm = next;
}

/*
 * A VM made after one whose CPU never came back must have none of the
 * lost VM's memory: that CPU may still run on its nested tables and
 * VMCB/VMCS.  A host that gave them out cannot vouch for any VM after.
 */
static void check_apart_from_lost(const struct vm_life *l)
{
	const struct runner *run = l->cr->run;
	const struct vm *vm = l->cr->vm;
	struct page_span mine[LOST_VM_SPANS], where;
	u32 n, i;

	if (!run->nr_lost)
		return;
	n = vm_footprint(vm, mine);
	for (i = 0; i < run->nr_lost; i++)
		if (page_spans_overlap(mine, n, run->lost[i].spans, run->lost[i].nr_spans, &where))
			hv_fatal(MHV_FATAL,
				 "VM %s got 0x%llx..0x%llx of VM %s, which cpu %u may still run",
				 vm->name, where.lo, where.hi, run->lost[i].name, run->lost[i].cpu);
}

/*
 * After a VM of a suite that checks mhv (hostile, fuzz): did it end as it
 * had to, and is mhv as it was?  A host that changed cannot be trusted to
 * judge anything further.
 */
static void check_host_intact(struct cpu_run *cr, const struct suite *s, const struct suite_vm *sv,
			      u32 failed_before)
{
	bool contained = cr->results->failed == failed_before;
	char why[96];

	cr->hostile_tried++;
	if (!selfcheck_verify(why, sizeof(why)))
		hv_fatal(MHV_FATAL, "after %s case %s: %s", s->name, sv->name, why);
	if (contained)
		cr->hostile_contained++;
	console_printf("mhv: %s: case %s %s; mhv's code, page tables and stacks intact\n", s->name,
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
	struct cpu *lost = NULL;
	bool ended = true;
	u64 t0, ticks = 0;

	if (l->ops->create(l)) {
		l->ops->say_start(l);
		check_apart_from_lost(l);
		t0 = rdtsc();
		if (l->on[0]) {
			ended = run_vcpus(l, &lost);
		} else {
			vm_vcpu_run(&vm->vcpus[0]);
			/* on an AP the BSP may have given up on meanwhile: stop here */
			smp_work_left_guest();
		}
		ticks = rdtsc() - t0;
		guest_console_flush(vm);
		/* its vCPUs made their VMCB/VMCS on their CPUs meanwhile */
		check_apart_from_lost(l);
		l->ops->judge(l, ended, ticks);
	}
	if (lost) {
		runner_keep_lost_vm(l->cr, vm, lost);
	} else {
		runner_fuzz_check(l, failed_before);
		vm_destroy(vm);
	}
	if (l->s && l->s->selfcheck)
		check_host_intact(l->cr, l->s, l->sv, failed_before);
}

static void print_msr_refusals(const struct vm *v, u32 vcpu)
{
	const struct vcpu *c = &v->vcpus[vcpu];
	char line[256];
	size_t used = 0;
	unsigned k;

	for (k = 0; k < ARRAY_SIZE(c->msr_refused) && c->msr_refused[k].count; k++)
		used += fmt_snprintf(line + used, sizeof(line) - used, "%s %s 0x%x x%u",
				     k ? "," : "", c->msr_refused[k].write ? "wrmsr" : "rdmsr",
				     c->msr_refused[k].index, c->msr_refused[k].count);
	if (c->msr_refused_other && used < sizeof(line))
		used += fmt_snprintf(line + used, sizeof(line) - used, ", %u more",
				     c->msr_refused_other);
	if (used)
		console_printf("mhv: vm %s: vcpu %u: MSRs refused (#GP):%s\n", v->name, vcpu, line);
}

static u64 guest_smis; /* smi exits of every VM so far (runner_guest_smis) */

u64 runner_guest_smis(void)
{
	return __atomic_load_n(&guest_smis, __ATOMIC_RELAXED);
}

void runner_print_exit_counts(const struct vm *v)
{
	char line[256];
	size_t used;
	unsigned k;
	u32 i;

	for (i = 0; i < v->nr_vcpus; i++) {
		__atomic_add_fetch(&guest_smis, v->vcpus[i].exits[EXIT_SMI], __ATOMIC_RELAXED);
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
		print_msr_refusals(v, i);
	}
}

/* ---- a VM of a suite ---- */

static bool suite_vm_create(struct vm_life *l)
{
	const struct suite *s = l->s;
	const struct suite_vm *sv = l->sv;
	struct vm_spec spec = runner_vm_spec(l, sv->name, suite_vm_limit_ms(sv, l->cr->run->cfg),
					     sv->nr_vcpus ? sv->nr_vcpus : 1);
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
	char where[32 * VM_MAX_VCPUS], node[48] = "";
	size_t used = 0;
	u32 i;

	/* where its RAM is, from its address: not where it was asked for */
	if (numa_nr_nodes() > 1)
		fmt_snprintf(node, sizeof(node), " on node %d, made on cpu %u (node %u)",
			     numa_addr_node(vm->ram_hpa), this_cpu()->index, this_cpu()->node);
	if (!l->on[0]) {
		console_printf("mhv: vm %s: start (%s, configuration %s, %llu KiB RAM%s)\n",
			       vm->name, backend->name, l->config->name, vm->ram_size >> 10, node);
		return;
	}
	for (i = 0; i < vm->nr_vcpus && used < sizeof(where); i++)
		used += fmt_snprintf(where + used, sizeof(where) - used, "%svcpu %u on cpu %u",
				     i ? ", " : "", i, l->on[i]->index);
	console_printf("mhv: vm %s: start (%s, configuration %s, %s%s%s)\n", vm->name,
		       backend->name, l->config->name, where, node[0] ? ", RAM" : "", node);
}

/* Judge how the VM ended against how it had to end. */
static void suite_vm_judge(struct vm_life *l, bool ended, u64 ticks)
{
	const struct suite_vm *sv = l->sv;
	const struct vm *v = l->cr->vm;
	const char *test = suite_vm_test(sv);
	char why[200];

	if (suite_vm_lost_cpu(sv) == LOST_CPU_LOSE) {
		/* vCPU 1's CPU was made deaf: it must not come back, and be left out */
		if (!ended && l->on[1]->state == CPU_FAILED)
			fmt_snprintf(why, sizeof(why), "cpu %u never came back and is left out",
				     l->on[1]->index);
		else
			fmt_snprintf(why, sizeof(why), "cpu %u %s", l->on[1]->index,
				     ended ? "came back: it was not made deaf"
					   : "never came back but is not left out");
		results_test(l->cr->results, l->suite, test,
			     !ended && l->on[1]->state == CPU_FAILED ? TEST_PASS : TEST_FAIL, why);
		return;
	}
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
		.bench_rows_left = runner_vm_bench_rows(s, sv),
	};
}

void runner_vm_lost(const struct vm_life *l, const struct cpu *c)
{
	char why[96];

	fmt_snprintf(why, sizeof(why), "cpu %u did not run VM %s to its end: %s", c->index,
		     l->sv->name, c->why);
	results_test(l->cr->results, l->suite, suite_vm_test(l->sv), TEST_FAIL, why);
}
