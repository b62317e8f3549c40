// SPDX-License-Identifier: MIT
/*
 * The suites: each one's guest blob and the VMs it runs, which of them
 * this machine cannot run and why, and the columns of the VM
 * configuration matrix they run in.
 */
#include "suites.h"
#include "core/backend.h"
#include "platform/host_timer.h"
#include "platform/machine.h"
#include "pmu/pmu_caps.h"
#include "pmu/pmu_vcpu.h"
#include "host/percpu.h"

extern const u8 guest_blob_smoke_start[], guest_blob_smoke_end[];
extern const u8 guest_blob_vmexit_start[], guest_blob_vmexit_end[];
extern const u8 guest_blob_xstate_start[], guest_blob_xstate_end[];
extern const u8 guest_blob_pmu_start[], guest_blob_pmu_end[];
extern const u8 guest_blob_hostile_start[], guest_blob_hostile_end[];

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
	{ "smoke", 0, VM_STOP_EXIT, NULL, NULL, false, 0, VM_RUNNING, 1 },
	{ "smoke-triple", 1, VM_STOP_TRIPLE_FAULT, "triple_fault_contained", triple_fault_runs_here,
	  false, 0, VM_RUNNING, 1 },
	{ "smoke-badgpa", 2, VM_STOP_BAD_ACCESS, "unbacked_gpa_stops_vm", NULL, false, 0,
	  VM_RUNNING, 1 },
	/* a spin without exits, interrupts off: only the host timer ends it */
	{ "smoke-spin", 3, VM_STOP_TIME_LIMIT, "exitless_spin_stopped", spin_runs_here, false, 200,
	  VM_RUNNING, 1 },
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
	{ "triple", 17, VM_STOP_TRIPLE_FAULT, "triple_fault", triple_fault_runs_here, false, 0,
	  VM_RUNNING, 1 },
	{ "spin", 18, VM_STOP_TIME_LIMIT, "exitless_spin", spin_runs_here, false, 200, VM_RUNNING,
	  1 },
	/* vCPU 1's CPU never comes back: it is retired and the VM's memory kept
	 * from reuse; the VM after it must get none of the lost VM's pages */
	{ "lost_cpu", 19, VM_STOP_EXIT, "lost_cpu_retired", lost_cpu_runs_here, false, 1000,
	  VM_RUNNING, 2 },
	{ "after_lost_cpu", 20, VM_STOP_EXIT, "next_vm_apart", after_lost_cpu_runs_here, false, 0,
	  VM_RUNNING, 1 },
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
};

const unsigned nr_suites = ARRAY_SIZE(suites);

static const char *const xstate_tests[] = { "cpuid_0xd_0", "cpuid_0xd_1", "cpuid_0xd_2", "xsetbv",
					    NULL };

/* One column per PMU mode (README, "PMU modes"), and accounting on/off with a guest
 * that counts instructions: refused, with the reason, where the host
 * cannot run them (pmu_caps). */
const struct vm_config vm_configs[] = {
	{ "default", "every hot-path intercept, PMU off, CPUID.0xD from the cache", false, NULL,
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

struct why_not suite_vm_why_not(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	/* The suite's main VM filters its own tests; host-judged ones here. */
	if (sv->test && !config_test_wanted(cfg, sv->test))
		return verdict_left_out();
	return sv->runs_here ? sv->runs_here() : verdict_run();
}

const char *suite_vm_test(const struct suite_vm *sv)
{
	return sv->test ? sv->test : sv->name;
}

u64 suite_vm_limit_ms(const struct suite_vm *sv, const struct mhv_config *cfg)
{
	return sv->time_limit_ms ? sv->time_limit_ms : cfg->time_limit * 1000ull;
}

struct why_not suite_column_why_not(const struct suite *s, const struct vm_config *c,
				    const struct mhv_config *cfg)
{
	enum pmu_mode mode = PMU_OFF;

	if (s->columns == COLUMN_DEFAULT) {
		if (c != &vm_configs[0])
			return verdict_left_out();
	} else {
		if (s->columns == COLUMNS_PMU && c->xstate_uncached)
			return verdict_left_out();
		pmu_mode_parse(c->pmu, &mode);
		if (!(cfg->pmu_modes & BIT(mode))) /* config "pmu =" may leave this mode out */
			return verdict_left_out();
	}
	return verdict_unless(pmu_mode_unsupported(c->pmu));
}
