// SPDX-License-Identifier: MIT
/*
 * The run plan: for every suite the config selects, the VMs it needs, one
 * after another, on each chosen CPU in turn or on all of them at once;
 * then the results tables and the summary.
 */
#include "runner.h"
#include "backend.h"
#include "console.h"
#include "fmt.h"
#include "guest_console.h"
#include "host_timer.h"
#include "page_alloc.h"
#include "platform.h"
#include "pmu/pmu_caps.h"
#include "pmu/pmu_vcpu.h"
#include "report.h"
#include "boot_info.h"
#include "guest_kernel.h"
#include "tsc.h"
#include "selfcheck.h"
#include "status.h"
#include "smp.h"
#include "vm_config.h"
#include "vm_run.h"

extern const u8 guest_blob_smoke_start[], guest_blob_smoke_end[];
extern const u8 guest_blob_vmexit_start[], guest_blob_vmexit_end[];
extern const u8 guest_blob_xstate_start[], guest_blob_xstate_end[];
extern const u8 guest_blob_pmu_start[], guest_blob_pmu_end[];
extern const u8 guest_blob_hostile_start[], guest_blob_hostile_end[];

/* A VM of a suite: which program of the blob, and how it must end. */
struct suite_vm {
	const char *name;
	u32 variant;
	enum vm_stop expect;
	const char *test; /* host-side test judging an expected stop, or NULL */
	/* Why this machine cannot run the VM, or NULL when it can. */
	const char *(*unsupported)(void);
	bool timed;	   /* the entry code stamps the TSC around VMRUN / VM entry */
	u32 time_limit_ms; /* 0: the config's time_limit */
	/* Another acceptable end (VM_RUNNING: none): where the hardware may
	 * refuse a state outright, the VM stopped with the reason is contained. */
	enum vm_stop expect_alt;
	u32 nr_vcpus; /* more than 1: each vCPU on its own physical CPU */
};

/*
 * Bochs 2.7 under SVM resets the whole machine on a guest triple fault instead of
 * taking the SHUTDOWN intercept (seen with reset_on_triple_fault=1; with 0
 * it panics), so the VM would take mhv down with it there.
 */
static const char *triple_fault_unsupported(void)
{
	if (__builtin_strcmp(platform_env(), "bochs") || __builtin_strcmp(backend->name, "svm"))
		return NULL;
	return "Bochs 2.7 resets the machine instead of the SVM shutdown intercept";
}

/*
 * The spin is ended by a host timer interrupt that makes the guest exit.
 * Bochs 2.7's SVM takes that INTR intercept only while the guest has IF
 * set (seen: the same spin with STI is stopped), unlike V_INTR_MASKING on
 * hardware (APM Vol 2 §15.21.1) and in QEMU.
 */
static const char *spin_unsupported(void)
{
	const char *why;

	if (!host_timer_available(&why))
		return why;
	if (!__builtin_strcmp(platform_env(), "bochs") && !__builtin_strcmp(backend->name, "svm"))
		return "Bochs 2.7 SVM takes the INTR intercept only while the guest's IF is set";
	return NULL;
}

/* Which columns of the VM configuration matrix a suite runs in. */
enum suite_columns {
	COLUMN_DEFAULT, /* the default configuration only */
	COLUMNS_ALL,	/* every configuration (the benchmark matrix) */
	COLUMNS_PMU,	/* every configuration that changes the PMU */
};

struct suite {
	const char *name;
	u32 bit;
	const u8 *blob, *blob_end;
	const struct suite_vm *vms;
	unsigned nr_vms;
	enum suite_columns columns;
	bool selfcheck; /* mhv checks its own integrity after each VM */
};

static const struct suite_vm smoke_vms[] = {
	{ "smoke", 0, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 1 },
	{ "smoke-triple", 1, VM_STOP_TRIPLE_FAULT, "triple_fault_contained",
	  triple_fault_unsupported, false, 0, VM_RUNNING, 1 },
	{ "smoke-badgpa", 2, VM_STOP_BAD_ACCESS, "unbacked_gpa_stops_vm", NULL, false, 0,
	  VM_RUNNING, 1 },
	/* a spin without exits, interrupts off: only the host timer ends it */
	{ "smoke-spin", 3, VM_STOP_TIME_LIMIT, "exitless_spin_stopped", spin_unsupported, false,
	  200, VM_RUNNING, 1 },
};

static const struct suite_vm vmexit_vms[] = {
	{ "vmexit", 0, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 1 },
	/* vmrun_to_guest / guest_to_exit: only this VM pays for the stamps */
	{ "vmexit-split", 1, VM_STOP_EXIT, NULL, NULL, true, 0, VM_RUNNING, 1 },
	/* ipi, ipi_halt: a second vCPU on a second physical CPU takes the IPIs */
	{ "vmexit-ipi", 2, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 2 },
};

static const struct suite_vm xstate_vms[] = {
	{ "xstate", 0, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 1 },
};

static const struct suite_vm pmu_vms[] = {
	{ "pmu", 0, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 1 },
};

/* One VM per case (guest-tests/hostile.c); EXIT cases report exit code 0
 * when every attempt got the hardware's answer. */
static const struct suite_vm hostile_vms[] = {
	{ "virt_insn", 1, VM_STOP_EXIT, "virt_insn_ud", NULL, false, 0, VM_RUNNING, 1 },
	{ "msr_takeover", 2, VM_STOP_EXIT, "msr_takeover_gp", NULL, false, 0, VM_RUNNING, 1 },
	{ "port_io", 3, VM_STOP_EXIT, "port_io_no_reset", NULL, false, 0, VM_RUNNING, 1 },
	{ "hypercall_args", 4, VM_STOP_EXIT, "hypercall_bad_args", NULL, false, 0, VM_RUNNING, 1 },
	{ "ipi_storm", 5, VM_STOP_EXIT, "self_ipi_storm", NULL, false, 0, VM_RUNNING, 1 },
	{ "init_sipi_self", 6, VM_STOP_EXIT, "init_sipi_self", NULL, false, 0, VM_RUNNING, 1 },
	/* QEMU 7.2 SVM lets an invalid CR4 into the guest state, then refuses it
	 * at the next VMRUN (VMEXIT_INVALID) instead of the #GP: stopped, also fine */
	{ "cr_invalid", 7, VM_STOP_EXIT, "cr_efer_invalid", NULL, false, 0, VM_STOP_ENTRY_FAILED,
	  1 },
	{ "read8", 8, VM_STOP_BAD_ACCESS, "read8_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "read16", 9, VM_STOP_BAD_ACCESS, "read16_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "read32", 10, VM_STOP_BAD_ACCESS, "read32_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "read64", 11, VM_STOP_BAD_ACCESS, "read64_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "write", 12, VM_STOP_BAD_ACCESS, "write_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "fetch", 13, VM_STOP_BAD_ACCESS, "fetch_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "pte_outside", 14, VM_STOP_BAD_ACCESS, "page_table_outside_ram", NULL, false, 0,
	  VM_RUNNING, 1 },
	{ "idt_outside", 15, VM_STOP_BAD_ACCESS, "idt_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "gdt_outside", 16, VM_STOP_BAD_ACCESS, "gdt_outside_ram", NULL, false, 0, VM_RUNNING, 1 },
	{ "triple", 17, VM_STOP_TRIPLE_FAULT, "triple_fault", triple_fault_unsupported, false, 0,
	  VM_RUNNING, 1 },
	{ "spin", 18, VM_STOP_TIME_LIMIT, "exitless_spin", spin_unsupported, false, 200, VM_RUNNING,
	  1 },
};

static const struct suite suites[] = {
	{ "smoke", SUITE_SMOKE, guest_blob_smoke_start, guest_blob_smoke_end, smoke_vms,
	  ARRAY_SIZE(smoke_vms), COLUMN_DEFAULT, false },
	{ "vmexit", SUITE_VMEXIT, guest_blob_vmexit_start, guest_blob_vmexit_end, vmexit_vms,
	  ARRAY_SIZE(vmexit_vms), COLUMNS_ALL, false },
	{ "xstate", SUITE_XSTATE, guest_blob_xstate_start, guest_blob_xstate_end, xstate_vms,
	  ARRAY_SIZE(xstate_vms), COLUMN_DEFAULT, false },
	{ "pmu", SUITE_PMU, guest_blob_pmu_start, guest_blob_pmu_end, pmu_vms, ARRAY_SIZE(pmu_vms),
	  COLUMNS_PMU, false },
	{ "hostile", SUITE_HOSTILE, guest_blob_hostile_start, guest_blob_hostile_end, hostile_vms,
	  ARRAY_SIZE(hostile_vms), COLUMN_DEFAULT, true },
};

static const char *const xstate_tests[] = { "cpuid_0xd_0", "cpuid_0xd_1", "cpuid_0xd_2", "xsetbv",
					    NULL };

/* One column per PMU mode (DESIGN §5), and accounting on/off with a guest
 * that counts instructions: refused, with the reason, where the host
 * cannot run them (pmu_caps). */
const struct vm_config vm_configs[] = {
	{ "default", "every intercept of DESIGN §4, PMU off, CPUID.0xD from the cache", false, NULL,
	  "off", false, false },
	{ "xstate-nocache", "CPUID.0xD re-executed on the host at every exit", true, xstate_tests,
	  "off", false, false },
	{ "pmu-sw-noelide", "software PMU switch, always WRMSR", false, NULL, "sw-noelide", false,
	  false },
	{ "pmu-sw", "software PMU switch with RDPMC-compare elision", false, NULL, "sw", false,
	  false },
	{ "pmu-sw-lazy", "guest PMU stays loaded across exits mhv handles", false, NULL, "sw-lazy",
	  false, false },
	{ "pmu-hw", "AMD PMC virtualization (VMCB swaps the counters)", false, NULL, "hw", false,
	  false },
	{ "sw+insn", "pmu-sw, guest counts instructions, emulated ones accounted", false, NULL,
	  "sw", true, false },
	{ "sw+insn-noacct", "pmu-sw, guest counts instructions, no accounting", false, NULL, "sw",
	  true, true },
};

bool vm_config_wants(const struct vm_config *config, const char *test)
{
	const char *const *t;

	if (!config->tests)
		return true;
	for (t = config->tests; *t; t++)
		if (!__builtin_strcmp(*t, test))
			return true;
	return false;
}
const unsigned nr_vm_configs = ARRAY_SIZE(vm_configs);

/* How long past a VM's own time limit the BSP waits for the CPU running it. */
#define CPU_GRACE_MS 30000

static struct run_results results;
static struct vm vm;

void results_test(struct run_results *r, const char *suite, const char *name, enum test_status st,
		  const char *reason)
{
	static const char *const words[] = { "PASS", "FAIL", "SKIP" };

	if (st == TEST_PASS)
		r->passed++;
	else if (st == TEST_FAIL)
		r->failed++;
	else
		r->skipped++;
	console_printf("mhv: %s %s/%s%s%s\n", words[st], suite, name, reason[0] ? ": " : "",
		       reason);
}

/* A column r's tables name as refused, each once. */
static void record_refused(struct run_results *r, const char *column, const char *why)
{
	struct refused_column *rc;

	u32 i;

	for (i = 0; i < r->nr_refused; i++)
		if (!__builtin_strcmp(r->refused[i].column, column))
			return; /* the tables name each column once */
	if (r->nr_refused == MAX_REFUSED_COLUMNS)
		return;
	rc = &r->refused[r->nr_refused++];
	rc->column = column;
	rc->why = why;
}

void results_refuse_column(struct run_results *r, const char *suite, const char *column,
			   const char *why)
{
	console_printf("mhv: %s: configuration %s cannot run here: %s\n", suite, column, why);
	record_refused(r, column, why);
}

struct bench_row *results_bench_row(struct run_results *r)
{
	if (r->nr_bench == MAX_BENCH_ROWS)
		return NULL;
	return &r->bench[r->nr_bench++];
}

static void print_exit_counts(const struct vm *v)
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

/* Judge how the VM ended against how it had to end. */
static void judge_stop(const struct suite *s, const struct suite_vm *sv, const struct vm *v)
{
	const char *test = sv->test ? sv->test : sv->name;
	char why[200];

	console_printf("mhv: vm %s stopped: %s: %s\n", v->name, vm_stop_name(v->stop),
		       v->stop_reason);
	print_exit_counts(v);
	if ((v->stop == sv->expect && (v->stop != VM_STOP_EXIT || v->exit_code == 0)) ||
	    (sv->expect_alt != VM_RUNNING && v->stop == sv->expect_alt)) {
		if (sv->test)
			results_test(v->results, s->name, test, TEST_PASS, v->stop_reason);
		return;
	}
	fmt_snprintf(why, sizeof(why), "VM %s ended with %s (%s), expected %s", v->name,
		     vm_stop_name(v->stop), v->stop_reason, vm_stop_name(sv->expect));
	results_test(v->results, s->name, test, TEST_FAIL, why);
}

/*
 * Where one CPU's VMs live and its results go: the run's own for CPUs
 * that run the plan one after another, one set per CPU for CPUs that run
 * it at once.
 */
struct cpu_run {
	struct cpu *cpu;
	struct run_results *results;
	struct vm *vm;
	u32 hostile_tried, hostile_contained, hostile_failed_before;
};

static struct cpu_run one_by_one = { .results = &results, .vm = &vm };
static u32 next_vm_id;

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

/* One VM of a suite, as the CPU that runs it sees it. */
struct vm_job {
	struct cpu_run *cr;
	const struct suite *s;
	const struct suite_vm *sv;
	const struct vm_config *config;
	u32 id;
};

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

static void vcpu_work(void *arg)
{
	vm_vcpu_run(arg);
}

/* CPUs for @n vCPUs: @first, then idle APs, then the BSP (which then runs
 * one itself); how many were found. */
static unsigned pick_cpus(struct cpu *first, unsigned n, struct cpu *on[VM_MAX_VCPUS])
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

/*
 * Every vCPU of @v at once, vCPU i on on[i]: the APs start theirs, the
 * BSP runs its own.  False when a CPU did not return in time.
 */
static bool run_vcpus(struct vm *v, struct cpu *const on[], u64 limit_ms)
{
	bool started[VM_MAX_VCPUS] = { false }, ok = true;
	unsigned i;

	for (i = 0; i < v->nr_vcpus; i++) {
		if (on[i] == &cpus[0])
			continue;
		started[i] = smp_start(on[i], vcpu_work, &v->vcpus[i]);
		if (!started[i])
			vm_stop(v, VM_STOP_ENTRY_FAILED, "cpu %u could not take vcpu %u",
				on[i]->index, i);
	}
	for (i = 0; i < v->nr_vcpus; i++)
		if (on[i] == &cpus[0])
			vm_vcpu_run(&v->vcpus[i]);
	for (i = 0; i < v->nr_vcpus; i++)
		if (started[i])
			ok = smp_wait(on[i], limit_ms + CPU_GRACE_MS) && ok;
	return ok;
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
static void vm_job_run(void *arg)
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

/* NULL: the VM runs; "": the tests filter leaves it out; else why it is skipped. */
static const char *vm_left_out(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	/* The suite's main VM filters its own tests; host-judged ones here. */
	if (sv->test && !config_test_wanted(cfg, sv->test))
		return "";
	return sv->unsupported ? sv->unsupported() : NULL;
}

static u64 vm_limit_ms(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	return sv->time_limit_ms ? sv->time_limit_ms : cfg->time_limit * 1000ull;
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

static bool suite_runs_in(const struct suite *s, const struct vm_config *c,
			  const struct mhv_config *cfg)
{
	enum pmu_mode mode = PMU_OFF;

	if (s->columns == COLUMN_DEFAULT)
		return c == &vm_configs[0];
	if (s->columns == COLUMNS_PMU && c->xstate_uncached)
		return false;
	pmu_mode_parse(c->pmu, &mode);
	return cfg->pmu_modes & BIT(mode); /* config "pmu =" may leave this mode out */
}

/* Which VMs of the plan a pass over it runs. */
enum plan_vms {
	PLAN_ALL,
	PLAN_ONE_VCPU,	/* what CPUs run at once */
	PLAN_TWO_VCPUS, /* after that, each chosen CPU with a second one */
};

static bool plan_takes(enum plan_vms which, const struct suite_vm *sv)
{
	return which == PLAN_ALL || (which == PLAN_TWO_VCPUS) == (sv->nr_vcpus > 1);
}

static bool suite_has(const struct suite *s, enum plan_vms which)
{
	unsigned j;

	for (j = 0; j < s->nr_vms; j++)
		if (plan_takes(which, &s->vms[j]))
			return true;
	return false;
}

static bool plan_has(const struct mhv_config *cfg, enum plan_vms which)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(suites); i++)
		if ((cfg->suites & suites[i].bit) && suite_has(&suites[i], which))
			return true;
	return false;
}

/*
 * The VMs of the plan on one CPU, one after another.  A column the host
 * cannot run is refused in the pass that runs everything; the pass for
 * the VMs with two vCPUs after a run at once has refused it already.
 */
static void run_plan_on(struct cpu_run *cr, const struct mhv_config *cfg, enum plan_vms which)
{
	unsigned i, j, c;

	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		if (!(cfg->suites & suites[i].bit) || !suite_has(&suites[i], which))
			continue;
		console_printf("mhv: suite %s\n", suites[i].name);
		for (c = 0; c < nr_vm_configs; c++) {
			const char *why;

			if (!suite_runs_in(&suites[i], &vm_configs[c], cfg))
				continue;
			why = pmu_mode_unsupported(vm_configs[c].pmu);
			if (why) {
				if (which == PLAN_ALL)
					results_refuse_column(cr->results, suites[i].name,
							      vm_configs[c].name, why);
				continue;
			}
			for (j = 0; j < suites[i].nr_vms && cr->cpu->state != CPU_FAILED; j++)
				if (plan_takes(which, &suites[i].vms[j]))
					run_suite_vm(cr, &suites[i], &suites[i].vms[j],
						     &vm_configs[c], next_vm_id++);
		}
	}
}

/* A CPU's hostile summary and tables; its rows are then done with. */
static void finish_cpu_run(struct cpu_run *cr)
{
	if (cr->hostile_tried)
		console_printf("mhv: hostile: %u cases tried, %u contained\n", cr->hostile_tried,
			       cr->hostile_contained);
	cr->hostile_tried = cr->hostile_contained = 0;
	report_bench_tables(cr->results);
	cr->results->nr_bench = 0;
	cr->results->nr_refused = 0;
}

/* ---- the plan on several CPUs at once ("cpus_at_once = on") ---- */

/* A CPU's own arena: a suite VM (GUEST_RAM_SIZE, its nested tables and
 * vCPU state, about 4.1 MiB) with room to spare, at most 16 MiB. */
#define ARENA_MIN_PAGES (GUEST_RAM_SIZE / PAGE_SIZE + 256)
#define ARENA_MAX_PAGES ((16ull << 20) / PAGE_SIZE)

/* What each CPU of a run at once keeps until the BSP has printed it. */
struct at_once_state {
	struct run_results results;
	struct vm vm;
};

/* On each CPU: its lines tagged "[cpuN] ", which run_suite_vm says for one. */
static void at_once_job(void *arg)
{
	const struct vm_job *j = arg;
	const char *why_not = vm_left_out(j->sv, j->cr->results->cfg);

	console_tag_cpu_lines(true);
	if (!why_not)
		vm_job_run(arg);
	else
		results_test(j->cr->results, j->s->name, j->sv->test ? j->sv->test : j->sv->name,
			     TEST_SKIP, why_not);
	console_tag_cpu_lines(false);
}

/*
 * One VM on every CPU at once, each its own copy: all start, the BSP
 * runs its own if it is one of them, then waits for each, bounded by the
 * VM's time limit, so that a CPU that is lost is left out, not waited for.
 */
static void run_vm_at_once(struct cpu_run *runs, unsigned n, const struct suite *s,
			   const struct suite_vm *sv, const struct vm_config *config)
{
	u64 limit_ms = vm_limit_ms(sv, runs[0].results->cfg);
	const char *test = sv->test ? sv->test : sv->name;
	struct vm_job jobs[MAX_CPUS];
	bool started[MAX_CPUS], lost[MAX_CPUS];
	char why[96];
	unsigned i;

	for (i = 0; i < n; i++) {
		struct cpu *c = runs[i].cpu;

		jobs[i] = (struct vm_job){ &runs[i], s, sv, config, next_vm_id++ };
		/* a CPU lost at an earlier VM stays out, as in run_plan_on */
		lost[i] = c->state == CPU_FAILED;
		started[i] = !lost[i] && c != &cpus[0] && smp_start(c, at_once_job, &jobs[i]);
	}
	for (i = 0; i < n; i++)
		if (runs[i].cpu == &cpus[0])
			at_once_job(&jobs[i]);
	for (i = 0; i < n; i++) {
		struct cpu *c = runs[i].cpu;

		if (lost[i] || c == &cpus[0] ||
		    (started[i] && smp_wait(c, limit_ms + CPU_GRACE_MS)))
			continue;
		fmt_snprintf(why, sizeof(why), "cpu %u did not run VM %s to its end: %s", c->index,
			     sv->name, c->why);
		results_test(runs[i].results, s->name, test, TEST_FAIL, why);
	}
}

static void run_plan_at_once(struct cpu_run *runs, unsigned n, const struct mhv_config *cfg)
{
	unsigned i, j, c, k;

	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		if (!(cfg->suites & suites[i].bit) || !suite_has(&suites[i], PLAN_ONE_VCPU))
			continue;
		console_printf("mhv: suite %s\n", suites[i].name);
		for (c = 0; c < nr_vm_configs; c++) {
			const char *why;

			if (!suite_runs_in(&suites[i], &vm_configs[c], cfg))
				continue;
			why = pmu_mode_unsupported(vm_configs[c].pmu);
			if (why) {
				/* said once, in every CPU's tables */
				results_refuse_column(runs[0].results, suites[i].name,
						      vm_configs[c].name, why);
				for (k = 1; k < n; k++)
					record_refused(runs[k].results, vm_configs[c].name, why);
				continue;
			}
			for (j = 0; j < suites[i].nr_vms; j++) {
				const struct suite_vm *sv = &suites[i].vms[j];
				const char *why_not = vm_left_out(sv, cfg);

				/* skipped ones are said on each CPU; filtered ones nowhere */
				if (plan_takes(PLAN_ONE_VCPU, sv) && !(why_not && !why_not[0]))
					run_vm_at_once(runs, n, &suites[i], sv, &vm_configs[c]);
			}
		}
	}
}

/*
 * The plan with every chosen CPU at once: the VMs with one vCPU run on
 * all of them together, one VM at a time, so each CPU measures its exits
 * while the others take theirs (shared caches, uncore, memory).  Then,
 * CPU by CPU, the VMs with two vCPUs (they need a second CPU of their
 * own, so they run alone) and that CPU's tables.  false when the memory
 * for it is not there: the caller then runs the CPUs one after another.
 */
static bool run_cpus_at_once(struct cpu *chosen[], unsigned n, const struct mhv_config *cfg)
{
	static struct cpu_run runs[MAX_CPUS];
	u64 state_pages = (n * sizeof(struct at_once_state) + PAGE_SIZE - 1) / PAGE_SIZE;
	u64 arena_pages = (n * sizeof(struct page_alloc) + PAGE_SIZE - 1) / PAGE_SIZE, pages;
	struct page_alloc_mark before, arenas;
	struct at_once_state *st;
	struct page_alloc *arena;
	char list[3 * MAX_CPUS + 1];
	size_t used = 0;
	unsigned i;

	page_alloc_get_mark(&hv_pages, &before);
	st = alloc_pages_zeroed(state_pages);
	arena = alloc_pages_zeroed(arena_pages);
	pages = page_alloc_largest(&hv_pages) / n;
	if (pages > ARENA_MAX_PAGES)
		pages = ARENA_MAX_PAGES;
	page_alloc_get_mark(&hv_pages, &arenas);
	if (!st || !arena || pages < ARENA_MIN_PAGES ||
	    !page_alloc_carve(&hv_pages, arena, n, pages)) {
		page_alloc_release(&hv_pages, &before);
		return false;
	}
	for (i = 0; i < n; i++) {
		runs[i] = (struct cpu_run){ .cpu = chosen[i],
					    .results = &st[i].results,
					    .vm = &st[i].vm };
		st[i].results.cfg = cfg;
		fmt_snprintf(st[i].results.cpu_tag, sizeof(st[i].results.cpu_tag), "@cpu%u",
			     chosen[i]->index);
		chosen[i]->arena = &arena[i];
		used += fmt_snprintf(list + used, sizeof(list) - used, "%s%u", i ? "," : "",
				     chosen[i]->index);
	}
	console_printf("mhv: ==== suites on cpus %s at once (each CPU its own VMs and a %llu MiB "
		       "arena; their lines marked [cpuN]) ====\n",
		       list, pages >> 8);
	console_lines_per_cpu(true);
	run_plan_at_once(runs, n, cfg);
	console_lines_per_cpu(false);
	for (i = 0; i < n; i++)
		chosen[i]->arena = NULL;
	page_alloc_release(&hv_pages, &arenas);

	for (i = 0; i < n; i++) {
		console_printf(
		    "mhv: ==== cpu %u (APIC ID %u%s), %u of %u run at once: %sits tables "
		    "====\n",
		    chosen[i]->index, chosen[i]->apic_id, chosen[i]->index ? "" : ", the BSP",
		    i + 1, n, plan_has(cfg, PLAN_TWO_VCPUS) ? "its VMs with two vCPUs, then " : "");
		run_plan_on(&runs[i], cfg, PLAN_TWO_VCPUS);
		finish_cpu_run(&runs[i]);
		results.passed += st[i].results.passed;
		results.failed += st[i].results.failed;
		results.skipped += st[i].results.skipped;
	}
	page_alloc_release(&hv_pages, &before);
	return true;
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

/*
 * The "guest =" kernels, one after another, on the first chosen CPU: each
 * ends as one line with its exit code, its exits by kind and its time.  A
 * guest that cannot be read or loaded is refused with the reason.
 */
static void run_guests(const struct mhv_config *cfg, const struct boot_info *bi, struct cpu *cpu)
{
	static u32 id = 1000;
	struct cpu *on[VM_MAX_VCPUS];
	char why[160];
	unsigned i;

	for (i = 0; i < cfg->nr_guests; i++) {
		const struct mhv_guest *g = &cfg->guests[i];
		const char *refused = pmu_mode_unsupported(guest_kernel_config(g)->pmu);
		char took[32];
		u64 t0, ticks;

		if (refused) {
			fmt_snprintf(why, sizeof(why), "its PMU mode cannot run here: %s", refused);
			results_test(&results, "guests", g->path, TEST_SKIP, why);
			continue;
		}
		if (pick_cpus(cpu, g->nr_cpus, on) < g->nr_cpus) {
			fmt_snprintf(
			    why, sizeof(why),
			    "cpus = %u needs %u CPUs free to run guests, this machine has %u",
			    g->nr_cpus, g->nr_cpus, pick_cpus(cpu, VM_MAX_VCPUS, on));
			console_printf("mhv: guest %s refused: %s\n", g->path, why);
			results_test(&results, "guests", g->path, TEST_FAIL, why);
			continue;
		}
		if (guest_kernel_create(&vm, g, &bi->guest_files[i], &bi->module_files[i], id++,
					&results, why, sizeof(why))) {
			console_printf("mhv: guest %s refused: %s\n", g->path, why);
			results_test(&results, "guests", g->path, TEST_FAIL, why);
			vm_destroy(&vm);
			continue;
		}
		console_printf("mhv: guest %s: start (%s, %u MiB, %u vCPU%s on cpu %u%s, cmdline "
			       "\"%s\"%s%s)\n",
			       vm.name, backend->name, g->mem_mib, vm.nr_vcpus,
			       vm.nr_vcpus > 1 ? "s" : "", on[0]->index,
			       vm.nr_vcpus > 1 ? " and up" : "", g->cmdline,
			       g->module[0] ? ", module " : "", g->module);
		t0 = rdtsc();
		if (vm.nr_vcpus == 1
			? !smp_run_on(cpu, vcpu_work, &vm.vcpus[0], vm.time_limit_ms + CPU_GRACE_MS)
			: !run_vcpus(&vm, on, vm.time_limit_ms))
			vm_stop(&vm, VM_STOP_TIME_LIMIT, "a CPU running it did not return");
		ticks = rdtsc() - t0;
		if (host_tsc.hz)
			fmt_snprintf(took, sizeof(took), "%llu ms", ticks / (host_tsc.hz / 1000));
		else
			fmt_snprintf(took, sizeof(took), "%llu TSC ticks", ticks);
		guest_console_flush(&vm);
		print_exit_counts(&vm);
		if (vm.stop == VM_STOP_EXIT) {
			console_printf("mhv: guest %s: exit code %lld (%s), %s\n", vm.name,
				       (long long)vm.exit_code, vm.stop_reason, took);
			fmt_snprintf(why, sizeof(why), "exit code %lld", (long long)vm.exit_code);
			results_test(&results, "guests", vm.name,
				     vm.exit_code ? TEST_FAIL : TEST_PASS, why);
		} else {
			console_printf("mhv: guest %s: stopped: %s: %s, %s\n", vm.name,
				       vm_stop_name(vm.stop), vm.stop_reason, took);
			results_test(&results, "guests", vm.name, TEST_FAIL, vm.stop_reason);
		}
		vm_destroy(&vm);
	}
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
