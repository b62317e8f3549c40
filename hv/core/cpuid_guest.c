// SPDX-License-Identifier: MIT
/*
 * Guest CPUID, answered from the VM's view of the init-time cache (never
 * host CPUID on an exit).  The guest sees what the allowlist
 * (cpuid_allow.c) passes of the host's leaves, plus the hypervisor bit
 * and mhv's own leaves, less what its description (core/vm_config.h)
 * leaves out; built once per VM by vm_init, as KVM takes a vCPU's CPUID
 * from KVM_SET_CPUID2, so a CPUID exit pays nothing for it.  The MSRs and
 * devices ask the same view what the VM has.
 */
#include "host/cpu_features.h"
#include "cpuid_allow.h"
#include "exit_dispatch.h"
#include "fast_exit.h"
#include "lib/guest_abi.h"
#include "lib/nospec.h"
#include "platform/host_timer.h"
#include "platform/machine.h"
#include "pmu/pmu_vcpu.h"
#include "vm.h"
#include "vm_config.h"
#include "vcpu.h"
#include "arch/regs.h"

#define HV_LEAF_BASE 0x40000000u
#define HV_LEAF_MAX 0x40000001u
#define HV_ABI_VERSION 1
#define CPUID1_ECX_OSXSAVE BIT(27)

enum {
	R_EAX,
	R_EBX,
	R_ECX,
	R_EDX
};

struct cpuid_edit {
	u32 leaf;
	u8 reg;
	u32 clear, set;
};

/*
 * mhv's own bits, set on top of the allowlist (cpuid_allow.c), which
 * hides every feature bit it does not name.  Bit positions: SDM Vol 2A
 * CPUID.  The PMU's leaves and bits: pmu_adjust_guest_cpuid.
 */
static const struct cpuid_edit cpuid_edits[] = {
	/* hypervisor; x2APIC and TSC-deadline from mhv's virtual APIC;
	 * OSXSAVE follows the vCPU's CR4 (cpuid_per_vcpu) */
	{ 0x1, R_ECX, CPUID1_ECX_OSXSAVE, BIT(31) | CPUID1_ECX_X2APIC | BIT(24) },
	{ 0x1, R_EBX, 0xff000000u, 0 }, /* initial APIC ID 0 */
};

/* "mhvmhvmhvmhv" in EBX, ECX, EDX, as hypervisor signatures go. */
static struct cpuid_regs hv_leaves[] = {
	{ HV_LEAF_MAX, 0x6d76686d, 0x686d7668, 0x76686d76 },
	{ HV_ABI_VERSION, 0, 0, 0 },
};

static void apply_edits(u32 leaf, struct cpuid_regs *r)
{
	u32 *regs[] = { &r->eax, &r->ebx, &r->ecx, &r->edx };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cpuid_edits); i++) {
		const struct cpuid_edit *e = &cpuid_edits[i];

		if (e->leaf == leaf)
			*regs[e->reg] = (*regs[e->reg] & ~e->clear) | e->set;
	}
}

static void build_view(struct cpuid_cache *view, const struct vm_config *config)
{
	u32 i;

	*view = host_cpu.cpuid;
	cpuid_allow_apply(view);
	for (i = 0; i < CPUID_STD_CACHED; i++)
		apply_edits(i, &view->std[i]);
	for (i = 0; i < CPUID_EXT_CACHED; i++)
		apply_edits(CPUID_EXT_BASE + i, &view->ext[i]);
	/* No usable CPUID.0xD cache: no XSAVE for guests rather than wrong sizes */
	if (!host_xstate.valid)
		view->std[1].ecx &= ~BIT(26);
	if (backend->adjust_guest_cpuid)
		backend->adjust_guest_cpuid(view);
	/* the VM's own features: its PMU mode's leaves, its x2APIC */
	pmu_adjust_guest_cpuid(view, pmu_mode_guest_pmu(config->pmu));
	if (config->no_x2apic)
		view->std[1].ecx &= ~CPUID1_ECX_X2APIC;
}

static void limit_view(struct cpuid_cache *limited, const struct cpuid_cache *view)
{
	*limited = *view;
	if (limited->max_std > 2) {
		limited->max_std = 2;
		limited->std[0].eax = 2;
	}
}

static void set_fast_leaves(struct cpuid_cache *view)
{
	u32 upto = view->max_std < 31 ? (u32)BIT(view->max_std + 1) - 1 : ~0u;
	u32 ext = view->max_ext - CPUID_EXT_BASE;

	view->fast_std = upto & ~(u32)CPUID_FAST_SLOW_LEAVES;
	view->fast_ext = 0;
	if (view->max_ext >= CPUID_EXT_BASE)
		view->fast_ext = (ext < 63 ? BIT(ext + 1) - 1 : ~0ull) & ~CPUID_EXT_INDEXED;
}

void guest_cpuid_init(void)
{
	const char *why;

	if (host_timer_available(&why))
		hv_leaves[1].ebx |= HV_FEATURE_TIMER;
	if (!__builtin_strcmp(platform_env(), "qemu-tcg"))
		hv_leaves[1].ebx |= HV_FEATURE_LOOSE_WINDOWS;
}

/*
 * The VM's views: as its description says, and the same with
 * IA32_MISC_ENABLE.LIMIT_CPUID set (leaf 0 reports 2 as the highest basic
 * leaf, and the leaves above it are out of range, SDM Vol 4 Table 2-2,
 * but for XSTATE's leaf 0xD, answered first for its benchmark's sake).
 * A WRMSR switches the vCPU between them, CPUID exits pay nothing.
 */
void guest_cpuid_build(struct vm *vm)
{
	build_view(&vm->cpuid, vm->config);
	limit_view(&vm->cpuid_limited, &vm->cpuid);
	set_fast_leaves(&vm->cpuid);
	set_fast_leaves(&vm->cpuid_limited);
}

#define PER_VCPU_LEAVES (BIT(0x1) | BIT(0xb) | BIT(0x1f))

/*
 * Bits that follow the vCPU's own state (SDM Vol 2A CPUID): leaf 1's
 * initial APIC ID in EBX[31:24], OSXSAVE = CR4.OSXSAVE, and the APIC flag
 * EDX[9], clear while IA32_APIC_BASE disables the APIC; leaves 0xB and
 * 0x1F's x2APIC ID in EDX.
 */
static void cpuid_per_vcpu(struct vcpu *vcpu, u32 leaf, struct cpuid_regs *r)
{
	if (leaf != 1) {
		r->edx = vcpu->index;
		return;
	}
	r->ebx |= vcpu->index << 24;
	if (backend->guest_cr4(vcpu) & CR4_OSXSAVE)
		r->ecx |= CPUID1_ECX_OSXSAVE;
	if (!apic_enabled(&vcpu->apic))
		r->edx &= ~BIT(9);
}

/*
 * Sub-leaves from 1 up of the ECX-indexed leaves: 7.1 from its slot, the
 * others each its own answer and zeros past the last (host/cpuid_subleaf.h).
 * Out of line: inlined, its registers cost every CPUID exit a push and a pop.
 */
static __attribute__((noinline)) void guest_cpuid_subleaf(struct vcpu *vcpu, u32 leaf, u32 subleaf,
							  struct cpuid_regs *r)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;
	const struct cpuid_regs *s;

	if (leaf == 7 && subleaf == 1) {
		*r = v->leaf7_1;
		return;
	}
	s = cpuid_subleaf_find(&v->subs, leaf, subleaf);
	*r = s ? *s : (struct cpuid_regs){ 0, 0, 0, 0 };
	if (leaf < 32 && ((PER_VCPU_LEAVES >> leaf) & 1))
		cpuid_per_vcpu(vcpu, leaf, r);
	/* 0xB and 0x1F echo the level number in ECX[7:0], past the last level
	 * too (SDM Vol 2A CPUID leaf 0BH; APM Vol 3 CPUID Fn0000_000B) */
	if (leaf == 0xb || leaf == 0x1f)
		r->ecx = (r->ecx & ~0xffu) | (subleaf & 0xff);
}

/* Inlined into handle_cpuid: this is the hot path of every CPUID exit. */
static inline __attribute__((always_inline)) void guest_cpuid(struct vcpu *vcpu, u32 leaf,
							      u32 subleaf, struct cpuid_regs *r)
{
	const struct cpuid_cache *v = vcpu->cpuid_view;

	if (leaf == 0xd) {
		xstate_guest_cpuid(vcpu, subleaf, r);
		return;
	}
	if (leaf < CPUID_STD_CACHED && leaf <= v->max_std) {
		if (unlikely(subleaf) && cpuid_leaf_indexed(leaf)) {
			guest_cpuid_subleaf(vcpu, leaf, subleaf, r);
			return;
		}
		*r = v->std[array_index_nospec(leaf, CPUID_STD_CACHED)];
		/* the leaves that differ per vCPU (1, 0xB, 0x1F) are all odd: one
		 * test of bit 0 on the way of the others (the exit gate) */
		if (unlikely(leaf & 1) && ((PER_VCPU_LEAVES >> leaf) & 1))
			cpuid_per_vcpu(vcpu, leaf, r);
	} else if (leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED && leaf <= v->max_ext) {
		if (unlikely(subleaf) && cpuid_leaf_indexed(leaf)) {
			guest_cpuid_subleaf(vcpu, leaf, subleaf, r);
			return;
		}
		*r = v->ext[array_index_nospec(leaf - CPUID_EXT_BASE, CPUID_EXT_CACHED)];
	} else if (leaf - HV_LEAF_BASE <= HV_LEAF_MAX - HV_LEAF_BASE) {
		*r = hv_leaves[array_index_nospec(leaf - HV_LEAF_BASE,
						  HV_LEAF_MAX - HV_LEAF_BASE + 1)];
		if (leaf == HV_LEAF_MAX) {
			/* per VM: its PMU mode and what emulated instructions it counts */
			r->ecx = vcpu->pmu_mode;
			r->edx = vcpu->pmu_account;
		}
	} else {
		*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	}
}

void guest_cpuid_any(struct vcpu *vcpu, u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	guest_cpuid(vcpu, leaf, subleaf, r);
}

void handle_cpuid(struct vcpu *vcpu, const struct vm_exit *exit)
{
	u64 *g = vcpu->regs.gpr;
	struct cpuid_regs r;

	guest_cpuid(vcpu, (u32)g[GPR_RAX], (u32)g[GPR_RCX], &r);
	g[GPR_RAX] = r.eax;
	g[GPR_RBX] = r.ebx;
	g[GPR_RCX] = r.ecx;
	g[GPR_RDX] = r.edx;
	vcpu_skip_insn(vcpu, exit);
}
