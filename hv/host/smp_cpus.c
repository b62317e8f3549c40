// SPDX-License-Identifier: MIT
#include "smp_cpus.h"
#include "smp.h"
#include "page_alloc.h"
#include "numa.h"
#include "lib/boot_info.h"
#include "platform/acpi.h"
#include "platform/console.h"
#include "platform/lapic.h"
#include "arch/apic.h"
#include "lib/fmt.h"

struct smp_census smp_census;

/* Entries with a broadcast ID, which acpi_madt_cpus left out: the first named. */
static void say_bogus(const void *madt)
{
	struct acpi_madt_bogus b;

	if (acpi_madt_bogus(madt, &b))
		console_printf(
		    "mhv: cpus: MADT entry at offset %u (%s ID 0x%x) names the broadcast "
		    "ID, not a CPU: left out (%u such entr%s)\n",
		    b.offset, b.type ? "x2APIC" : "Local APIC", b.id, b.n, b.n == 1 ? "y" : "ies");
}

/*
 * The APIC IDs of the CPUs the MADT lists, in pages of their own (4 KiB
 * for 1024 CPUs); *n: how many, 0 or -1 without a MADT or a good one.
 */
static u32 *madt_ids(const struct boot_info *bi, int *n)
{
	const void *madt = acpi_find_table(bi->rsdp, "APIC");
	int entries = madt ? acpi_madt_cpu_entries(madt) : -1;
	u32 *ids;

	*n = -1;
	if (entries <= 0)
		return NULL;
	ids = alloc_pages_zeroed(ALIGN_UP(entries * sizeof(*ids), PAGE_SIZE) / PAGE_SIZE);
	if (!ids)
		return NULL;
	smp_census.madt_rev = acpi_madt_revision(madt);
	*n = acpi_madt_cpus(madt, ids, (unsigned)entries);
	say_bogus(madt);
	return ids;
}

/* An AP of the MADT mhv starts: not the BSP, and one an xAPIC reaches
 * unless x2APIC is on. */
static bool wanted(const struct smp_cpus *p, u32 id)
{
	return id != p->bsp_id && !(p->xapic_only && id > XAPIC_MAX_ID);
}

void smp_cpus_plan(const struct boot_info *bi, struct smp_cpus *p)
{
	const u32 *ids;
	unsigned i;
	int n;

	ids = madt_ids(bi, &n);
	*p = (struct smp_cpus){ .ids = ids, .n = n };
	/* an xAPIC truncates IDs above 0xFF: every CPU goes x2APIC (the APs
	 * in lapic_init_ap) */
	if (p->n > 0 && apic_ids_need_x2apic(p->ids, (unsigned)p->n) && !lapic_enable_x2apic()) {
		p->xapic_only = true;
		console_printf("mhv: cpus: the MADT has APIC IDs above %u, which only x2APIC "
			       "reaches, and this CPU has none: those CPUs are left out\n",
			       XAPIC_MAX_ID);
	}
	p->bsp_id = lapic_present() ? lapic_id() : 0;
	/* what the header says if no AP is started at all */
	smp_census.in_madt = p->n > 0 ? (u32)p->n : 0;
	smp_census.started = 1;
	if (p->n <= 0) {
		p->aps = BROADCAST_APS;
		return;
	}
	for (i = 0; i < (unsigned)p->n; i++)
		if (wanted(p, p->ids[i]))
			p->aps++;
	if (p->aps > MAX_CPUS - 1) {
		console_printf("mhv: cpus: %u more in the MADT left out: mhv starts at most %u\n",
			       p->aps - (MAX_CPUS - 1), MAX_CPUS);
		p->aps = MAX_CPUS - 1;
	}
}

void smp_cpus_list(const struct smp_cpus *p)
{
	unsigned i;

	for (i = 0; i < (unsigned)p->n && nr_cpus < 1 + p->aps; i++) {
		if (!wanted(p, p->ids[i]))
			continue;
		cpus[nr_cpus] = (struct cpu){ .index = nr_cpus,
					      .apic_id = p->ids[i],
					      .node = numa_cpu_node(p->ids[i]),
					      .stack_node = STACK_NODE_UNSEEN };
		nr_cpus++;
	}
}

void smp_cpus_say(const struct smp_cpus *p, unsigned up, u32 parked, u32 smt_shift)
{
	const char *mode = lapic_is_x2apic() ? "x2APIC" : "xAPIC";
	char park[80] = "";

	smp_census.in_madt = p->n > 0 ? (u32)p->n : 0;
	smp_census.started = 1 + up;
	if (parked)
		fmt_snprintf(park, sizeof(park),
			     "; %u CPU%s parked for good (late or unknown: never used)", parked,
			     parked == 1 ? "" : "s");
	if (p->n > 0)
		console_printf(
		    "mhv: cpus: %u in the MADT (MADT rev %u), %u started (%u of %u APs), "
		    "BSP APIC ID %u, %u thread%s per core, %s%s\n",
		    p->n, smp_census.madt_rev, 1 + up, up, nr_cpus - 1, p->bsp_id, 1u << smt_shift,
		    smt_shift ? "s" : "", mode, park);
	else
		console_printf("mhv: cpus: %u answered a broadcast INIT-SIPI (no MADT), %u started "
			       "(%u of %u APs), BSP APIC ID %u, %u thread%s per core, %s%s\n",
			       nr_cpus, 1 + up, up, nr_cpus - 1, p->bsp_id, 1u << smt_shift,
			       smt_shift ? "s" : "", mode, park);
}
