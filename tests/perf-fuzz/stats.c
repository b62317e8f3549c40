// SPDX-License-Identifier: MIT
/* The fuzzer's counts: every syscall kind tried, and how many succeeded. */
#include <stdio.h>

#include "perf_fuzz.h"

static const char *const names[K_COUNT] = {
	[K_OPEN] = "open",
	[K_OPEN_GROUP] = "open-in-group",
	[K_IOC_ENABLE] = "ioctl-enable",
	[K_IOC_DISABLE] = "ioctl-disable",
	[K_IOC_RESET] = "ioctl-reset",
	[K_IOC_REFRESH] = "ioctl-refresh",
	[K_IOC_PERIOD] = "ioctl-period",
	[K_IOC_SET_OUTPUT] = "ioctl-set-output",
	[K_IOC_PAUSE_OUTPUT] = "ioctl-pause-output",
	[K_IOC_ID] = "ioctl-id",
	[K_IOC_MODIFY] = "ioctl-modify-attributes",
	[K_READ] = "read",
	[K_MMAP] = "mmap",
	[K_RING_READ] = "ring-read",
	[K_RDPMC] = "rdpmc",
	[K_FCNTL_ASYNC] = "fcntl-async",
	[K_PRCTL] = "prctl-task-events",
	[K_FORK] = "fork",
	[K_EXEC] = "exec",
	[K_CLOSE] = "close",
	[K_MUNMAP] = "munmap",
};

const char *fuzz_kind_name(enum fuzz_kind k)
{
	return k < K_COUNT && names[k] ? names[k] : "?";
}

void stats_print(const struct fuzz_stats *s, void (*line)(const char *))
{
	char buf[128];
	unsigned long tried = 0, ok = 0;

	for (int k = 0; k < K_COUNT; k++) {
		if (!s->tried[k])
			continue;
		tried += s->tried[k];
		ok += s->ok[k];
		snprintf(buf, sizeof(buf), "%s tried %lu ok %lu", fuzz_kind_name(k), s->tried[k],
			 s->ok[k]);
		line(buf);
	}
	snprintf(buf, sizeof(buf), "total tried %lu ok %lu", tried, ok);
	line(buf);
	snprintf(buf, sizeof(buf), "ring records %lu (lost %lu, throttle %lu)", s->records, s->lost,
		 s->throttles);
	line(buf);
}
