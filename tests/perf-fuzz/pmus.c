// SPDX-License-Identifier: MIT
/*
 * The guest's PMUs as perf sees them: the type of every PMU in
 * /sys/bus/event_source/devices (the kernel's sysfs ABI,
 * Documentation/ABI/testing/sysfs-bus-event_source-devices), and the
 * CPU's vendor, whose raw event layout the fuzzer draws from.
 */
#include <cpuid.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "perf_fuzz.h"

static int cpu_is_amd(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return 0;
	/* "AuthenticAMD": EBX, EDX, ECX of leaf 0 */
	return ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;
}

void pmus_read(struct fuzz_pmus *p, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	memset(p, 0, sizeof(*p));
	p->amd = cpu_is_amd();
	if (!d)
		return;
	while ((de = readdir(d)) && p->n < FUZZ_MAX_PMUS) {
		char path[512];
		unsigned int type;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u", &type) == 1)
			p->type[p->n++] = type;
		fclose(f);
	}
	closedir(d);
}
