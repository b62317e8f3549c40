// SPDX-License-Identifier: MIT
/*
 * hv_main: from here on no firmware call.  Bring up the host (console,
 * descriptor tables, memory, page tables, CPU facts), read the config,
 * pick the virtualization backend, run the plan, and end with the
 * configured exit action.
 */
#include "lib/boot_info.h"
#include "lab/config.h"
#include "platform/console.h"
#include "host/cpu_features.h"
#include "host/boot_stack.h"
#include "host/cpu_tables.h"
#include "platform/lapic.h"
#include "host/paging.h"
#include "platform/host_timer.h"
#include "host/page_alloc.h"
#include "platform/machine.h"
#include "pmu/pmu_caps.h"
#include "lab/runner.h"
#include "host/finish.h"
#include "platform/tsc.h"
#include "platform/acpi.h"
#include "platform/efi_rt.h"
#include "platform/log_keep.h"
#include "platform/aperf.h"
#include "xstate/xstate_guest.h"
#include "core/backend.h"
#include "core/exit_dispatch.h"
#include "core/mitigations.h"
#include "vdev/board.h"
#include "host/selfcheck.h"
#include "host/nmi_mce.h"
#include "host/smp.h"
#include "host/numa.h"
#include "lib/fmt.h"
#include "svm/svm.h"
#include "vmx/vmx.h"
#include "platform/insn_class.h"

static struct mhv_config config;
static char config_err[128];
static int config_status;

/*
 * Parsed before the console starts, since its serial key says where the
 * console goes; what the file says is reported once the console runs.
 */
static void read_config(const struct boot_info *bi)
{
	config_defaults(&config);
	if (bi->config_text && !bi->config_error[0])
		config_status = config_parse(&config, bi->config_text, bi->config_len, config_err,
					     sizeof(config_err));
}

/* The log kept across the reboot (keep_log = on), named by the run's start. */
static void keep_log_init(const struct boot_info *bi)
{
	const struct boot_wall_clock *w = &bi->wall_clock;
	struct kept_log_time t = { w->year,   w->month,	 w->day,  w->hour,
				   w->minute, w->second, w->valid };

	if (bi->previous_log[0])
		console_printf("mhv: %s\n", bi->previous_log);
	if (!config.keep_log)
		return;
	log_keep_start(&t);
	finish_set_log_keeper(log_keep_store);
}

static void load_config(const struct boot_info *bi)
{
	if (bi->config_error[0])
		hv_fatal(MHV_CONFIG_ERROR, "mhv.cfg: cannot read: %s", bi->config_error);
	if (!bi->config_text) {
		console_printf("mhv: no \\mhv.cfg on the boot volume: defaults\n");
		return;
	}
	if (config_status < 0) {
		/* The error is still reported with the file's exit action when
		 * the line that sets it was read before the bad one. */
		finish_set_action(config.exit_action);
		console_set_debugcon(config.debugcon);
		hv_fatal(MHV_CONFIG_ERROR, "%s", config_err);
	}
	finish_set_action(config.exit_action);
	console_set_debugcon(config.debugcon);
	console_set_mode(config.console);
	console_printf("mhv: config: \\mhv.cfg, %llu bytes\n", (unsigned long long)bi->config_len);
}

/*
 * SVM or VMX, enabled on the BSP, or a clear "no virtualization" line.
 * The one place that names the vendors: the core reaches the backend
 * only through its ops.
 */
static void backend_select(void)
{
	const char *why = "no hardware virtualization: CPUID 8000_0001 ECX[2] (SVM) and "
			  "CPUID 1 ECX[5] (VMX) are both 0";
	int status = MHV_NO_VIRT;

	if (host_cpu.has.svm)
		backend = svm_probe(&why, &status);
	else if (host_cpu.has.vmx)
		backend = vmx_probe(&why, &status);
	if (!backend)
		hv_fatal(status, "%s", why);
	selfcheck_watch("the backend's ops pointer", &backend, sizeof(backend));
	backend->describe();
	guest_cpuid_init();
}

/* An AP runs VMs only with the BSP's XSTATE layout and PMU, and its backend enabled. */
static bool ap_enable(char *why, size_t size)
{
	const char *err = NULL;

	mce_cpu_enable();
	if (!xstate_matches_this_cpu(why, size) || !pmu_matches_this_cpu(why, size))
		return false;
	if (backend->cpu_enable(&err)) {
		fmt_snprintf(why, size, "%s", err);
		return false;
	}
	/* like the BSP's; a refusal there was said in the header */
	boost_apply(config.boost, &err);
	return true;
}

static __noreturn void hv_main_on_node(const struct boot_info *bi)
{
	enum mhv_status status;

	boot_stack_describe();
	smp_init(bi, &(struct smp_ap_ops){ .enable = ap_enable, .idle_wait = backend->idle_wait });
	numa_describe();
	selfcheck_init();
	status = runner_run_plan(&config, bi);
	numa_report_misses();
	hv_finish(status);
}

static __noreturn void hv_main(const struct boot_info *bi)
{
	const char *why;

	cli();
	/* the registers ACPI names are checked against it from the first */
	acpi_set_memory_map(bi);
	read_config(bi);
	console_init(bi, &config.serial);
	console_printf("\nmhv: hypervisor core started (ExitBootServices after %u tries)\n",
		       bi->exit_boot_services_tries);
	console_printf("mhv: version: %s\n", platform_version());
	cpu_tables_init();
	platform_take_over(bi);
	load_config(bi);
	efi_rt_init(bi->efi_runtime);
	keep_log_init(bi);
	page_alloc_init(&hv_pages, bi->pool_base, bi->pool_pages, bi->mem, bi->nr_mem_ranges);
	numa_init(bi);
	cpu_probe();
	mce_init();
	host_paging_init();
	/* from here on an ACPI table must lie in mhv's own identity map */
	acpi_set_mapped(host_paging_maps);
	tsc_init(bi, config.tsc_calibration);
	console_set_screen_pause(config.fb_pause);
	board_set_wall_clock(&bi->wall_clock);
	xstate_init();
	page_alloc_describe(bi);
	platform_describe(bi);
	boost_setup(config.boost);
	host_timer_init();
	if (host_timer_available(&why))
		console_printf("mhv: host timer: %s\n", host_timer_describe());
	else
		console_printf("mhv: %s; time limits hold only for guests that exit: guest kernels "
			       "and spinning test VMs are refused\n",
			       why);
	backend_select();
	mitigations_init();
	mitigations_describe(config.mitigations == MITIGATIONS_OFF);
	pmu_caps_probe();
	pmu_caps_describe();
	insn_class_probe();
	if (config.apic == HOST_APIC_X2APIC)
		console_printf("mhv: apic: %s\n",
			       lapic_enable_x2apic()
				   ? "x2APIC (apic = x2apic)"
				   : "apic = x2apic refused: no x2APIC (CPUID.01H:ECX[21] "
				     "clear), xAPIC kept");
	/* the rest, the runs above all, on a stack of this CPU's node */
	boot_stack_to_node(bi, hv_main_on_node, numa_cpu_node(lapic_present() ? lapic_id() : 0));
}

void hv_start(const struct boot_info *bi)
{
	boot_stack_run(bi, hv_main);
}
