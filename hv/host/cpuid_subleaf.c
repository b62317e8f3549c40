// SPDX-License-Identifier: MIT
/* The sub-leaf cache of the ECX-indexed CPUID leaves (cpuid_subleaf.h). */
#include "cpuid_subleaf.h"

enum sub_end {
	END_TYPE_ZERO,	 /* the first sub-leaf whose type field is 0 is the last */
	END_MAX_IN_EAX0, /* sub-leaf 0's EAX is the highest sub-leaf */
	END_FIXED,	 /* a fixed set: sub-leaves that do not exist read 0 */
};

struct indexed_leaf {
	u32 leaf;
	u8 end;
	u8 type_reg; /* END_TYPE_ZERO: 0 EAX ... 3 EDX */
	u8 type_shift;
	u8 type_mask;
	u8 max; /* at most this many sub-leaves from 1 up are cached */
};

/* SDM Vol 2A CPUID (Table 3-8) and APM Vol 3 Appendix E.  The rest of
 * CPUID_STD_INDEXED (0xD XSTATE, 0x12 SGX, 0x1B, 0x1E) is answered
 * elsewhere or as zeros past sub-leaf 0. */
static const struct indexed_leaf indexed_leaves[] = {
	{ 0x4, END_TYPE_ZERO, 0, 0, 0x1f, 8 }, /* EAX[4:0] cache type, 0 = none */
	{ 0x7, END_MAX_IN_EAX0, 0, 0, 0, 3 },
	{ 0xb, END_TYPE_ZERO, 2, 8, 0xff, 6 }, /* ECX[15:8] level type, 0 = invalid */
	{ 0xf, END_FIXED, 0, 0, 0, 1 },	       /* RDT monitoring: L3 */
	{ 0x10, END_FIXED, 0, 0, 0, 3 },       /* RDT allocation: L3, L2, MBA */
	{ 0x14, END_MAX_IN_EAX0, 0, 0, 0, 2 },
	{ 0x17, END_MAX_IN_EAX0, 0, 0, 0, 3 },
	{ 0x18, END_MAX_IN_EAX0, 0, 0, 0, 8 },
	{ 0x1d, END_MAX_IN_EAX0, 0, 0, 0, 2 },
	{ 0x1f, END_TYPE_ZERO, 2, 8, 0xff, 6 },
	{ 0x8000001d, END_TYPE_ZERO, 0, 0, 0x1f, 8 }, /* EAX[4:0] cache type */
	{ 0x80000020, END_FIXED, 0, 0, 0, 3 },	      /* PQoS: L3 BW, ... */
	{ 0x80000026, END_TYPE_ZERO, 2, 8, 0xff, 6 }, /* ECX[15:8] level type */
};

static u32 reg_value(const struct cpuid_regs *r, u8 reg)
{
	const u32 regs[] = { r->eax, r->ebx, r->ecx, r->edx };

	return regs[reg & 3];
}

static u32 last_subleaf(const struct indexed_leaf *l,
			void (*read)(u32 leaf, u32 subleaf, struct cpuid_regs *r))
{
	struct cpuid_regs r0;

	if (l->end != END_MAX_IN_EAX0)
		return l->max;
	read(l->leaf, 0, &r0);
	return r0.eax < l->max ? r0.eax : l->max;
}

void cpuid_subleaves_fill(struct cpuid_subleaves *s, u32 max_std, u32 max_ext,
			  void (*read)(u32 leaf, u32 subleaf, struct cpuid_regs *r))
{
	u32 i, sub;

	s->count = 0;
	for (i = 0; i < ARRAY_SIZE(indexed_leaves); i++) {
		const struct indexed_leaf *l = &indexed_leaves[i];
		u32 last;

		if (l->leaf > (l->leaf >= 0x80000000u ? max_ext : max_std))
			continue;
		last = last_subleaf(l, read);
		for (sub = 1; sub <= last && s->count < CPUID_SUB_CACHED; sub++) {
			struct cpuid_sub *e = &s->sub[s->count++];

			e->leaf = l->leaf;
			e->subleaf = sub;
			read(l->leaf, sub, &e->r);
			/* the terminating sub-leaf is kept: its ECX[7:0] echoes the
			 * sub-leaf number on the topology leaves */
			if (l->end == END_TYPE_ZERO &&
			    !((reg_value(&e->r, l->type_reg) >> l->type_shift) & l->type_mask))
				break;
		}
	}
}

const struct cpuid_regs *cpuid_subleaf_find(const struct cpuid_subleaves *s, u32 leaf, u32 subleaf)
{
	u32 i;

	for (i = 0; i < s->count; i++)
		if (s->sub[i].leaf == leaf && s->sub[i].subleaf == subleaf)
			return &s->sub[i].r;
	return NULL;
}
