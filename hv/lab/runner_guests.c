// SPDX-License-Identifier: MIT
/*
 * The multiboot kernels the config names ("guest ="), after the suites.
 */
#include "runner_priv.h"
#include "core/backend.h"
#include "lib/boot_info.h"
#include "platform/console.h"
#include "lib/fmt.h"
#include "vdev/guest_console.h"
#include "loader/guest_kernel.h"
#include "pmu/pmu_caps.h"
#include "platform/tsc.h"
#include "vm_run.h"

/*
 * The "guest =" kernels, one after another, on the first chosen CPU: each
 * ends as one line with its exit code, its exits by kind and its time.  A
 * guest that cannot be read or loaded is refused with the reason.
 */
void run_guests(const struct mhv_config *cfg, const struct boot_info *bi, struct cpu *cpu)
{
	static u32 id = 1000;
	struct cpu *on[VM_MAX_VCPUS];
	char why[160], where[32];
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
		format_cpu_list(where, sizeof(where), on, vm.nr_vcpus);
		console_printf("mhv: guest %s: start (%s, %u MiB, %u vCPU%s on cpu%s %s, cmdline "
			       "\"%s\"%s%s)\n",
			       vm.name, backend->name, g->mem_mib, vm.nr_vcpus,
			       vm.nr_vcpus > 1 ? "s" : "", vm.nr_vcpus > 1 ? "s" : "", where,
			       g->cmdline, g->module[0] ? ", module " : "", g->module);
		t0 = rdtsc();
		if (!run_vcpus(&vm, on, vm.time_limit_ms))
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
