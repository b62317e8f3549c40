// SPDX-License-Identifier: MIT
/* libFuzzer: mhv.cfg text as read from the boot volume (hv/lab/config.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lab/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mhv_config cfg;
	char err[128];
	size_t n;

	config_defaults(&cfg);
	if (config_parse(&cfg, (const char *)data, size, err, sizeof(err)) < 0) {
		/* an error is one terminated line starting with the file name */
		n = strnlen(err, sizeof(err));
		if (n == sizeof(err) || strncmp(err, "mhv.cfg:", 8))
			__builtin_trap();
		return 0;
	}
	/* a config that parsed keeps every value in its documented range */
	if (cfg.iterations < 1 || cfg.iterations > 10000000 || cfg.batches < 1 ||
	    cfg.batches > 10000 || cfg.warmup > 10000000 || cfg.time_limit < 1 ||
	    cfg.time_limit > 3600 || cfg.nr_tests > CONFIG_MAX_TESTS)
		__builtin_trap();
	for (n = 0; n < cfg.nr_tests; n++)
		if (strnlen(cfg.tests[n], CONFIG_NAME_LEN) == CONFIG_NAME_LEN)
			__builtin_trap();
	for (n = 0; n < cfg.nr_guests; n++)
		if (strnlen(cfg.guests[n].cmdline, sizeof(cfg.guests[n].cmdline)) ==
		    sizeof(cfg.guests[n].cmdline))
			__builtin_trap();
	(void)config_test_wanted(&cfg, "cpuid");
	return 0;
}
