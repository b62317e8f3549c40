// SPDX-License-Identifier: MIT
/*
 * Guest CPUID, answered from the init-time cache (never host CPUID on an
 * exit).  The guest sees the host's leaves minus what mhv does not
 * virtualize, plus the hypervisor bit and mhv's own leaves.
 */
#include "cpu.h"
#include "exit_dispatch.h"
#include "guest_abi.h"
#include "host_timer.h"
#include "platform.h"
#include "vm.h"
#include "vcpu.h"

#define HV_LEAF_BASE 0x40000000u
#define HV_LEAF_MAX 0x40000001u
#define HV_ABI_VERSION 1
#define CR4_OSXSAVE BIT(18)
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

/* Bit positions: SDM Vol 2A CPUID; APM Vol 3 Appendix E */
static const struct cpuid_edit cpuid_edits[] = {
	/* no VMX; hypervisor; x2APIC and TSC-deadline from mhv's virtual APIC */
	{ 0x1, R_ECX, BIT(5) | CPUID1_ECX_OSXSAVE, BIT(31) | BIT(21) | BIT(24) },
	{ 0x1, R_EBX, 0xff000000u, 0 }, /* initial APIC ID 0 */
	{ 0xa, R_EAX, 0xffffffffu, 0 }, /* no architectural PMU (PMU off) */
	{ 0xa, R_EBX, 0xffffffffu, 0 },
	{ 0xa, R_ECX, 0xffffffffu, 0 },
	{ 0xa, R_EDX, 0xffffffffu, 0 },
	{ 0x80000001, R_ECX, BIT(2) | BIT(23), 0 }, /* no SVM, no PerfCtrExtCore */
	{ 0x80000022, R_EAX, 0xffffffffu, 0 },	    /* no PerfMonV2 (PMU off) */
	{ 0x80000022, R_EBX, 0xffffffffu, 0 },
	{ 0x8000000a, R_EAX, 0xffffffffu, 0 }, /* no SVM features */
	{ 0x8000000a, R_EBX, 0xffffffffu, 0 },
	{ 0x8000000a, R_ECX, 0xffffffffu, 0 },
	{ 0x8000000a, R_EDX, 0xffffffffu, 0 },
};

/* "mhvmhvmhvmhv" in EBX, ECX, EDX, as hypervisor signatures go. */
static struct cpuid_regs hv_leaves[] = {
	{ HV_LEAF_MAX, 0x6d76686d, 0x686d7668, 0x76686d76 },
	{ HV_ABI_VERSION, 0, 0, 0 },
};

/*
 * The guest's view, computed once from the host cache: an exit only
 * indexes it (and patches the one bit that follows the guest's CR4).
 */
static struct cpuid_cache guest_view;

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

void guest_cpuid_init(void)
{
	u32 i;

	const char *why;

	guest_view = host_cpu.cpuid;
	if (host_timer_available(&why))
		hv_leaves[1].ebx |= HV_FEATURE_TIMER;
	if (!__builtin_strcmp(platform_env(), "qemu-tcg"))
		hv_leaves[1].ebx |= HV_FEATURE_LOOSE_WINDOWS;
	for (i = 0; i < CPUID_STD_CACHED; i++)
		apply_edits(i, &guest_view.std[i]);
	for (i = 0; i < CPUID_EXT_CACHED; i++)
		apply_edits(CPUID_EXT_BASE + i, &guest_view.ext[i]);
	/* No usable CPUID.0xD cache: no XSAVE for guests rather than wrong sizes */
	if (!host_xstate.valid)
		guest_view.std[1].ecx &= ~BIT(26);
	if (backend->adjust_guest_cpuid)
		backend->adjust_guest_cpuid(&guest_view);
}

void guest_cpuid(struct vcpu *vcpu, u32 leaf, u32 subleaf, struct cpuid_regs *r)
{
	const struct cpuid_cache *v = &guest_view;

	if (leaf == 0xd) {
		xstate_guest_cpuid(vcpu, subleaf, r);
		return;
	}
	if (leaf < CPUID_STD_CACHED && leaf <= v->max_std) {
		*r = leaf == 7 && subleaf == 1 ? v->leaf7_1 : v->std[leaf];
		/* OSXSAVE mirrors the guest's own CR4 (SDM Vol 2A CPUID.01H:ECX[27]) */
		if (leaf == 1 && (backend->guest_cr4(vcpu) & CR4_OSXSAVE))
			r->ecx |= CPUID1_ECX_OSXSAVE;
	} else if (leaf - CPUID_EXT_BASE < CPUID_EXT_CACHED && leaf <= v->max_ext) {
		*r = v->ext[leaf - CPUID_EXT_BASE];
	} else if (leaf - HV_LEAF_BASE <= HV_LEAF_MAX - HV_LEAF_BASE) {
		*r = hv_leaves[leaf - HV_LEAF_BASE];
	} else {
		*r = (struct cpuid_regs){ 0, 0, 0, 0 };
	}
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
