/* SPDX-License-Identifier: MIT */
/*
 * Parser for mhv.cfg, the boot-time configuration read from the ESP.
 *
 * Format: "key = value" lines, '#' starts a comment anywhere, blank lines and
 * surrounding whitespace are ignored, CRLF is accepted, and a later duplicate
 * key overrides an earlier one.
 */
#ifndef MHV_CONFIG_H
#define MHV_CONFIG_H

#include "host/finish.h"
#include "lib/boot_info.h"
#include "core/vm_config.h"
#include "lib/cpuset.h"
#include "lib/guest_abi.h"
#include "lib/types.h"
#include "platform/console.h"
#include "platform/lapic.h"
#include "platform/serial.h"
#include "platform/tsc.h"
#include "platform/aperf.h"

enum suite_bits {
	SUITE_SMOKE = 1u << 0,
	SUITE_VMEXIT = 1u << 1,
	SUITE_XSTATE = 1u << 2,
	SUITE_PMU = 1u << 3,
	SUITE_HOSTILE = 1u << 4,
	SUITE_FUZZ = 1u << 5, /* not in the default set: opt in with "suites =" */
};

/* pmu_modes bits: 1 << the mode's number (lib/pmu_modes.h, HV_PMU_*) */
#define CONFIG_PMU_BIT_OF(id, word, guest_pmu, sw_switch) CONFIG_PMU_##id = 1u << HV_PMU_##id,
enum config_pmu_bits {
	PMU_MODES(CONFIG_PMU_BIT_OF) CONFIG_PMU_ALL = (1u << HV_PMU_MODE_COUNT) - 1,
};
/* pmu_account bits: as guest_abi.h HV_PMU_ACCOUNT_* */
#define CONFIG_ACCOUNT_INSN (1u << 0)
#define CONFIG_ACCOUNT_BRANCH (1u << 1)

#define CONFIG_MAX_TESTS 16
#define CONFIG_NAME_LEN 32
/* A line, so a guest's command line: Linux on x86 takes 2048 bytes
 * (COMMAND_LINE_SIZE), kvm-unit-tests' vmx about 420. */
#define CONFIG_LINE_MAX 2048

/* the loader reads each guest's files into one of its slots */
#define CONFIG_MAX_GUESTS BOOT_MAX_GUESTS
#define CONFIG_PATH_LEN 96

/* A multiboot kernel from the boot volume ("guest =" and the keys after it). */
struct mhv_guest {
	char path[CONFIG_PATH_LEN];
	char cmdline[CONFIG_LINE_MAX + 1];
	char module[CONFIG_PATH_LEN]; /* "" when none */
	bool initrd;		      /* module is a Linux initrd ("initrd =") */
	u32 time_limit;		      /* seconds; 0: the global time_limit */
	/* what the VM is, from the section's keys (guest_keys in config.c):
	 * the default VM but for them, with 64 MiB of RAM and one vCPU */
	struct vm_config vm;
};

enum config_mitigations {
	MITIGATIONS_AUTO,
	MITIGATIONS_OFF,
};

struct mhv_config {
	u32 suites;		      /* SUITE_* bits; default: all */
	u32 iterations;		      /* iterations per batch; default 1000, allowed 1..10000000 */
	u32 batches;		      /* batches per test; default 20, allowed 1..10000 */
	u32 warmup;		      /* warm-up iterations; default 1000, allowed 0..10000000 */
	enum exit_action exit_action; /* default EXIT_ACTION_HALT */
	u32 time_limit;		      /* seconds a VM may run; default 60 */
	bool xstate_cache;	      /* CPUID.0xD from the cache; off re-executes CPUID */
	bool debugcon;		      /* mirror console to port 0xE9; default false */
	enum console_mode console;    /* where the console goes; default both */
	u32 pmu_modes;		      /* CONFIG_PMU_* columns to run; default all */
	u32 pmu_account;	      /* CONFIG_ACCOUNT_*; default insn,branch */
	struct cpuset cpus;	      /* CPU indices (0 = BSP) to run on; empty: the default */
	bool cpus_all;		      /* "cpus = all" */
	u32 nr_guests;		      /* "guest =" lines: kernels run after the suites */
	struct mhv_guest guests[CONFIG_MAX_GUESTS];
	/* the chosen CPUs run the one-vCPU VMs together, not in turn; default off */
	bool cpus_at_once;
	u32 nr_tests; /* 'tests =' filter; 0 = run all */
	char tests[CONFIG_MAX_TESTS][CONFIG_NAME_LEN];

	enum tsc_calibration tsc_calibration; /* the TSC's reference clock; default auto */
	/* the exit path's duties (core/mitigations.h): auto, what the CPU
	 * needs; off, none (the floor); default auto */
	enum config_mitigations mitigations;
	/* a UEFI variable round trip from the BSP and an AP while each VM runs
	 * (lab/fw_probe.c); default off */
	bool firmware_probe;
	/* the run's log stored in UEFI variables at its end, written to the
	 * boot volume by the next boot (platform/log_keep.c); default on */
	bool keep_log;
	u32 fb_pause;	/* seconds the screen waits before it scrolls; default 0 */
	u32 fuzz_seed;	/* the fuzz guest's seed; 0 (default): one from the TSC per VM */
	u32 fuzz_exits; /* exits each fuzz VM causes; default 2000 */
	/* core boost (platform/aperf.h): off by default, so that every row
	 * and run measures at the same clock */
	enum boost_setting boost;
	enum host_apic_mode apic; /* the host's APIC mode; default auto */
	/* where the serial console goes ("serial ="); default auto */
	struct serial_choice serial;
};

void config_defaults(struct mhv_config *cfg);

/*
 * Parses len bytes of text (no NUL terminator needed) on top of whatever cfg
 * already holds, so call config_defaults() first.  Returns 0 on success, or -1
 * with a one-line message "mhv.cfg:LINE: what is wrong" in err (truncated to
 * err_size; err may be NULL when err_size is 0).  On failure the contents of
 * cfg are unspecified.
 */
int config_parse(struct mhv_config *cfg, const char *text, size_t len, char *err, size_t err_size);

/* True when no 'tests' filter is set or name is listed in it. */
bool config_test_wanted(const struct mhv_config *cfg, const char *name);

#endif
