// SPDX-License-Identifier: MIT
/* The emulator's instruction-class counters (insn_class.h). */
#include "insn_class.h"

#ifndef HOST_TEST
#include "console.h"
#include "host/percpu.h"
#include "arch/x86.h"
#endif

/* tests/emu/bochs/0015-insn-class-counts.patch */
#define MSR_BOCHS_ICLASS 0x400000f0u /* RDMSR: signature; WRMSR 1: latch */
#define MSR_BOCHS_ICLASS_COUNT(n) (MSR_BOCHS_ICLASS + 1 + (n))
#define ICLASS_SIGNATURE 0x63497842u /* EDX: "BxIc" in memory order */
#define ICLASS_VERSION 1

const char *const insn_class_names[NR_ICLASSES] = {
	[ICLASS_CPUID] = "cpuid",
	[ICLASS_RDMSR_PMU] = "rdmsr_pmu",
	[ICLASS_RDMSR_SPEC] = "rdmsr_spec",
	[ICLASS_RDMSR_OTHER] = "rdmsr_other",
	[ICLASS_WRMSR_PMU] = "wrmsr_pmu",
	[ICLASS_WRMSR_SPEC] = "wrmsr_spec",
	[ICLASS_WRMSR_OTHER] = "wrmsr_other",
	[ICLASS_RDPMC] = "rdpmc",
	[ICLASS_XSTATE] = "xstate",
	[ICLASS_SVM] = "svm",
	[ICLASS_VMX] = "vmx",
	[ICLASS_CR_TLB] = "cr_tlb",
	[ICLASS_SERIALIZING] = "serializing",
	[ICLASS_VERW] = "verw",
};

void insn_class_delta(struct insn_class_sample *d, const struct insn_class_sample *a,
		      const struct insn_class_sample *b)
{
	unsigned n;

	d->valid = a->valid && b->valid && a->cpu == b->cpu;
	d->cpu = b->cpu;
	for (n = 0; n < NR_ICLASSES; n++)
		d->count[n] = d->valid ? b->count[n] - a->count[n] : 0;
}

void insn_class_rate(struct insn_class_rate *r, const struct insn_class_sample *a,
		     const struct insn_class_sample *b, const struct insn_class_sample *bracket,
		     u64 iterations)
{
	u64 c;
	unsigned n;

	r->known = a->valid && b->valid && a->cpu == b->cpu && iterations;
	for (n = 0; n < NR_ICLASSES; n++) {
		c = r->known ? b->count[n] - a->count[n] : 0;
		if (bracket && bracket->valid)
			c = c > bracket->count[n] ? c - bracket->count[n] : 0;
		r->hundredths[n] = (c * 100 + iterations / 2) / (iterations ? iterations : 1);
	}
}

#ifndef HOST_TEST
static bool counted;

bool insn_class_counted(void)
{
	return counted;
}

void insn_class_probe(void)
{
	u64 v;

	/* hardware #GPs here (SDM Vol 4 §2.1); the version and the number of
	 * classes must be the ones this file knows */
	counted = !rdmsr_safe(MSR_BOCHS_ICLASS, &v) &&
		  v == ((u64)ICLASS_SIGNATURE << 32 | ICLASS_VERSION << 16 | NR_ICLASSES);
	if (counted)
		console_printf("mhv: instruction classes: counted (pinned Bochs)\n");
}

void insn_class_sample(struct insn_class_sample *s)
{
	unsigned n;

	s->valid = counted;
	s->cpu = this_cpu()->index;
	if (!counted)
		return;
	wrmsr(MSR_BOCHS_ICLASS, 1);
	for (n = 0; n < NR_ICLASSES; n++)
		s->count[n] = rdmsr(MSR_BOCHS_ICLASS_COUNT(n));
}
#endif
