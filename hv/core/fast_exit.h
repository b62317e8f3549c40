/* SPDX-License-Identifier: MIT */
/*
 * What the backends' fast exit handlers share: the answers of the hot
 * exits that need no more than a table lookup.  Each returns false for
 * the cases it leaves to the general path (exit_dispatch.c), before it
 * has changed anything, so a fast handler can still hand the exit over.
 *
 * The rules every backend's fast table (svm/svm_fast.c, vmx/vmx_fast.c)
 * follows, here once:
 * - Which exits: the hypercall (HC_NULL only: the benchmark floor), CPUID
 *   (the leaves fast_cpuid answers; the others out of line, still without
 *   the general path), RDMSR/WRMSR of the MSRs fast_msr_index names, and
 *   port I/O (the benchmark's test port inline, io_port_fast's devices);
 *   every other exit goes to the general path directly.
 * - When not: a guest with RFLAGS.TF set (the #DB after the completed
 *   instruction, and mhv's own single step for an NMI window, are
 *   vcpu_insn_completed()'s), string or REP I/O, and a case one of the
 *   helpers below refuses.
 * - What they may skip: the event being delivered (an instruction exit is
 *   not taken during event delivery, APM Vol 2 §15.7.2, SDM Vol 3
 *   §28.2.4, and an event mhv injected is gone once the guest ran); the
 *   VM's stop, which comes from another CPU's kick (an interrupt exit,
 *   general) or from a port device (io_port_fast's caller checks it).
 * - What they must do: step RIP past the instruction, count the exit
 *   kind, and clear the injection field where the vendor keeps it across
 *   exits (SVM's EVENTINJ) before anything that may inject: a port
 *   device's line reaches the APIC, which injects at once.
 * - PMU: the sw-lazy (and AMD hw) loops use the same table while the PMU
 *   needs no hook, but a WRMSR that pmu_vcpu_msr_write_needs_switch names
 *   goes to the vendor's PMU world switch; sw and sw-noelide switch around
 *   every exit and use no fast table.
 */
#ifndef MHV_FAST_EXIT_H
#define MHV_FAST_EXIT_H

#include "vm.h"
#include "arch/msr.h"
#include "host/cpu_features.h"
#include "lib/guest_abi.h"
#include "lib/nospec.h"

/* The leaves guest_cpuid() answers other than from the view as it is:
 * per-vCPU bits (1, 0xB, 0x1F), sub-leaves (host/cpuid_subleaf.h); the
 * others up to max_std (max_ext) are the view's fast_std (fast_ext),
 * cpuid_guest.c. */
#define CPUID_FAST_SLOW_LEAVES (BIT(0x1) | BIT(0xb) | BIT(0x1f) | CPUID_STD_INDEXED)

/* The view's answer for a leaf that needs nothing else; NULL for the
 * others (guest_cpuid_any()). */
static inline const struct cpuid_regs *fast_cpuid(const struct vcpu *vcpu, u32 leaf)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	if (leaf < CPUID_STD_CACHED)
		return (v->fast_std >> leaf) & 1
			   ? &v->std[array_index_nospec_pow2(leaf, CPUID_STD_CACHED)]
			   : NULL;
	if (leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED)
		return (v->fast_ext >> (leaf - CPUID_EXT_BASE)) & 1
			   ? &v->ext[array_index_nospec(leaf - CPUID_EXT_BASE, CPUID_EXT_CACHED)]
			   : NULL;
	return NULL;
}

/* RDMSR of IA32_TSC_ADJUST and the WRMSR that rewrites its value
 * (core/msr.c); other MSRs and values take the general path. */
static inline bool fast_msr_index(u32 index)
{
	return index == MSR_IA32_TSC_ADJUST;
}

static inline void fast_msr_read(const struct vcpu *vcpu, u32 index, u64 *val)
{
	*val = vcpu->tsc_adjust;
}

static inline bool fast_msr_write(const struct vcpu *vcpu, u32 index, u64 val)
{
	return val == vcpu->tsc_adjust;
}

#endif
