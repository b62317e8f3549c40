// SPDX-License-Identifier: MIT
/*
 * The multiboot kernels the config names ("guest ="), after the suites.
 */
#include "runner_priv.h"
#include "core/backend.h"
#include "core/vm_harness.h"
#include "lib/boot_info.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "loader/guest_kernel.h"
#include "loader/multiboot.h"
#include "pmu/pmu_caps.h"
#include "platform/host_timer.h"
#include "platform/tsc.h"

/* The boot information's page holds the command line and the module's name. */
_Static_assert(CONFIG_LINE_MAX + 1 + CONFIG_PATH_LEN <= MB_INFO_SIZE - MB_STRINGS_OFF,
	       "a guest's command line fits the multiboot strings");

/*
 * The harness of an external guest: its exit code alone judges it, so
 * what it reports through mhv's result hypercalls is refused (HC_ERROR)
 * and counted, never printed: a kernel that knew the ABI could otherwise
 * print "mhv: PASS guests/<any name>" and MHV-JSON rows indistinguishable
 * from mhv's own.  It runs no benchmark of mhv's and gets no parameters.
 */
static bool external_test_result(void *ctx, const char *name, enum test_status st,
				 const char *reason)
{
	struct vm_life *l = ctx;

	__atomic_fetch_add(&l->refused, 1, __ATOMIC_RELAXED);
	return false;
}

static bool external_bench_result(void *ctx, const struct hc_bench_result *r,
				  const struct sample_stats *st)
{
	struct vm_life *l = ctx;

	__atomic_fetch_add(&l->refused, 1, __ATOMIC_RELAXED);
	return false;
}

static bool external_test_wanted(void *ctx, const char *name)
{
	return false;
}

static void external_params(void *ctx, struct hc_params *p)
{
	*p = (struct hc_params){ 0 };
}

static const struct vm_harness external_harness = {
	.test_result = external_test_result,
	.bench_result = external_bench_result,
	.test_wanted = external_test_wanted,
	.params = external_params,
};

static bool guest_create(struct vm_life *l)
{
	const struct mhv_guest *g = l->g;
	const struct boot_info *bi = l->cr->run->bi;
	u64 limit_s = g->time_limit ? g->time_limit : l->cr->run->cfg->time_limit;
	struct vm_spec spec = runner_vm_spec(l, g->path, limit_s * 1000, g->vm.nr_vcpus);
	const struct guest_kernel gk = {
		.path = g->path,
		.kernel = &bi->guest_files[l->g_index],
		.module_path = g->module,
		.module = &bi->module_files[l->g_index],
		.initrd = g->initrd,
		.cmdline = g->cmdline,
		.mem_mib = g->vm.mem_mib,
	};
	char why[160];

	spec.harness = &external_harness;
	if (!guest_kernel_create(l->cr->vm, &spec, &gk, l->id, why, sizeof(why)))
		return true;
	console_printf("mhv: guest %s refused: %s\n", g->path, why);
	results_test(l->cr->results, l->suite, g->path, TEST_FAIL, why);
	return false;
}

static void guest_say_start(const struct vm_life *l)
{
	const struct mhv_guest *g = l->g;
	const struct vm *vm = l->cr->vm;
	char where[32];

	runner_format_cpu_list(where, sizeof(where), l->on, vm->nr_vcpus);
	console_printf("mhv: guest %s: start (%s, %u MiB, %u vCPU%s on cpu%s %s, cmdline "
		       "\"%s\"%s%s)\n",
		       vm->name, backend->name, g->vm.mem_mib, vm->nr_vcpus,
		       vm->nr_vcpus > 1 ? "s" : "", vm->nr_vcpus > 1 ? "s" : "", where, g->cmdline,
		       g->module[0] ? (g->initrd ? ", initrd " : ", module ") : "", g->module);
}

/*
 * kvm-unit-tests' "every check skipped": automake's 77, halved because
 * QEMU's isa-debug-exit reports (code << 1) | 1 (KUT lib/report.c).
 */
#define GUEST_EXIT_ALL_SKIPPED 38

/* A guest passes when it exits with code 0, is skipped with code 38. */
static void guest_judge(struct vm_life *l, bool ended, u64 ticks)
{
	struct vm *vm = l->cr->vm;
	char why[160], took[32];

	if (!ended)
		vm_stop(vm, VM_STOP_TIME_LIMIT, "a CPU running it did not return");
	if (host_tsc.hz)
		fmt_snprintf(took, sizeof(took), "%llu ms", ticks / (host_tsc.hz / 1000));
	else
		fmt_snprintf(took, sizeof(took), "%llu TSC ticks", ticks);
	runner_print_exit_counts(vm);
	if (l->refused)
		console_printf("mhv: guest %s: %u result hypercalls refused (an external guest is "
			       "judged by its exit code alone)\n",
			       vm->name, l->refused);
	if (vm->stop == VM_STOP_EXIT) {
		console_printf("mhv: guest %s: exit code %lld (%s), %s\n", vm->name,
			       (long long)vm->exit_code, vm->stop_reason, took);
		if (vm->exit_code == GUEST_EXIT_ALL_SKIPPED) {
			fmt_snprintf(why, sizeof(why),
				     "exit code %u: every check skipped (kvm-unit-tests)",
				     GUEST_EXIT_ALL_SKIPPED);
			results_test(l->cr->results, l->suite, vm->name, TEST_SKIP, why);
			return;
		}
		fmt_snprintf(why, sizeof(why), "exit code %lld", (long long)vm->exit_code);
		results_test(l->cr->results, l->suite, vm->name,
			     vm->exit_code ? TEST_FAIL : TEST_PASS, why);
	} else {
		console_printf("mhv: guest %s: stopped: %s: %s, %s\n", vm->name,
			       vm_stop_name(vm->stop), vm->stop_reason, took);
		results_test(l->cr->results, l->suite, vm->name, TEST_FAIL, vm->stop_reason);
	}
}

static const struct vm_life_ops guest_ops = {
	.create = guest_create,
	.say_start = guest_say_start,
	.judge = guest_judge,
};

/* Whether this machine has the PMU mode guest @g asks for. */
static struct why_not guest_pmu_why_not(const struct mhv_guest *g, char *why, size_t size)
{
	const char *pmu = pmu_mode_unsupported(g->vm.pmu);

	if (!pmu)
		return verdict_run();
	fmt_snprintf(why, size, "its PMU mode cannot run here: %s", pmu);
	return verdict_cannot(why);
}

/* Whether a time limit can stop @g: an external guest may spin without
 * exits, which only the host timer ends (hv_main said so once). */
static struct why_not guest_timer_why_not(char *why, size_t size)
{
	const char *timer;

	if (host_timer_available(&timer))
		return verdict_run();
	fmt_snprintf(why, size, "its time limit cannot be held: %s", timer);
	return verdict_cannot(why);
}

/* Whether this machine has a CPU for each vCPU of @g, @cpu first: in @on. */
static struct why_not guest_cpus_why_not(const struct mhv_guest *g, struct cpu *cpu,
					 struct cpu *on[VM_MAX_VCPUS], char *why, size_t size)
{
	if (runner_pick_cpus(cpu, g->vm.nr_vcpus, on) >= g->vm.nr_vcpus)
		return verdict_run();
	fmt_snprintf(why, size, "cpus = %u needs %u CPUs free to run guests, this machine has %u",
		     g->vm.nr_vcpus, g->vm.nr_vcpus, runner_pick_cpus(cpu, VM_MAX_VCPUS, on));
	return verdict_cannot(why);
}

/*
 * The "guest =" kernels, one after another, on the first chosen CPU: each
 * ends as one line with its exit code, its exits by kind and its time.  A
 * guest that cannot be read or loaded is refused with the reason.  One
 * whose PMU mode this machine lacks is skipped, as a column would be;
 * one that asks for more CPUs than the machine has fails: it cannot run
 * as the config says anywhere here.
 */
void runner_run_guests(struct runner *run, struct cpu *cpu)
{
	struct cpu_run cr = { .run = run, .cpu = cpu, .results = &run->results, .vm = run->vm };
	char why[160];
	unsigned i;

	for (i = 0; i < run->cfg->nr_guests; i++) {
		const struct mhv_guest *g = &run->cfg->guests[i];
		struct vm_life life = {
			.ops = &guest_ops,
			.cr = &cr,
			.suite = "guests",
			.config = &g->vm,
			.g = g,
			.g_index = i,
		};
		struct why_not w = guest_pmu_why_not(g, why, sizeof(why));

		if (w.verdict != VERDICT_RUN) {
			results_test(&run->results, life.suite, g->path, TEST_SKIP, w.reason);
			continue;
		}
		w = guest_timer_why_not(why, sizeof(why));
		if (w.verdict != VERDICT_RUN) {
			console_printf("mhv: guest %s refused: %s\n", g->path, w.reason);
			results_test(&run->results, life.suite, g->path, TEST_SKIP, w.reason);
			continue;
		}
		w = guest_cpus_why_not(g, cpu, life.on, why, sizeof(why));
		if (w.verdict != VERDICT_RUN) {
			console_printf("mhv: guest %s refused: %s\n", g->path, w.reason);
			results_test(&run->results, life.suite, g->path, TEST_FAIL, w.reason);
			continue;
		}
		life.id = run->next_guest_id++;
		runner_vm_life(&life);
	}
}
