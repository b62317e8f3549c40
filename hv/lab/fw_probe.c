// SPDX-License-Identifier: MIT
/*
 * "firmware_probe = on": while each VM runs on an AP, a UEFI variable is
 * written, read back and deleted through the firmware's runtime services,
 * once from the BSP and once from another, idle AP.  On firmware that
 * keeps its variables in SMM (every Secure Boot machine) each of those
 * calls is an SMI that every CPU must answer, the one in the VM too: so
 * this is the check that the host never holds SMIs off (hv/svm/svm.h on
 * GIF), and what storing the run's log in variables will rely on.
 */
#include "fw_probe.h"
#include "platform/console.h"
#include "platform/efi_rt.h"
#include "platform/tsc.h"
#include "lib/fmt.h"
#include "arch/x86.h"

/* How long the AP may take: firmware variable writes take milliseconds
 * on hardware; an SMI that is never answered takes forever. */
#define AP_PROBE_MS 20000
#define GUEST_START_S 5

static struct run_results *armed;
static u32 expected_id; /* of the VM the next call runs beside */

void fw_probe_arm(struct run_results *results)
{
	armed = results;
}

void fw_probe_expect(u32 vm_id)
{
	expected_id = vm_id;
}

struct probe {
	u32 cpu;
	u64 ticks;
	char failure[96]; /* "" when the round trip was right */
};

static const u16 probe_name[] = u"MhvProbe";
#define PROBE_ATTRS \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

static bool call_failed(struct probe *p, const char *what, u64 st)
{
	char buf[32];

	if (!st)
		return false;
	fmt_snprintf(p->failure, sizeof(p->failure), "%s: %s", what,
		     efi_status_name(st, buf, sizeof(buf)));
	return true;
}

/* cpu_work_fn: the round trip on the CPU this runs on. */
static void probe_here(void *arg)
{
	struct probe *p = arg;
	char data[48], back[48];
	u64 size = sizeof(back), start = rdtsc();
	u32 attrs = 0;
	int len;

	len = fmt_snprintf(data, sizeof(data), "mhv probe from cpu %u at tsc %llu", p->cpu, start);
	p->failure[0] = 0;
	if (call_failed(
		p, "SetVariable",
		efi_rt_set_variable(probe_name, &mhv_vendor_guid, PROBE_ATTRS, len, data)) ||
	    call_failed(p, "GetVariable",
			efi_rt_get_variable(probe_name, &mhv_vendor_guid, &attrs, &size, back)))
		goto out;
	if (size != (u64)len || __builtin_memcmp(back, data, len) || attrs != PROBE_ATTRS)
		fmt_snprintf(p->failure, sizeof(p->failure),
			     "read back %llu bytes, attributes 0x%x: not what was written", size,
			     attrs);
	/* a size of 0 deletes it (UEFI 2.10 §8.2.3) */
	else if (call_failed(
		     p, "SetVariable (delete)",
		     efi_rt_set_variable(probe_name, &mhv_vendor_guid, PROBE_ATTRS, 0, NULL)))
		goto out;
out:
	p->ticks = rdtsc() - start;
}

static bool still_busy(const struct cpu *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->started;
}

static void report(const struct probe *p, const char *test, const struct cpu *busy,
		   const char *vm_name)
{
	char why[160];
	u64 us = host_tsc.clock_hz ? p->ticks * 1000000 / host_tsc.clock_hz : 0;
	bool beside = still_busy(busy);

	if (p->failure[0]) {
		fmt_snprintf(why, sizeof(why), "from cpu %u: %s", p->cpu, p->failure);
		results_test(armed, "firmware", test, TEST_FAIL, why);
		return;
	}
	fmt_snprintf(why, sizeof(why),
		     "UEFI variable written, read back and deleted from cpu %u in %llu.%03llu ms "
		     "%s cpu %u ran VM %s",
		     p->cpu, us / 1000, us % 1000, beside ? "while" : "after", busy->index,
		     vm_name);
	/* after: nothing ran beside the call, so it showed nothing */
	results_test(armed, "firmware", test, beside ? TEST_PASS : TEST_SKIP, why);
}

/* Until the VM's guest code runs (its first exit), so that the calls'
 * SMIs find its CPU in the guest, not still building the VM (whose
 * struct held another VM until the AP set it up: hence the id). */
static void wait_for_guest(const struct cpu *busy, const struct vm *vm)
{
	u64 deadline = rdtsc() + host_tsc.clock_hz * GUEST_START_S;
	unsigned k;

	while (still_busy(busy) && rdtsc() < deadline) {
		if (__atomic_load_n(&vm->id, __ATOMIC_ACQUIRE) == expected_id)
			for (k = 0; k < EXIT_KIND_COUNT; k++)
				if (__atomic_load_n(&vm->vcpus[0].exits[k], __ATOMIC_RELAXED))
					return;
		cpu_relax();
	}
}

void fw_probe_while_busy(struct cpu *busy, const struct vm *vm)
{
	struct probe p = { .cpu = this_cpu()->index };
	const char *vm_name = vm->name; /* read once the VM runs */
	bool lines_were_per_cpu;
	unsigned i;

	if (!armed)
		return;
	if (!efi_rt_available()) {
		results_test(armed, "firmware", "variable_from_bsp", TEST_SKIP,
			     "no UEFI runtime services");
		armed = NULL;
		return;
	}
	wait_for_guest(busy, vm);
	if (!still_busy(busy))
		return; /* too short to run beside */
	/* the VM prints meanwhile: whole lines each */
	lines_were_per_cpu = console_lines_per_cpu(true);
	probe_here(&p);
	report(&p, "variable_from_bsp", busy, vm_name);
	for (i = 1; i < nr_cpus; i++)
		if (&cpus[i] != busy && cpus[i].state == CPU_IDLE)
			break;
	if (i == nr_cpus) {
		results_test(armed, "firmware", "variable_from_ap", TEST_SKIP,
			     "no idle AP beside the VM's: run on three or more CPUs");
	} else {
		p.cpu = i;
		if (!smp_start(&cpus[i], probe_here, &p))
			results_test(armed, "firmware", "variable_from_ap", TEST_SKIP,
				     "the idle AP took no work");
		else if (!smp_wait(&cpus[i], AP_PROBE_MS))
			results_test(armed, "firmware", "variable_from_ap", TEST_FAIL,
				     "the AP was not back from the firmware within 20 s");
		else
			report(&p, "variable_from_ap", busy, vm_name);
	}
	if (!lines_were_per_cpu)
		console_lines_per_cpu(false);
}
