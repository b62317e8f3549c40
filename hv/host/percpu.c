// SPDX-License-Identifier: MIT
#include "percpu.h"
#include "page_alloc.h"
#include "platform/lapic.h"

static struct cpu boot_cpu;
struct cpu *cpus = &boot_cpu;
unsigned nr_cpus;

/*
 * APIC ID -> index + 1 (0: empty), open addressing with linear probing
 * over a power of two of at least twice the CPUs; APIC IDs are dense in
 * their low bits, which serve as the hash.
 */
static u32 *by_apic_id;
static u32 by_apic_id_mask;

bool percpu_alloc(unsigned n)
{
	struct cpu *a = alloc_pages_zeroed((n * sizeof(*a) + PAGE_SIZE - 1) / PAGE_SIZE);

	if (!a)
		return false;
	a[0] = cpus[0];
	__atomic_store_n(&cpus, a, __ATOMIC_RELEASE);
	return true;
}

bool percpu_index_apic_ids(void)
{
	u32 size = 2, *t, h;
	unsigned i;

	while (size < 2 * nr_cpus)
		size *= 2;
	t = alloc_pages_zeroed((size * sizeof(*t) + PAGE_SIZE - 1) / PAGE_SIZE);
	if (!t)
		return false;
	for (i = 0; i < nr_cpus; i++) {
		for (h = cpus[i].apic_id & (size - 1); t[h]; h = (h + 1) & (size - 1))
			;
		t[h] = i + 1;
	}
	by_apic_id_mask = size - 1;
	__atomic_store_n(&by_apic_id, t, __ATOMIC_RELEASE);
	return true;
}

struct cpu *this_cpu(void)
{
	const u32 *t = __atomic_load_n(&by_apic_id, __ATOMIC_ACQUIRE);
	u32 id, h;
	unsigned i;

	if (nr_cpus <= 1 || !lapic_present())
		return &cpus[0];
	id = lapic_id();
	if (t) {
		for (h = id & by_apic_id_mask; t[h]; h = (h + 1) & by_apic_id_mask)
			if (cpus[t[h] - 1].apic_id == id)
				return &cpus[t[h] - 1];
	} else {
		for (i = 0; i < nr_cpus; i++)
			if (cpus[i].apic_id == id)
				return &cpus[i];
	}
	/* not the boot CPU's data: whatever this CPU would do with it */
	percpu_stray(id);
}
