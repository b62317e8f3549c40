// SPDX-License-Identifier: MIT
#include "percpu.h"
#include "platform/lapic.h"

struct cpu cpus[MAX_CPUS];
unsigned nr_cpus;

struct cpu *this_cpu(void)
{
	u32 id;
	unsigned i;

	if (nr_cpus <= 1 || !lapic_present())
		return &cpus[0];
	id = lapic_id();
	for (i = 0; i < nr_cpus; i++)
		if (cpus[i].apic_id == id)
			return &cpus[i];
	return &cpus[0];
}
