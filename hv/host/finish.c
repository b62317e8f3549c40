// SPDX-License-Identifier: MIT
/* The end of every run: the status line and the configured exit action. */
#include "finish.h"
#include "finish_claim.h"
#include "smp.h"
#include "nmi_mce.h"
#include "percpu.h"
#include "platform/console.h"
#include "platform/reset.h"
#include "platform/tsc.h"
#include "arch/ports.h"
#include "arch/x86.h"

static enum exit_action exit_action = EXIT_ACTION_HALT;
static void (*log_keeper)(u32 status);
/* The CPU that ends the run (index + 1), and whether its log is stored. */
static u32 finisher, log_done;

/* Milliseconds another CPU waits for the log's store, a few SetVariable
 * calls of milliseconds to a second each on slow flash, before it takes
 * the exit action itself: a run ends even when the first CPU hangs in the
 * firmware.  Timed by the TSC, not by a count of PAUSEs, whose length
 * differs tenfold between CPUs. */
#define LOG_WAIT_MS 60000

static const char *const status_names[] = {
	[MHV_PASS - MHV_PASS] = "pass",
	[MHV_TEST_FAILED - MHV_PASS] = "test-failed",
	[MHV_CONFIG_ERROR - MHV_PASS] = "config-error",
	[MHV_NO_VIRT - MHV_PASS] = "no-virtualization",
	[MHV_FATAL - MHV_PASS] = "fatal-error",
};

void finish_set_action(enum exit_action action)
{
	exit_action = action;
}

void finish_set_log_keeper(void (*keep)(u32 status))
{
	log_keeper = keep;
}

const char *mhv_status_name(enum mhv_status st)
{
	unsigned i = st - MHV_PASS;

	return i < ARRAY_SIZE(status_names) ? status_names[i] : "unknown";
}

/* One millisecond by the TSC; one PAUSE before it is calibrated, when
 * only the boot CPU runs and no other can be waiting. */
static void relax_1ms(void)
{
	u64 end = rdtsc() + host_tsc.clock_hz / 1000;

	do
		cpu_relax();
	while (rdtsc() < end);
}

void hv_finish(enum mhv_status st)
{
	const char *s = "Shutdown";
	u32 me = this_cpu()->index + 1;
	enum finish_role role;

	cli();
	role = finish_claim(&finisher, me);
	if (role == FINISH_FIRST && host_stray_db_count())
		console_printf("mhv: host: %llu stray #DBs ignored (debug traps guests left "
			       "pending across #VMEXIT)\n",
			       host_stray_db_count());
	if (smp_parked())
		console_printf(
		    "mhv: cpus: %u parked for good in all (late or unknown: never used)\n",
		    smp_parked());
	console_printf("mhv: finished: status %s (0x%x), exit action %s\n", mhv_status_name(st), st,
		       exit_action_name(exit_action));
	if (role == FINISH_OTHER) {
		/* the first CPU stores the log and takes the exit action */
		if (finish_wait(&log_done, LOG_WAIT_MS, relax_1ms))
			halt_forever();
		console_printf("mhv: cpu %u: cpu %u has not stored the log in a minute: "
			       "taking the exit action\n",
			       me - 1, finisher - 1);
	} else if (role == FINISH_FIRST && log_keeper) {
		log_keeper(st);
	}
	__atomic_store_n(&log_done, 1, __ATOMIC_RELEASE);
	switch (exit_action) {
	case EXIT_ACTION_QEMU_EXIT:
		outl(QEMU_DEBUG_EXIT_PORT, st);
		/* Not QEMU: Bochs ends on "Shutdown" written to its port 0x8900. */
		while (*s)
			outb(BOCHS_SHUTDOWN_PORT, (u8)*s++);
		break;
	case EXIT_ACTION_REBOOT:
		platform_reset();
		break;
	case EXIT_ACTION_HALT:
		break;
	}
	halt_forever();
}

void hv_fatal(enum mhv_status st, const char *fmt, ...)
{
	va_list ap;

	console_printf("mhv: ");
	va_start(ap, fmt);
	console_vprintf(fmt, ap);
	va_end(ap);
	console_printf("\n");
	hv_finish(st);
}
