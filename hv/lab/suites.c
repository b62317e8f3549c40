// SPDX-License-Identifier: MIT
/*
 * The suites: each one's guest blob and the VMs it runs, which of them
 * this machine cannot run and why, and the columns of the VM
 * configuration matrix they run in.
 */
#include "suites.h"
#include "core/backend.h"
#include "host/percpu.h"
#include "platform/host_timer.h"
#include "platform/machine.h"
#include "platform/tsc.h"
#include "lib/fmt.h"
#include "pmu/pmu_caps.h"
#include "pmu/pmu_vcpu.h"
#include "host/percpu.h"

extern const u8 guest_blob_smoke_start[], guest_blob_smoke_end[];
extern const u8 guest_blob_vmexit_start[], guest_blob_vmexit_end[];
extern const u8 guest_blob_xstate_start[], guest_blob_xstate_end[];
extern const u8 guest_blob_pmu_start[], guest_blob_pmu_end[];
extern const u8 guest_blob_hostile_start[], guest_blob_hostile_end[];
extern const u8 guest_blob_fuzz_start[], guest_blob_fuzz_end[];

/*
 * Bochs 2.7 under SVM resets the whole machine on a guest triple fault instead of
 * taking the SHUTDOWN intercept (seen with reset_on_triple_fault=1; with 0
 * it panics), so the VM would take mhv down with it there.
 */
static struct why_not triple_fault_runs_here(void)
{
	if (__builtin_strcmp(platform_env(), "bochs") || __builtin_strcmp(backend->name, "svm"))
		return verdict_run();
	return verdict_cannot("Bochs 2.7 resets the machine instead of the SVM shutdown intercept");
}

/*
 * The spin is ended by a host timer interrupt that makes the guest exit.
 * Bochs 2.7's SVM takes that INTR intercept only while the guest has IF
 * set (seen: the same spin with STI is stopped), unlike V_INTR_MASKING on
 * hardware (APM Vol 2 §15.21.1) and in QEMU.
 */
static struct why_not spin_runs_here(void)
{
	const char *why;

	if (!host_timer_available(&why))
		return verdict_cannot(why);
	if (!__builtin_strcmp(platform_env(), "bochs") && !__builtin_strcmp(backend->name, "svm"))
		return verdict_cannot(
		    "Bochs 2.7 SVM takes the INTR intercept only while the guest's IF is set");
	return verdict_run();
}

/*
 * The hostile VMs that need a guest PMU run with the software switch,
 * where guest values pass mhv's filter on their way into the PMU.
 */
static const struct vm_config hostile_pmu_config = {
	.name = "pmu-sw",
	.description = "software PMU switch with RDPMC-compare elision",
	.pmu = PMU_SW,
};

/*
 * Where the host has a PMU mode, the guest gets it.  Bochs 2.7 on AMD has
 * none (no PerfMonV2), but runs the software switch harmlessly: it
 * answers the PMU MSRs it lacks with 0 and drops writes to them (its
 * default ignore_bad_msrs), and RDPMC of counters 0-17 with 0, so the
 * guest's writes still pass through mhv's filter and world switch while
 * nothing counts.  Not so its Intel models, whose RDPMC of a fixed counter
 * (ECX bit 30) is #GP, nor QEMU TCG, whose RDPMC is #UD: the switch would
 * fault in mhv.
 */
static struct why_not guest_pmu_runs_here(void)
{
	const char *why = pmu_mode_unsupported(hostile_pmu_config.pmu);

	if (!why)
		return verdict_run();
	if (!__builtin_strcmp(platform_env(), "bochs") && pmu_caps.amd && pmu_caps.perfctr_core)
		return verdict_run();
	return verdict_cannot(why);
}

/* Both vCPUs of the VM at once, each on its own physical CPU. */
static struct why_not two_cpus_runs_here(void)
{
	if (nr_cpus < 2)
		return verdict_cannot(
		    "needs a second CPU: start mhv on a machine with two or more");
	return verdict_run();
}

/* A VM that spins past its time limit: any host with a timer can stop it. */
static struct why_not timer_rearm_runs_here(void)
{
	const char *why;

	return host_timer_available(&why) ? verdict_run() : verdict_cannot(why);
}

/* timer_rearm's host timer reach: its 300 ms limit is re-armed 15 times. */
#define TIMER_REARM_REACH_MS 20

/*
 * A VM that outlives 2^32 APIC ticks, the one-shot timer's reach (its
 * count register is 32 bits, SDM Vol 3 §11.5.4): cheap where the APIC
 * timer counts fast (QEMU: 1 GHz, 4.3 s).  Elsewhere timer_rearm's
 * shortened reach takes the same path.
 */
#define PAST_2E32_LIMIT_MS 5000

static struct why_not past_2e32_runs_here(void)
{
	static char why_buf[128];
	const char *why;
	u64 reach_ms;

	if (!host_timer_available(&why))
		return verdict_cannot(why);
	if (!host_timer_reach_tsc())
		return verdict_cannot("TSC-deadline mode has no 2^32-tick reach (timer_rearm "
				      "covers the re-arm)");
	if (!host_tsc.hz)
		return verdict_cannot("no TSC frequency: 2^32 APIC ticks are billions of emulated "
				      "instructions here (timer_rearm covers the re-arm)");
	reach_ms = host_timer_reach_tsc() / (host_tsc.hz / 1000);
	if (reach_ms >= PAST_2E32_LIMIT_MS) {
		fmt_snprintf(why_buf, sizeof(why_buf),
			     "2^32 APIC ticks take %llu ms here, past the case's limit of %u ms",
			     reach_ms, PAST_2E32_LIMIT_MS);
		return verdict_cannot(why_buf);
	}
	return verdict_run();
}

/* The lost-CPU case loses an AP: one must have started. */
static struct why_not lost_cpu_runs_here(void)
{
	unsigned i;

	for (i = 1; i < nr_cpus; i++)
		if (cpus[i].state == CPU_IDLE)
			return verdict_run();
	return verdict_cannot("needs an AP to lose: start mhv on a machine with two or more CPUs");
}

/* The VM after a lost one: the runner skips it when no VM lost a CPU. */
static struct why_not after_lost_cpu_runs_here(void)
{
	return verdict_run();
}

enum lost_cpu_part suite_vm_lost_cpu(const struct suite_vm *sv)
{
	if (sv->runs_here == lost_cpu_runs_here)
		return LOST_CPU_LOSE;
	return sv->runs_here == after_lost_cpu_runs_here ? LOST_CPU_NEXT : LOST_CPU_NONE;
}

static const struct suite_vm smoke_vms[] = {
	{ .name = "smoke", .variant = 0, .expect = VM_STOP_EXIT },
	{ .name = "smoke-triple",
	  .variant = 1,
	  .expect = VM_STOP_TRIPLE_FAULT,
	  .test = "triple_fault_contained",
	  .runs_here = triple_fault_runs_here },
	{ .name = "smoke-badgpa",
	  .variant = 2,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "unbacked_gpa_stops_vm" },
	/* a spin without exits, interrupts off: only the host timer ends it */
	{ .name = "smoke-spin",
	  .variant = 3,
	  .expect = VM_STOP_TIME_LIMIT,
	  .test = "exitless_spin_stopped",
	  .runs_here = spin_runs_here,
	  .time_limit_ms = 200 },
};

static const struct suite_vm vmexit_vms[] = {
	{ .name = "vmexit", .variant = 0, .expect = VM_STOP_EXIT },
	/* vmrun_to_guest / guest_to_exit: only this VM pays for the stamps */
	{ .name = "vmexit-split", .variant = 1, .expect = VM_STOP_EXIT, .timed = true },
	/* ipi, ipi_halt: a second vCPU on a second physical CPU takes the IPIs */
	{ .name = "vmexit-ipi", .variant = 2, .expect = VM_STOP_EXIT, .nr_vcpus = 2 },
};

static const struct suite_vm xstate_vms[] = {
	{ .name = "xstate", .variant = 0, .expect = VM_STOP_EXIT },
};

static const struct suite_vm pmu_vms[] = {
	{ .name = "pmu", .variant = 0, .expect = VM_STOP_EXIT },
};

/* One VM per case (guest-tests/hostile.c); EXIT cases report exit code 0
 * when every attempt got the hardware's answer. */
static const struct suite_vm hostile_vms[] = {
	{ .name = "virt_insn", .variant = 1, .expect = VM_STOP_EXIT, .test = "virt_insn_ud" },
	{ .name = "msr_takeover", .variant = 2, .expect = VM_STOP_EXIT, .test = "msr_takeover_gp" },
	/* the guest's reset request stops its VM, not the machine */
	{ .name = "port_io",
	  .variant = 3,
	  .expect = VM_STOP_RESET,
	  .test = "port_io_resets_vm_only" },
	{ .name = "hypercall_args",
	  .variant = 4,
	  .expect = VM_STOP_EXIT,
	  .test = "hypercall_bad_args" },
	{ .name = "ipi_storm", .variant = 5, .expect = VM_STOP_EXIT, .test = "self_ipi_storm" },
	{ .name = "init_sipi_self",
	  .variant = 6,
	  .expect = VM_STOP_EXIT,
	  .test = "init_sipi_self" },
	/* QEMU 7.2 SVM lets an invalid CR4 into the guest state, then refuses it
	 * at the next VMRUN (VMEXIT_INVALID) instead of the #GP: stopped, also fine */
	{ .name = "cr_invalid",
	  .variant = 7,
	  .expect = VM_STOP_EXIT,
	  .test = "cr_efer_invalid",
	  .expect_alt = VM_STOP_ENTRY_FAILED },
	{ .name = "read8",
	  .variant = 8,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "read8_outside_ram" },
	{ .name = "read16",
	  .variant = 9,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "read16_outside_ram" },
	{ .name = "read32",
	  .variant = 10,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "read32_outside_ram" },
	{ .name = "read64",
	  .variant = 11,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "read64_outside_ram" },
	{ .name = "write",
	  .variant = 12,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "write_outside_ram" },
	{ .name = "fetch",
	  .variant = 13,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "fetch_outside_ram" },
	{ .name = "pte_outside",
	  .variant = 14,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "page_table_outside_ram" },
	{ .name = "idt_outside",
	  .variant = 15,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "idt_outside_ram" },
	{ .name = "gdt_outside",
	  .variant = 16,
	  .expect = VM_STOP_BAD_ACCESS,
	  .test = "gdt_outside_ram" },
	{ .name = "triple",
	  .variant = 17,
	  .expect = VM_STOP_TRIPLE_FAULT,
	  .test = "triple_fault",
	  .runs_here = triple_fault_runs_here },
	{ .name = "spin",
	  .variant = 18,
	  .expect = VM_STOP_TIME_LIMIT,
	  .test = "exitless_spin",
	  .runs_here = spin_runs_here,
	  .time_limit_ms = 200 },
	/* reserved bits and AnyThread in PMU MSRs: refused or dropped as the CPU does */
	{ .name = "pmu_reserved",
	  .variant = 19,
	  .expect = VM_STOP_EXIT,
	  .test = "pmu_reserved_bits",
	  .runs_here = guest_pmu_runs_here },
	/* one VM plants markers in the CPU state VM entry does not switch, the
	 * next one on the same CPU must see reset values: keep them adjacent */
	{ .name = "state_plant",
	  .variant = 20,
	  .expect = VM_STOP_EXIT,
	  .test = "cpu_state_planted" },
	{ .name = "state_fresh",
	  .variant = 21,
	  .expect = VM_STOP_EXIT,
	  .test = "cpu_state_reset_between_vms" },
	/* both vCPUs print across the console's line flush at once */
	{ .name = "console_storm",
	  .variant = 22,
	  .expect = VM_STOP_EXIT,
	  .test = "console_storm",
	  .runs_here = two_cpus_runs_here,
	  .nr_vcpus = 2 },
	/* result names, reasons and console lines that would forge mhv's lines */
	{ .name = "forged_results",
	  .variant = 23,
	  .expect = VM_STOP_EXIT,
	  .test = "forged_results" },
	/* an exitless spin past 2^32 APIC ticks: stopped at its limit, not before, not never */
	{ .name = "past_2e32",
	  .variant = 24,
	  .expect = VM_STOP_TIME_LIMIT,
	  .test = "limit_past_2e32_apic_ticks",
	  .runs_here = past_2e32_runs_here,
	  .time_limit_ms = PAST_2E32_LIMIT_MS },
	/* the same with the host timer's reach cut to 20 ms: re-armed 15 times, any timer mode */
	{ .name = "timer_rearm",
	  .variant = 24,
	  .expect = VM_STOP_TIME_LIMIT,
	  .test = "limit_rearmed",
	  .runs_here = timer_rearm_runs_here,
	  .time_limit_ms = 300 },
	/* vCPU 1's CPU never comes back: it is retired and the VM's memory kept
	 * from reuse; the VM after it must get none of the lost VM's pages */
	{ .name = "lost_cpu",
	  .variant = 25,
	  .expect = VM_STOP_EXIT,
	  .test = "lost_cpu_retired",
	  .runs_here = lost_cpu_runs_here,
	  .time_limit_ms = 1000,
	  .nr_vcpus = 2 },
	{ .name = "after_lost_cpu",
	  .variant = 26,
	  .expect = VM_STOP_EXIT,
	  .test = "next_vm_apart",
	  .runs_here = after_lost_cpu_runs_here },
};

/* The random-exit guest, then a VM on the same CPU that must start from
 * the reset state whatever it left (guest-tests/fuzz.c, docs/fuzz.md). */
static const struct suite_vm fuzz_vms[] = {
	{ .name = "fuzz", .variant = 0, .expect = VM_STOP_EXIT },
	{ .name = "fuzz_fresh", .variant = 1, .expect = VM_STOP_EXIT },
	/* the differential run: what the bare emulator shares, one line each */
	{ .name = "fuzz_diff",
	  .variant = 2,
	  .expect = VM_STOP_EXIT,
	  .test = "fuzz_diff",
	  .opt_in = true },
};

const struct suite suites[] = {
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
	{ "fuzz", SUITE_FUZZ, guest_blob_fuzz_start, guest_blob_fuzz_end, fuzz_vms,
	  ARRAY_SIZE(fuzz_vms), COLUMNS_PMU, true },
};

const unsigned nr_suites = ARRAY_SIZE(suites);

static const char *const xstate_tests[] = { "cpuid_0xd_0", "cpuid_0xd_1", "cpuid_0xd_2", "xsetbv",
					    NULL };

/* The exits the fast path takes and two it does not, and the timed split */
static const char *const mitigations_tests[] = {
	"null",		 "vmcall",     "cpuid",	 "rd_tsc_adjust_msr", "wr_tsc_adjust_msr",
	"inl_from_hv",	 "outl_to_hv", "wbinvd", "mmio_read",	      "vmrun_to_guest",
	"guest_to_exit", NULL
};

/* One column per PMU mode (docs/pmu.md), and accounting on/off with a guest
 * that counts instructions: refused, with the reason, where the host
 * cannot run them (pmu_caps).  Each is the default VM (core/vm_config.h)
 * with the fields it names overridden. */
const struct vm_config vm_configs[] = {
	{ .name = "default",
	  .description = "every hot-path intercept, PMU off, CPUID.0xD from the cache" },
	{ .name = "xstate-nocache",
	  .description = "CPUID.0xD re-executed on the host at every exit",
	  .xstate_uncached = true,
	  .tests = xstate_tests },
	{ .name = "pmu-sw-noelide",
	  .description = "software PMU switch, always WRMSR",
	  .pmu = PMU_SW_NOELIDE },
	{ .name = "pmu-sw",
	  .description = "software PMU switch with RDPMC-compare elision",
	  .pmu = PMU_SW },
	{ .name = "pmu-sw-lazy",
	  .description = "guest PMU stays loaded across exits mhv handles",
	  .pmu = PMU_SW_LAZY },
	{ .name = "pmu-hw",
	  .description = "AMD PMC virtualization (VMCB swaps the counters)",
	  .pmu = PMU_HW },
	{ .name = "sw+insn",
	  .description = "pmu-sw, guest counts instructions, emulated ones accounted",
	  .pmu = PMU_SW,
	  .guest_counts_insn = true },
	{ .name = "sw+insn-noacct",
	  .description = "pmu-sw, guest counts instructions, no accounting",
	  .pmu = PMU_SW,
	  .guest_counts_insn = true,
	  .no_accounting = true },
	/* the other side of "mitigations =": the one the config does not pick */
	{ .name = "mitigations-off",
	  .description = "none of the exit duties: the floor",
	  .tests = mitigations_tests,
	  .mitigations_off = true },
	{ .name = "mitigations-auto",
	  .description = "the exit duties this CPU needs (header line)",
	  .tests = mitigations_tests,
	  .mitigations_auto = true },
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
_Static_assert(ARRAY_SIZE(vm_configs) == NR_VM_CONFIGS, "NR_VM_CONFIGS sizes the tables' columns");

struct why_not suite_vm_why_not(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	/* The suite's main VM filters its own tests; host-judged ones here. */
	if (sv->test && !config_test_wanted(cfg, sv->test))
		return verdict_left_out();
	if (sv->opt_in && !cfg->nr_tests)
		return verdict_left_out();
	return sv->runs_here ? sv->runs_here() : verdict_run();
}

const struct vm_config *suite_vm_config(const struct suite_vm *sv, const struct vm_config *column)
{
	return sv->runs_here == guest_pmu_runs_here ? &hostile_pmu_config : column;
}

const char *suite_vm_test(const struct suite_vm *sv)
{
	return sv->test ? sv->test : sv->name;
}

u64 suite_vm_limit_ms(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	return sv->time_limit_ms ? sv->time_limit_ms : cfg->time_limit * 1000ull;
}

/* Kept out of struct suite_vm: no other row carries it.  The case is
 * known by its own runs_here. */
u64 suite_vm_timer_reach_ms(const struct suite_vm *sv)
{
	return sv->runs_here == timer_rearm_runs_here ? TIMER_REARM_REACH_MS : 0;
}

struct why_not suite_column_why_not(const struct suite *s, const struct vm_config *c,
				    const struct mhv_config *cfg)
{
	if (s->columns == COLUMN_DEFAULT) {
		if (c != &vm_configs[0])
			return verdict_left_out();
	} else {
		if (s->columns == COLUMNS_PMU &&
		    (c->xstate_uncached || c->mitigations_off || c->mitigations_auto))
			return verdict_left_out();
		/* the default column has the mitigations the config picks */
		if ((c->mitigations_off && cfg->mitigations == MITIGATIONS_OFF) ||
		    (c->mitigations_auto && cfg->mitigations == MITIGATIONS_AUTO))
			return verdict_left_out();
		if (!(cfg->pmu_modes & BIT(c->pmu))) /* config "pmu =" may leave this mode out */
			return verdict_left_out();
	}
	return verdict_unless(pmu_mode_unsupported(c->pmu));
}
