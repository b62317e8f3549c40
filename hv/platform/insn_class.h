/* SPDX-License-Identifier: MIT */
/*
 * The instructions a real CPU makes expensive, counted by class in host
 * mode: a patched emulator's counters (the pinned Bochs' patch 0015,
 * tests/emu/bochs/), which no hardware has.  Under Bochs every instruction
 * costs one RDTSC tick, so the exit gate's instruction counts cannot tell a
 * WRMSR to a PMU MSR from an ADD; these counts can (docs/exit-gate.md).
 *
 * The interface is four MSRs' worth of Bochs in 4000_00F0h..4000_00FFh, a
 * range the SDM reserves for no processor ever to implement (SDM Vol 4
 * §2.1): probed once with a #GP-safe RDMSR, read only where the probe found
 * the signature.
 */
#ifndef MHV_INSN_CLASS_H
#define MHV_INSN_CLASS_H

#include "lib/types.h"

/* In the order the emulator numbers them (MSR 4000_00F1h + class). */
enum insn_class {
	ICLASS_CPUID,
	ICLASS_RDMSR_PMU,
	ICLASS_RDMSR_SPEC, /* IA32_SPEC_CTRL, IA32_PRED_CMD */
	ICLASS_RDMSR_OTHER,
	ICLASS_WRMSR_PMU,
	ICLASS_WRMSR_SPEC,
	ICLASS_WRMSR_OTHER,
	ICLASS_RDPMC,
	ICLASS_XSTATE,	    /* XSAVE*, XRSTOR*, XSETBV */
	ICLASS_SVM,	    /* VMRUN (entering), VMLOAD, VMSAVE */
	ICLASS_VMX,	    /* VMLAUNCH/VMRESUME (entering), VMREAD, VMWRITE, ... */
	ICLASS_CR_TLB,	    /* MOV to CR0/2/3/4, INVLPG(A), INVPCID, INVEPT, INVVPID */
	ICLASS_SERIALIZING, /* LFENCE, MFENCE, SERIALIZE, IRET, MOV to DR, ... */
	ICLASS_VERW,
	NR_ICLASSES
};

/* Each class's name in the tables, MHV-JSON and the gate. */
extern const char *const insn_class_names[NR_ICLASSES];

struct insn_class_sample {
	u64 count[NR_ICLASSES];
	u32 cpu; /* the counts are per CPU: deltas only on the same one */
	bool valid;
};

/* Per iteration of a benchmark, in hundredths; known only where counted. */
struct insn_class_rate {
	u64 hundredths[NR_ICLASSES];
	bool known;
};

/* Once, on the BSP: whether the emulator counts (the header line says so). */
void insn_class_probe(void);
/* Whether insn_class_probe found the counters. */
bool insn_class_counted(void);
/* This CPU's counts at once; not valid where nothing counts.  Executes no
 * instruction of any class (the interface's own MSRs are counted in none). */
void insn_class_sample(struct insn_class_sample *s);
/* The counts from @a to @b, valid when both are and come from one CPU. */
void insn_class_delta(struct insn_class_sample *d, const struct insn_class_sample *a,
		      const struct insn_class_sample *b);
/*
 * The counts from @a to @b, less @bracket where it is valid (what the two
 * hypercalls around a benchmark add: hv/lab/runner_vm.c), over
 * @iterations, in hundredths rounded to nearest; unknown when either
 * sample is not valid, they come from two CPUs, or @iterations is 0.
 */
void insn_class_rate(struct insn_class_rate *r, const struct insn_class_sample *a,
		     const struct insn_class_sample *b, const struct insn_class_sample *bracket,
		     u64 iterations);

#endif
