// SPDX-License-Identifier: MIT
#include "srat.h"

/* ACPI 6.5 §5.2.16: the table header, then the affinity structures. */
struct srat_table {
	char signature[4];
	u32 length;
	u8 header_rest[28]; /* the rest of the common header, §5.2.6 */
	u32 table_revision; /* reserved, 1 */
	u64 reserved;
} __packed;
_Static_assert(sizeof(struct srat_table) == 48, "ACPI 6.5 Table 5.68: structures at 48");

struct srat_entry_head {
	u8 type;
	u8 length;
} __packed;

/* Type 0: Processor Local APIC/SAPIC Affinity, ACPI 6.5 §5.2.16.1 */
struct srat_apic {
	struct srat_entry_head h;
	u8 pxm_lo; /* proximity domain [7:0] */
	u8 apic_id;
	u32 flags; /* bit 0: enabled */
	u8 sapic_eid;
	u8 pxm_hi[3]; /* proximity domain [31:8] */
	u32 clock_domain;
} __packed;
_Static_assert(sizeof(struct srat_apic) == 16, "ACPI 6.5 Table 5.69");
_Static_assert(__builtin_offsetof(struct srat_apic, pxm_hi) == 9, "ACPI 6.5 Table 5.69");

/* Type 1: Memory Affinity, ACPI 6.5 §5.2.16.2 */
struct srat_memory {
	struct srat_entry_head h;
	u32 pxm;
	u16 reserved1;
	u32 base_lo, base_hi;
	u32 length_lo, length_hi;
	u32 reserved2;
	u32 flags; /* bit 0: enabled, 1: hot-pluggable, 2: non-volatile */
	u64 reserved3;
} __packed;
_Static_assert(sizeof(struct srat_memory) == 40, "ACPI 6.5 Table 5.71");
_Static_assert(__builtin_offsetof(struct srat_memory, base_lo) == 8, "ACPI 6.5 Table 5.71");
_Static_assert(__builtin_offsetof(struct srat_memory, flags) == 28, "ACPI 6.5 Table 5.71");

/* Type 2: Processor Local x2APIC Affinity, ACPI 6.5 §5.2.16.3 */
struct srat_x2apic {
	struct srat_entry_head h;
	u16 reserved1;
	u32 pxm;
	u32 x2apic_id;
	u32 flags; /* bit 0: enabled */
	u32 clock_domain;
	u32 reserved2;
} __packed;
_Static_assert(sizeof(struct srat_x2apic) == 24, "ACPI 6.5 Table 5.73");
_Static_assert(__builtin_offsetof(struct srat_x2apic, x2apic_id) == 8, "ACPI 6.5 Table 5.73");

enum {
	SRAT_APIC = 0,
	SRAT_MEMORY = 1,
	SRAT_X2APIC = 2
};
#define SRAT_ENABLED 1u

/* The smallest length of each structure mhv reads; others are skipped. */
static const u8 srat_min_len[] = {
	[SRAT_APIC] = sizeof(struct srat_apic),
	[SRAT_MEMORY] = sizeof(struct srat_memory),
	[SRAT_X2APIC] = sizeof(struct srat_x2apic),
};

/* A CPU's domain and APIC ID from a type 0 or 2 structure; false if disabled or another type. */
static bool cpu_entry(const struct srat_entry_head *h, u32 *pxm, u32 *apic_id)
{
	if (h->type == SRAT_APIC) {
		const struct srat_apic *a = (const void *)h;

		*pxm = a->pxm_lo | a->pxm_hi[0] << 8 | a->pxm_hi[1] << 16 | (u32)a->pxm_hi[2] << 24;
		*apic_id = a->apic_id;
		return a->flags & SRAT_ENABLED;
	}
	if (h->type == SRAT_X2APIC) {
		const struct srat_x2apic *x = (const void *)h;

		*pxm = x->pxm;
		*apic_id = x->x2apic_id;
		return x->flags & SRAT_ENABLED;
	}
	return false;
}

static int find_node(const struct srat_info *info, u32 pxm)
{
	u32 i;

	for (i = 0; i < info->nr_nodes; i++)
		if (info->pxm[i] == pxm)
			return (int)i;
	return -1;
}

/* The node of domain @pxm, numbered on first sight; -1 when there are too many. */
static int add_node(struct srat_info *info, u32 pxm)
{
	int node = find_node(info, pxm);

	if (node >= 0 || info->nr_nodes == SRAT_MAX_NODES)
		return node;
	info->pxm[info->nr_nodes] = pxm;
	return (int)info->nr_nodes++;
}

/* The table's length into *len_out when every structure lies inside it
 * and is long enough for its type; else what is wrong. */
static const char *walk(const void *srat, u32 *len_out)
{
	const struct srat_table *t = srat;
	u32 len, off;

	__builtin_memcpy(&len, &t->length, sizeof(len));
	if (len < sizeof(*t))
		return "SRAT shorter than its header";
	for (off = sizeof(*t); off < len;) {
		const struct srat_entry_head *h = (const void *)((const u8 *)srat + off);

		if (len - off < sizeof(*h) || h->length > len - off)
			return "SRAT structure runs past the table's end";
		if (h->length < sizeof(*h))
			return "SRAT structure with a length below 2";
		if (h->type < sizeof(srat_min_len) && h->length < srat_min_len[h->type])
			return "SRAT structure shorter than its type";
		off += h->length;
	}
	*len_out = len;
	return NULL;
}

int srat_parse(const void *srat, struct srat_info *info, const char **why)
{
	u32 len, off, pxm, id;
	int node;

	__builtin_memset(info, 0, sizeof(*info));
	*why = walk(srat, &len);
	if (*why)
		return -1;
	for (off = sizeof(struct srat_table); off < len;) {
		const struct srat_entry_head *h = (const void *)((const u8 *)srat + off);
		const struct srat_memory *m = (const void *)h;

		off += h->length;
		if (cpu_entry(h, &pxm, &id)) {
			info->nr_cpus++;
		} else if (h->type == SRAT_MEMORY && (m->flags & SRAT_ENABLED) &&
			   (m->length_lo || m->length_hi)) {
			pxm = m->pxm;
			if (info->nr_mem == SRAT_MAX_MEM) {
				*why = "SRAT has more memory ranges than mhv keeps";
				return -1;
			}
			info->mem[info->nr_mem].base = (u64)m->base_hi << 32 | m->base_lo;
			info->mem[info->nr_mem].end =
			    info->mem[info->nr_mem].base + ((u64)m->length_hi << 32 | m->length_lo);
			if (info->mem[info->nr_mem].end < info->mem[info->nr_mem].base) {
				*why = "SRAT memory range wraps past the end of the address space";
				return -1;
			}
		} else {
			continue;
		}
		node = add_node(info, pxm);
		if (node < 0) {
			*why = "SRAT has more proximity domains than mhv keeps";
			return -1;
		}
		if (h->type == SRAT_MEMORY)
			info->mem[info->nr_mem++].node = (u32)node;
	}
	return 0;
}

int srat_cpu_node(const void *srat, const struct srat_info *info, u32 apic_id)
{
	const struct srat_table *t = srat;
	u32 len, off, pxm, id;

	__builtin_memcpy(&len, &t->length, sizeof(len));
	for (off = sizeof(*t); off < len;) {
		const struct srat_entry_head *h = (const void *)((const u8 *)srat + off);

		off += h->length;
		if (cpu_entry(h, &pxm, &id) && id == apic_id)
			return find_node(info, pxm);
	}
	return -1;
}

int srat_addr_node(const struct srat_info *info, u64 pa)
{
	u32 i;

	for (i = 0; i < info->nr_mem; i++)
		if (info->mem[i].base <= pa && pa < info->mem[i].end)
			return (int)info->mem[i].node;
	return -1;
}
