// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lab/config.h"

static struct mhv_config cfg;
static char err[256];

/*
 * Copies into an exactly sized heap buffer so ASan catches any read past len:
 * the parser must never rely on a terminator.
 */
static int parse_len(const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, text, len);
	config_defaults(&cfg);
	memset(err, 'X', sizeof(err));
	ret = config_parse(&cfg, copy, len, err, sizeof(err));
	free(copy);
	return ret;
}

static int parse(const char *text)
{
	return parse_len(text, strlen(text));
}

#define PARSE_OK(text)                                         \
	do {                                                   \
		int r_ = parse(text);                          \
		if (r_)                                        \
			fail_msg("unexpected error: %s", err); \
		assert_string_equal(err, "");                  \
	} while (0)

#define PARSE_ERR(text, msg)                       \
	do {                                       \
		assert_int_equal(parse(text), -1); \
		assert_string_equal(err, msg);     \
	} while (0)

static void test_defaults(void **state)
{
	(void)state;
	PARSE_OK("");
	assert_int_equal(cfg.suites,
			 SUITE_SMOKE | SUITE_VMEXIT | SUITE_XSTATE | SUITE_PMU | SUITE_HOSTILE);
	assert_int_equal(cfg.iterations, 1000);
	assert_int_equal(cfg.batches, 20);
	assert_int_equal(cfg.warmup, 1000);
	assert_int_equal(cfg.exit_action, EXIT_ACTION_HALT);
	assert_false(cfg.debugcon);
	assert_true(cfg.xstate_cache);
	assert_int_equal(cfg.pmu_modes, CONFIG_PMU_ALL);
	assert_int_equal(cfg.console, CONSOLE_BOTH);
	assert_int_equal(cfg.tsc_calibration, TSC_CAL_AUTO);
	assert_int_equal(cfg.apic, HOST_APIC_AUTO);
	assert_int_equal(cfg.pmu_account, CONFIG_ACCOUNT_INSN | CONFIG_ACCOUNT_BRANCH);
	assert_int_equal(cfg.nr_tests, 0);
	assert_true(config_test_wanted(&cfg, "anything"));
	assert_int_equal(cfg.fuzz_seed, 0); /* none: mhv picks one per VM */
	assert_int_equal(cfg.fuzz_exits, 2000);

	/* NULL text is fine when there is nothing to read. */
	config_defaults(&cfg);
	assert_int_equal(config_parse(&cfg, NULL, 0, NULL, 0), 0);
}

static void test_all_keys(void **state)
{
	(void)state;
	PARSE_OK("# mhv benchmark config\n"
		 "suites = vmexit\n"
		 "iterations = 5000\n"
		 "batches = 7\n"
		 "warmup = 0\n"
		 "exit_action = qemu-exit\n"
		 "debugcon = on\n"
		 "xstate_cache = off\n"
		 "tests = cpuid, rdmsr_tsc,vmcall-nop\n");
	assert_int_equal(cfg.suites, SUITE_VMEXIT);
	assert_int_equal(cfg.iterations, 5000);
	assert_int_equal(cfg.batches, 7);
	assert_int_equal(cfg.warmup, 0);
	assert_int_equal(cfg.exit_action, EXIT_ACTION_QEMU_EXIT);
	assert_true(cfg.debugcon);
	assert_false(cfg.xstate_cache);
	assert_int_equal(cfg.nr_tests, 3);
	assert_string_equal(cfg.tests[0], "cpuid");
	assert_string_equal(cfg.tests[1], "rdmsr_tsc");
	assert_string_equal(cfg.tests[2], "vmcall-nop");
	assert_true(config_test_wanted(&cfg, "cpuid"));
	assert_true(config_test_wanted(&cfg, "vmcall-nop"));
	assert_false(config_test_wanted(&cfg, "cpu"));
	assert_false(config_test_wanted(&cfg, "cpuidx"));
	assert_false(config_test_wanted(&cfg, NULL));
	assert_false(config_test_wanted(&cfg, "a_name_much_longer_than_thirty_one_chars"));
}

/* The fuzz suite's keys: a seed up to 2^32 - 1, an exit budget of 1 or more. */
static void test_fuzz_keys(void **state)
{
	(void)state;
	PARSE_OK("suites = fuzz\nfuzz_seed = 4294967295\nfuzz_exits = 100000000\n");
	assert_int_equal(cfg.suites, SUITE_FUZZ);
	assert_int_equal(cfg.fuzz_seed, 4294967295u);
	assert_int_equal(cfg.fuzz_exits, 100000000);
	PARSE_ERR("fuzz_seed = 4294967296\n", "mhv.cfg:1: bad value '4294967296' for 'fuzz_seed': "
					      "expected a number from 0 to 4294967295");
	PARSE_ERR("fuzz_exits = 0\n", "mhv.cfg:1: bad value '0' for 'fuzz_exits': "
				      "expected a number from 1 to 100000000");
}

static void test_syntax(void **state)
{
	(void)state;
	/* Comments anywhere, blank lines, odd spacing, CRLF, no final newline. */
	PARSE_OK("\r\n"
		 "   \t\n"
		 "  iterations=42   # trailing comment\r\n"
		 "#batches = 0\n"
		 "\tsuites =smoke ,  vmexit,smoke\t\r\n"
		 "debugcon = off#no space\n"
		 "exit_action = reboot");
	assert_int_equal(cfg.iterations, 42);
	assert_int_equal(cfg.batches, 20);
	assert_int_equal(cfg.suites, SUITE_SMOKE | SUITE_VMEXIT);
	assert_false(cfg.debugcon);
	assert_int_equal(cfg.exit_action, EXIT_ACTION_REBOOT);

	/* Later duplicates win, including list keys which are replaced, not merged. */
	PARSE_OK("warmup = 5\nwarmup = 6\nsuites = smoke\nsuites = vmexit\n"
		 "tests = a,b,c\ntests = d\nexit_action = reboot\nexit_action = halt\n");
	assert_int_equal(cfg.warmup, 6);
	assert_int_equal(cfg.suites, SUITE_VMEXIT);
	assert_int_equal(cfg.nr_tests, 1);
	assert_string_equal(cfg.tests[0], "d");
	assert_int_equal(cfg.exit_action, EXIT_ACTION_HALT);

	/* PMU columns and accounting events; "none" is the empty list. */
	PARSE_OK("pmu = off, sw-lazy\npmu_account = none\n");
	assert_int_equal(cfg.pmu_modes, CONFIG_PMU_OFF | CONFIG_PMU_SW_LAZY);
	assert_int_equal(cfg.pmu_account, 0);
	PARSE_OK("pmu = hw,sw,sw-noelide\npmu_account = insn\n");
	assert_int_equal(cfg.pmu_modes, CONFIG_PMU_HW | CONFIG_PMU_SW | CONFIG_PMU_SW_NOELIDE);
	assert_int_equal(cfg.pmu_account, CONFIG_ACCOUNT_INSN);

	PARSE_OK("cpus = 1, 3,63\n");
	assert_int_equal(cpuset_count(&cfg.cpus), 3);
	assert_true(cpuset_has(&cfg.cpus, 1) && cpuset_has(&cfg.cpus, 3) &&
		    cpuset_has(&cfg.cpus, 63));
	assert_false(cfg.cpus_all);
	/* beyond the 64 of a u64: up to 1023, and ranges */
	PARSE_OK("cpus = 0, 64, 300-599, 1023\n");
	assert_int_equal(cpuset_count(&cfg.cpus), 303);
	assert_true(cpuset_has(&cfg.cpus, 0) && cpuset_has(&cfg.cpus, 64));
	assert_false(cpuset_has(&cfg.cpus, 63) || cpuset_has(&cfg.cpus, 65));
	assert_true(cpuset_has(&cfg.cpus, 300) && cpuset_has(&cfg.cpus, 599));
	assert_false(cpuset_has(&cfg.cpus, 299) || cpuset_has(&cfg.cpus, 600));
	assert_true(cpuset_has(&cfg.cpus, 1023));
	PARSE_OK("cpus = 0-1023\n");
	assert_int_equal(cpuset_count(&cfg.cpus), 1024);
	PARSE_OK("console = fb\n");
	assert_int_equal(cfg.console, CONSOLE_FB);
	PARSE_OK("cpus = all\n");
	assert_true(cfg.cpus_all);
	PARSE_OK("apic = x2apic\n");
	assert_int_equal(cfg.apic, HOST_APIC_X2APIC);
	PARSE_OK("tsc_calibration = hpet\n");
	assert_int_equal(cfg.tsc_calibration, TSC_CAL_HPET);
	PARSE_OK("tsc_calibration = pm-timer\n");
	assert_int_equal(cfg.tsc_calibration, TSC_CAL_PM_TIMER);
	PARSE_OK("tsc_calibration = hpet\ntsc_calibration = auto\n");
	assert_int_equal(cfg.tsc_calibration, TSC_CAL_AUTO);

	/* guest sections: the keys after "guest =" are that guest's */
	PARSE_OK("time_limit = 30\nguest = \\vmexit.flat\ncmdline = \"vmexit.flat cpuid\"\n"
		 "mem = 128\ntime_limit = 5\npmu = sw\ncpus = 2\n"
		 "guest = \\k2.elf\nmodule = \\initrd\n");
	assert_int_equal(cfg.time_limit, 30);
	assert_int_equal(cfg.nr_guests, 2);
	assert_string_equal(cfg.guests[0].path, "\\vmexit.flat");
	assert_string_equal(cfg.guests[0].cmdline, "vmexit.flat cpuid");
	assert_int_equal(cfg.guests[0].vm.mem_mib, 128);
	assert_int_equal(cfg.guests[0].time_limit, 5);
	assert_int_equal(cfg.guests[0].vm.pmu, PMU_SW);
	assert_string_equal(cfg.guests[1].module, "\\initrd");
	assert_int_equal(cfg.guests[1].vm.mem_mib, 64);
	assert_int_equal(cfg.guests[0].vm.nr_vcpus, 2);
	assert_int_equal(cfg.guests[1].vm.nr_vcpus, 1);
	assert_string_equal(cfg.guests[1].cmdline, "");
	assert_false(cfg.guests[1].initrd);

	/* a guest's x2apic: on by default (the default VM), off hides it */
	assert_false(cfg.guests[0].vm.no_x2apic);
	PARSE_OK("guest = \\a.elf\nx2apic = off\nguest = \\b.elf\nx2apic = on\nguest = \\c.elf\n");
	assert_true(cfg.guests[0].vm.no_x2apic);
	assert_false(cfg.guests[1].vm.no_x2apic);
	assert_false(cfg.guests[2].vm.no_x2apic);
	assert_int_equal(cfg.guests[2].vm.pmu, PMU_OFF);
	PARSE_ERR("guest = \\a.elf\nx2apic = maybe\n",
		  "mhv.cfg:2: bad value 'maybe' for 'x2apic': expected on or off");
	PARSE_ERR("x2apic = off\n", "mhv.cfg:1: unknown key 'x2apic'");

	/* a Linux guest's initrd takes the module's file; never both */
	PARSE_OK("guest = \\vmlinuz\ninitrd = \\initrd.cpio\nmem = 256\n");
	assert_string_equal(cfg.guests[0].module, "\\initrd.cpio");
	assert_true(cfg.guests[0].initrd);
	PARSE_ERR("guest = \\vmlinuz\ninitrd = \\a\nmodule = \\b\n",
		  "mhv.cfg:3: a guest takes 'module' (multiboot) or 'initrd' (Linux), not both");

	PARSE_OK("iterations = 0010\n");
	assert_int_equal(cfg.iterations, 10);
	PARSE_OK("# only a comment");
	PARSE_OK("\n\n\n");
}

static void test_limits(void **state)
{
	char line[CONFIG_LINE_MAX + 8];

	(void)state;
	PARSE_OK("iterations = 1\nbatches = 1\nwarmup = 0\n");
	assert_int_equal(cfg.iterations, 1);
	PARSE_OK("iterations = 10000000\nbatches = 4096\nwarmup = 10000000\n");
	assert_int_equal(cfg.iterations, 10000000);
	assert_int_equal(cfg.batches, 4096);
	assert_int_equal(cfg.warmup, 10000000);

	PARSE_OK("tests = 0123456789012345678901234567890\n");
	assert_string_equal(cfg.tests[0], "0123456789012345678901234567890");
	PARSE_OK("tests = a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\n");
	assert_int_equal(cfg.nr_tests, CONFIG_MAX_TESTS);
	assert_string_equal(cfg.tests[15], "p");

	/* Exactly CONFIG_LINE_MAX characters (excluding CRLF) is still fine. */
	memset(line, ' ', sizeof(line));
	memcpy(line, "warmup = 3", 10);
	memcpy(line + CONFIG_LINE_MAX, "\r\n", 3);
	PARSE_OK(line);
	assert_int_equal(cfg.warmup, 3);
}

static void test_errors(void **state)
{
	(void)state;
	PARSE_ERR("iterations = 5\n\nfoo = 1\n", "mhv.cfg:3: unknown key 'foo'");
	PARSE_ERR(
	    "#\n#\n#\niterations = abc\n",
	    "mhv.cfg:4: bad value 'abc' for 'iterations': expected a number from 1 to 10000000");
	PARSE_ERR("iterations = 0", "mhv.cfg:1: bad value '0' for 'iterations': expected a number "
				    "from 1 to 10000000");
	PARSE_ERR("iterations = 10000001", "mhv.cfg:1: bad value '10000001' for 'iterations': "
					   "expected a number from 1 to 10000000");
	PARSE_ERR("iterations = 99999999999999999999999999",
		  "mhv.cfg:1: bad value '99999999999999999999999999' for 'iterations': "
		  "expected a number from 1 to 10000000");
	PARSE_ERR("iterations = -1", "mhv.cfg:1: bad value '-1' for 'iterations': expected a "
				     "number from 1 to 10000000");
	PARSE_ERR("iterations = 1 2", "mhv.cfg:1: bad value '1 2' for 'iterations': expected a "
				      "number from 1 to 10000000");
	/* past what one result carries: the guest would keep 4096 of them */
	PARSE_ERR("batches = 4097",
		  "mhv.cfg:1: bad value '4097' for 'batches': expected a number from 1 to 4096");
	PARSE_ERR("warmup = 0x10",
		  "mhv.cfg:1: bad value '0x10' for 'warmup': expected a number from 0 to 10000000");
	PARSE_ERR("\n\n\n\njust words\n", "mhv.cfg:5: expected 'key = value'");
	PARSE_ERR("= 5\n", "mhv.cfg:1: expected 'key = value'");
	PARSE_ERR("foo bar = 1\n", "mhv.cfg:1: unknown key 'foo bar'");
	PARSE_ERR("suites = smoke\nsuites = smoke, x\n",
		  "mhv.cfg:2: unknown suite 'x' (known: smoke, vmexit, xstate, pmu, hostile, fuzz, "
		  "none)");
	PARSE_ERR("guest = a\nmem = 1\n",
		  "mhv.cfg:2: bad value '1' for 'mem': expected a number from 2 to 3072");
	PARSE_ERR("guest = a\ncpus = 5\n",
		  "mhv.cfg:2: bad value '5' for 'cpus': expected a number from 1 to 4");
	PARSE_ERR("cmdline = x\n", "mhv.cfg:1: unknown key 'cmdline'");
	PARSE_ERR("guest = \"a\"\n", "mhv.cfg:1: bad path '\"a\"' for 'guest'");
	PARSE_ERR("pmu = fast\n",
		  "mhv.cfg:1: unknown PMU mode 'fast' (known: off, sw, sw-noelide, sw-lazy, hw)");
	PARSE_ERR("pmu_account = cycles\n", "mhv.cfg:1: unknown accounting event 'cycles' "
					    "(known: insn, branch, none)");
	PARSE_ERR("pmu = sw,\n", "mhv.cfg:1: empty name in list for 'pmu'");
	PARSE_ERR("cpus = 1024\n", "mhv.cfg:1: bad CPU '1024' for 'cpus': expected CPU numbers 0 "
				   "to 1023, ranges of them (0-127) or all");
	PARSE_ERR("cpus = 10-2\n", "mhv.cfg:1: bad CPU '10-2' for 'cpus': expected CPU numbers 0 "
				   "to 1023, ranges of them (0-127) or all");
	PARSE_ERR("cpus = 1-\n", "mhv.cfg:1: bad CPU '1-' for 'cpus': expected CPU numbers 0 to "
				 "1023, ranges of them (0-127) or all");
	PARSE_ERR("cpus = 1,,2\n", "mhv.cfg:1: bad CPU '' for 'cpus': expected CPU numbers 0 to "
				   "1023, ranges of them (0-127) or all");
	PARSE_ERR("cpus = bsp\n", "mhv.cfg:1: bad CPU 'bsp' for 'cpus': expected CPU numbers 0 to "
				  "1023, ranges of them (0-127) or all");
	PARSE_ERR("suites = smoke,,vmexit\n", "mhv.cfg:1: empty name in list for 'suites'");
	PARSE_ERR("suites = smoke,\n", "mhv.cfg:1: empty name in list for 'suites'");
	PARSE_ERR("\n\n\n\n\n\nexit_action = maybe\n",
		  "mhv.cfg:7: bad value 'maybe' for 'exit_action': expected halt, reboot or "
		  "qemu-exit");
	PARSE_ERR("console = vga\n",
		  "mhv.cfg:1: bad value 'vga' for 'console': expected serial, fb or both");
	PARSE_ERR("tsc_calibration = pmtimer\n",
		  "mhv.cfg:1: bad value 'pmtimer' for 'tsc_calibration': expected auto, hpet or "
		  "pm-timer");
	PARSE_ERR("tsc_calibration =\n", "mhv.cfg:1: empty value for 'tsc_calibration'");
	PARSE_ERR("debugcon = yes\n",
		  "mhv.cfg:1: bad value 'yes' for 'debugcon': expected on or off");
	PARSE_ERR("xstate_cache = yes\n",
		  "mhv.cfg:1: bad value 'yes' for 'xstate_cache': expected on or off");
	PARSE_ERR("iterations = 5\r\nwarmup =   # nothing\r\n",
		  "mhv.cfg:2: empty value for 'warmup'");
	PARSE_ERR("tests =\n", "mhv.cfg:1: empty value for 'tests'");
	PARSE_ERR("tests = Cpuid\n", "mhv.cfg:1: bad test name 'Cpuid' for 'tests': expected 1 "
				     "to 31 characters of a-z, 0-9, _ and -");
	PARSE_ERR("tests = 01234567890123456789012345678901\n",
		  "mhv.cfg:1: bad test name '01234567890123456789012345678901' for 'tests': "
		  "expected 1 to 31 characters of a-z, 0-9, _ and -");
	PARSE_ERR("tests = a b\n", "mhv.cfg:1: bad test name 'a b' for 'tests': expected 1 to 31 "
				   "characters of a-z, 0-9, _ and -");
	PARSE_ERR("tests = a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q\n",
		  "mhv.cfg:1: too many names for 'tests' (at most 16)");
	PARSE_ERR("tests = a,,b\n", "mhv.cfg:1: empty name in list for 'tests'");
}

static void test_long_line(void **state)
{
	char text[2 * CONFIG_LINE_MAX];

	(void)state;
	memset(text, ' ', sizeof(text));
	memcpy(text, "warmup = 1\n", 11);
	memcpy(text + 11, "# ", 2);
	/* Line 2 is CONFIG_LINE_MAX + 1 characters; comments count too. */
	text[11 + CONFIG_LINE_MAX + 1] = '\n';
	assert_int_equal(parse_len(text, 11 + CONFIG_LINE_MAX + 2), -1);
	assert_string_equal(err, "mhv.cfg:2: line too long (over 2048 characters)");

	/* Same without the final newline. */
	assert_int_equal(parse_len(text, 11 + CONFIG_LINE_MAX + 1), -1);
	assert_string_equal(err, "mhv.cfg:2: line too long (over 2048 characters)");
}

/* A guest's command line as long as a line may be, quoted or not, arrives whole. */
static void test_long_cmdline(void **state)
{
	static const char head[] = "guest = \\k.elf\ncmdline = \"";
	static char text[sizeof(head) + CONFIG_LINE_MAX + 8];
	size_t quoted = CONFIG_LINE_MAX - (sizeof("cmdline = \"\"") - 1);
	size_t n = sizeof(head) - 1;

	(void)state;
	memcpy(text, head, n);
	memset(text + n, 'a', quoted);
	memcpy(text + n + quoted, "\"\n", 2);
	assert_int_equal(parse_len(text, n + quoted + 2), 0);
	assert_int_equal(strlen(cfg.guests[0].cmdline), quoted);
	assert_int_equal(cfg.guests[0].cmdline[quoted - 1], 'a');

	/* unquoted, the line's whole value; one more character is too long */
	n = sizeof("guest = \\k.elf\ncmdline = ") - 1;
	memset(text + n, 'b', CONFIG_LINE_MAX - 10);
	assert_int_equal(parse_len(text, n + CONFIG_LINE_MAX - 10), 0);
	assert_int_equal(strlen(cfg.guests[0].cmdline), CONFIG_LINE_MAX - 10);
	memset(text + n, 'b', CONFIG_LINE_MAX - 9);
	assert_int_equal(parse_len(text, n + CONFIG_LINE_MAX - 9), -1);
	assert_string_equal(err, "mhv.cfg:2: line too long (over 2048 characters)");
}

static void test_nul(void **state)
{
	static const char text[] = "warmup = 1\nbatches = 2\nwarm\0up = 3\n";

	(void)state;
	assert_int_equal(parse_len(text, sizeof(text) - 1), -1);
	assert_string_equal(err, "mhv.cfg:3: NUL byte in file");
	/* Also inside a comment, and as the very last byte. */
	assert_int_equal(parse_len("# a\0b\n", 6), -1);
	assert_string_equal(err, "mhv.cfg:1: NUL byte in file");
	assert_int_equal(parse_len("warmup = 1\n\0", 12), -1);
	assert_string_equal(err, "mhv.cfg:2: NUL byte in file");
}

/* cpus_at_once: off unless asked for; on/off like the other switches. */
static void test_cpus_at_once(void **state)
{
	(void)state;
	PARSE_OK("cpus = all\n");
	assert_false(cfg.cpus_at_once);
	PARSE_OK("cpus = all\ncpus_at_once = on\n");
	assert_true(cfg.cpus_at_once);
	assert_true(cfg.cpus_all);
	PARSE_OK("cpus_at_once = on # comment\ncpus = 1,2\ncpus_at_once = off\n");
	assert_false(cfg.cpus_at_once);
	assert_int_equal(cpuset_count(&cfg.cpus), 2);
	assert_true(cpuset_has(&cfg.cpus, 1) && cpuset_has(&cfg.cpus, 2));
	PARSE_ERR("cpus_at_once = yes\n",
		  "mhv.cfg:1: bad value 'yes' for 'cpus_at_once': expected on or off");
	PARSE_ERR("cpus_at_once =\n", "mhv.cfg:1: empty value for 'cpus_at_once'");
}

static void test_small_err(void **state)
{
	static const char text[] = "nosuchkey = 1\n";
	const char *full = "mhv.cfg:1: unknown key 'nosuchkey'";
	char small[40];

	(void)state;
	for (size_t size = 0; size <= strlen(full) + 1; size++) {
		char *buf = malloc(size ? size : 1);

		assert_non_null(buf);
		config_defaults(&cfg);
		assert_int_equal(
		    config_parse(&cfg, text, sizeof(text) - 1, size ? buf : NULL, size), -1);
		if (size) {
			assert_int_equal(strlen(buf),
					 size - 1 < strlen(full) ? size - 1 : strlen(full));
			assert_memory_equal(buf, full, strlen(buf));
		}
		free(buf);
	}
	config_defaults(&cfg);
	assert_int_equal(config_parse(&cfg, text, sizeof(text) - 1, small, sizeof(small)), -1);
	assert_string_equal(small, full);
}

static void test_exit_action_name(void **state)
{
	(void)state;
	assert_string_equal(exit_action_name(EXIT_ACTION_HALT), "halt");
	assert_string_equal(exit_action_name(EXIT_ACTION_REBOOT), "reboot");
	assert_string_equal(exit_action_name(EXIT_ACTION_QEMU_EXIT), "qemu-exit");
	assert_string_equal(exit_action_name((enum exit_action)42), "unknown");
	/* the name host/finish.h prints is the word the parser takes */
	for (int a = EXIT_ACTION_HALT; a <= EXIT_ACTION_QEMU_EXIT; a++) {
		char line[64];

		snprintf(line, sizeof(line), "exit_action = %s\n", exit_action_name(a));
		PARSE_OK(line);
		assert_int_equal(cfg.exit_action, a);
	}
}

static void test_tsc_calibration_name(void **state)
{
	(void)state;
	assert_string_equal(tsc_calibration_name(TSC_CAL_AUTO), "auto");
	assert_string_equal(tsc_calibration_name(TSC_CAL_HPET), "hpet");
	assert_string_equal(tsc_calibration_name(TSC_CAL_PM_TIMER), "pm-timer");
	assert_string_equal(tsc_calibration_name((enum tsc_calibration)42), "unknown");
	for (int c = TSC_CAL_AUTO; c <= TSC_CAL_PM_TIMER; c++) {
		char line[64];

		snprintf(line, sizeof(line), "tsc_calibration = %s\n", tsc_calibration_name(c));
		PARSE_OK(line);
		assert_int_equal(cfg.tsc_calibration, c);
	}
}

static void test_mitigations(void **state)
{
	(void)state;
	PARSE_OK("");
	assert_int_equal(cfg.mitigations, MITIGATIONS_AUTO);
	PARSE_OK("mitigations = off\n");
	assert_int_equal(cfg.mitigations, MITIGATIONS_OFF);
	PARSE_OK("mitigations = off\nmitigations = auto\n");
	assert_int_equal(cfg.mitigations, MITIGATIONS_AUTO);
	PARSE_ERR("mitigations = on\n",
		  "mhv.cfg:1: bad value 'on' for 'mitigations': expected auto or off");
	PARSE_ERR("\nmitigations = Off\n",
		  "mhv.cfg:2: bad value 'Off' for 'mitigations': expected auto or off");
	PARSE_ERR("mitigations =\n", "mhv.cfg:1: empty value for 'mitigations'");
}

/* serial = auto | none | PORT[,BAUD[,CLOCK]] | mmio[32]:ADDR[,BAUD,CLOCK] */
static void test_serial(void **state)
{
	(void)state;
	PARSE_OK("");
	assert_int_equal(cfg.serial.how, SERIAL_AUTO);
	PARSE_OK("serial = none\n");
	assert_int_equal(cfg.serial.how, SERIAL_NONE);
	PARSE_OK("serial = none\nserial = auto\n");
	assert_int_equal(cfg.serial.how, SERIAL_AUTO);

	/* a PC COM port: 115200 from 1.8432 MHz unless told otherwise */
	PARSE_OK("serial = 0x2f8\n");
	assert_int_equal(cfg.serial.how, SERIAL_PORT);
	assert_int_equal(cfg.serial.base, 0x2f8);
	assert_int_equal(cfg.serial.baud, 115200);
	assert_int_equal(cfg.serial.clock_hz, 1843200);
	PARSE_OK("serial = com2\n");
	assert_int_equal(cfg.serial.base, 0x2f8);
	PARSE_OK("serial = com4, 9600\n");
	assert_int_equal(cfg.serial.base, 0x2e8);
	assert_int_equal(cfg.serial.baud, 9600);
	assert_int_equal(cfg.serial.clock_hz, 1843200);
	/* an FCH UART decoded at a legacy port: its 48 MHz clock */
	PARSE_OK("serial = 0x3F8,115200,48000000\n");
	assert_int_equal(cfg.serial.base, 0x3f8);
	assert_int_equal(cfg.serial.clock_hz, 48000000);
	PARSE_OK("serial = com1,keep\n");
	assert_int_equal(cfg.serial.baud, 0);
	assert_int_equal(cfg.serial.clock_hz, 0);

	/* memory-mapped: the firmware's divisor unless baud and clock are given */
	PARSE_OK("serial = mmio32:0xfedc9000\n");
	assert_int_equal(cfg.serial.how, SERIAL_MMIO);
	assert_int_equal(cfg.serial.base, 0xfedc9000);
	assert_int_equal(cfg.serial.reg_width, 4);
	assert_int_equal(cfg.serial.baud, 0);
	PARSE_OK("serial = mmio:0xfe030000,115200,48000000\n");
	assert_int_equal(cfg.serial.reg_width, 1);
	assert_int_equal(cfg.serial.baud, 115200);
	assert_int_equal(cfg.serial.clock_hz, 48000000);

	PARSE_ERR("serial = com5\n",
		  "mhv.cfg:1: bad value 'com5' for 'serial': expected auto, none, com1 to com4, an "
		  "I/O port 0x1 to 0xfff8, mmio:ADDR or mmio32:ADDR");
	PARSE_ERR("serial = 0xfff9\n",
		  "mhv.cfg:1: bad value '0xfff9' for 'serial': expected auto, none, com1 to com4, "
		  "an I/O port 0x1 to 0xfff8, mmio:ADDR or mmio32:ADDR");
	PARSE_ERR("serial = 760\n",
		  "mhv.cfg:1: bad value '760' for 'serial': expected auto, none, com1 to com4, an "
		  "I/O port 0x1 to 0xfff8, mmio:ADDR or mmio32:ADDR");
	PARSE_ERR("serial = auto,115200\n",
		  "mhv.cfg:1: bad value 'auto' for 'serial': expected auto, none, com1 to com4, an "
		  "I/O port 0x1 to 0xfff8, mmio:ADDR or mmio32:ADDR");
	PARSE_ERR("serial = 0x2f8,fast\n",
		  "mhv.cfg:1: bad baud rate 'fast' for 'serial': expected 1 to 4000000 or keep");
	PARSE_ERR("serial = 0x2f8,\n",
		  "mhv.cfg:1: bad baud rate '' for 'serial': expected 1 to 4000000 or keep");
	PARSE_ERR("serial = 0x2f8,0\n",
		  "mhv.cfg:1: bad baud rate '0' for 'serial': expected 1 to 4000000 or keep");
	PARSE_ERR("serial = 0x2f8,115200,0\n",
		  "mhv.cfg:1: bad clock '0' for 'serial': expected 1 to 64000000 Hz");
	PARSE_ERR("serial = 0x2f8,keep,48000000\n",
		  "mhv.cfg:1: 'serial': a clock after 'keep' has no use");
	PARSE_ERR("serial = 0x2f8,1,2,3\n",
		  "mhv.cfg:1: too many values for 'serial': expected at most PORT,BAUD,CLOCK");
	/* 1.8432 MHz makes 115200 / n, not 100000: 1843200 / 16 / 100000 = 1.152 */
	PARSE_ERR("serial = com1,100000\n",
		  "mhv.cfg:1: 'serial': 100000 bits/s cannot be made from a 1843200 Hz clock (no "
		  "16-bit divisor within 2%)");
	PARSE_ERR("serial = mmio32:0xfedc9000,115200\n",
		  "mhv.cfg:1: 'serial': a memory-mapped UART's baud rate needs its clock: "
		  "mmio:ADDR,BAUD,CLOCK_HZ (without BAUD the firmware's rate stays)");
	PARSE_ERR("serial = mmio32:0xfedc9002\n",
		  "mhv.cfg:1: bad address '0xfedc9002' for 'serial': expected a non-zero hex "
		  "physical address (0x...) below 2^52, 4-byte aligned");
	PARSE_ERR("serial = mmio:0x10000000000000\n",
		  "mhv.cfg:1: bad address '0x10000000000000' for 'serial': expected a non-zero hex "
		  "physical address (0x...) below 2^52");
	PARSE_ERR("serial = mmio:0x\n",
		  "mhv.cfg:1: bad address '0x' for 'serial': expected a non-zero hex physical "
		  "address (0x...) below 2^52");
	PARSE_ERR("serial = mmio:0xffffffffffffffffffff\n",
		  "mhv.cfg:1: bad address '0xffffffffffffffffffff' for 'serial': expected a "
		  "non-zero hex physical address (0x...) below 2^52");
	/* a bad line leaves the choice of the lines before it */
	assert_int_equal(parse("serial = com2\nserial = com9\n"), -1);
	assert_int_equal(cfg.serial.how, SERIAL_PORT);
	assert_int_equal(cfg.serial.base, 0x2f8);
	PARSE_ERR("serial =\n", "mhv.cfg:1: empty value for 'serial'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_fuzz_keys),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_long_cmdline),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_small_err),
		cmocka_unit_test(test_cpus_at_once),
		cmocka_unit_test(test_exit_action_name),
		cmocka_unit_test(test_tsc_calibration_name),
		cmocka_unit_test(test_mitigations),
		cmocka_unit_test(test_serial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
