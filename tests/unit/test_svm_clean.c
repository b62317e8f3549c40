// SPDX-License-Identifier: MIT
/*
 * VMCB clean bits (APM Vol 2 §15.15.3): every backend op that writes the
 * VMCB while the vCPU runs must mark the group of each field it changed
 * dirty, or a CPU that keeps its copy of the groups marked clean enters
 * the guest with the old value.  The checker below is a model of such a
 * CPU's groups, written from the manual's list apart from hv/svm/vmcb.h:
 * each op runs on a VMCB whose groups are all clean, as after the general
 * exit path's store, and every byte it changed must lie in no group, in
 * a group it marked dirty, or in the TPR group that mhv never marks clean.
 * The guests check the same on the pinned Bochs (patch 0011) for the
 * fields they can see; this covers those they cannot (CR2, G_PAT).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "svm/svm.h"
#include "svm/svm_exit.h"
#include "core/backend.h"
#include "core/guest_cr.h"
#include "core/msr_policy.h"
#include "core/vcpu.h"
#include "core/vm.h"
#include "host/cpu_features.h"
#include "host/page_alloc.h"
#include "host/paging.h"
#include "platform/console.h"
#include "pmu/pmu_vcpu.h"
#include "arch/ctlreg.h"
#include "arch/regs.h"
#include "arch/x86.h"

/* What svm_vcpu.c links against, none of it reached by the ops tested */
struct host_cpu host_cpu;
bool svm_has_nrips;
const struct msr_passthrough msr_passthrough[1];
const unsigned msr_passthrough_count;

void *alloc_pages_zeroed(u64 npages)
{
	void *p = aligned_alloc(4096, npages * 4096);

	assert_non_null(p);
	memset(p, 0, npages * 4096);
	return p;
}

void *host_pt_alloc_page(struct pt_ctx *ctx, u64 *phys)
{
	return NULL;
}

void *host_pt_phys_to_virt(struct pt_ctx *ctx, u64 phys)
{
	return NULL;
}

int vm_map_nested(struct vm *vm, struct pt_ctx *ctx, u64 gpa, u64 hpa, u64 size, u64 leaf_flags)
{
	return 0;
}

u64 guest_cr4_hidden(const struct vcpu *vcpu)
{
	return 0;
}

int console_printf(const char *fmt, ...)
{
	return 0;
}

void pmu_vcpu_stopped(struct vcpu *vcpu)
{
}

void svm_pmu_setup(struct vcpu *vcpu, struct svm_vcpu *s)
{
}

void svm_pmu_first_entry(struct vcpu *vcpu, struct vmcb *vmcb)
{
}

int svm_cpu_enable(const char **why)
{
	return 0;
}

void svm_idle_wait(void)
{
}

exit_handler_fn *const exit_handlers[EXIT_KIND_COUNT];

svm_run_loop_fn *const svm_run_loops[SVM_LOOP_KINDS][2][DUTY_SETS];

/* The model: VMCB offsets of each clean-bit group (APM Vol 2 §15.15.3) */
static const struct {
	unsigned lo, hi, bit;
} groups[] = {
	{ 0x000, 0x017, 0 },  /* intercept vectors */
	{ 0x03c, 0x03f, 0 },  /* pause filter threshold, count */
	{ 0x050, 0x057, 0 },  /* TSC offset */
	{ 0x040, 0x04f, 1 },  /* IOPM, MSRPM base */
	{ 0x058, 0x05b, 2 },  /* ASID */
	{ 0x060, 0x067, 3 },  /* V_TPR ... V_INTR_VECTOR */
	{ 0x090, 0x097, 4 },  /* NP_ENABLE */
	{ 0x0b0, 0x0b7, 4 },  /* nCR3 */
	{ 0x668, 0x66f, 4 },  /* G_PAT */
	{ 0x4d0, 0x4d7, 5 },  /* EFER */
	{ 0x548, 0x55f, 5 },  /* CR4, CR3, CR0 */
	{ 0x560, 0x56f, 6 },  /* DR7, DR6 */
	{ 0x460, 0x46f, 7 },  /* GDTR */
	{ 0x480, 0x48f, 7 },  /* IDTR */
	{ 0x400, 0x43f, 8 },  /* ES, CS, SS, DS */
	{ 0x4cb, 0x4cb, 8 },  /* CPL */
	{ 0x640, 0x647, 9 },  /* CR2 */
	{ 0x670, 0x697, 10 }, /* DBGCTL, LBRs */
	{ 0x5e0, 0x5f7, 12 }, /* S_CET, SSP, ISST_ADDR */
};
#define GROUP_TPR 3

static int group_of(unsigned offset)
{
	unsigned i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (offset >= groups[i].lo && offset <= groups[i].hi)
			return groups[i].bit;
	return -1;
}

static struct vm vm;
static struct vcpu vcpu;
static struct vmcb *vmcb;
static u8 before[sizeof(struct vmcb)];

/* Offset of the first byte changed since snap() in a group still marked
 * clean, or -1. */
static int stale_field(void)
{
	const u8 *now = (const u8 *)vmcb;
	unsigned off;

	for (off = 0; off < sizeof(before); off++) {
		int g = group_of(off);

		if (now[off] == before[off] || off / 4 == 0xc0 / 4 || g < 0 || g == GROUP_TPR)
			continue;
		if (vmcb->control.clean_bits & (1u << g))
			return (int)off;
	}
	return -1;
}

/* The state after the general exit path's store: nothing written since */
static void snap(void)
{
	vmcb->control.clean_bits = SVM_CLEAN_AFTER_EXIT;
	memcpy(before, vmcb, sizeof(before));
}

static int setup(void **state)
{
	struct backend_error err;

	memset(&vm, 0, sizeof(vm));
	memset(&vcpu, 0, sizeof(vcpu));
	vm.nr_vcpus = 1;
	vcpu.vm = &vm;
	host_cpu.phys_bits = 48;
	host_cpu.nr_asids = 16;
	host_cpu.has.flush_by_asid = true;
	assert_int_equal(svm_backend.vcpu_create(&vcpu, 0x1000, 0x7000, 39, &err), BACKEND_OK);
	vmcb = ((struct svm_vcpu *)vcpu.vendor)->vmcb;
	svm_exit_table_init();
	svm_nmi_exits_init();
	return 0;
}

static void tpr_never_clean(void **state)
{
	assert_int_equal(SVM_CLEAN_AFTER_EXIT & (1u << GROUP_TPR), 0);
	assert_int_equal(SVM_CLEAN_AFTER_EXIT & VMCB_CLEAN_TPR, 0);
}

/* The checker can fail: a write with no mark is caught. */
static void checker_catches_unmarked(void **state)
{
	snap();
	vmcb->save.cr2 = 0x1234;
	assert_int_equal(stale_field(), 0x640);
	snap();
	vmcb->save.g_pat ^= 1ull << 8;
	assert_int_equal(stale_field(), 0x669);
}

static void set_state_ops(void **state)
{
	snap();
	assert_true(svm_backend.set_tsc_offset(&vcpu, 0x123456789ull));
	assert_int_equal(stale_field(), -1);
	snap();
	assert_true(svm_backend.set_guest_cr(&vcpu, 0, vmcb->save.cr0 ^ CR0_WP));
	assert_int_equal(stale_field(), -1);
	snap();
	assert_true(svm_backend.set_guest_cr(&vcpu, 4, vmcb->save.cr4 ^ CR4_PGE));
	assert_int_equal(stale_field(), -1);
	snap();
	svm_backend.set_guest_efer(&vcpu, (vmcb->save.efer ^ EFER_SCE) & ~EFER_SVME);
	assert_int_equal(stale_field(), -1);
	snap();
	svm_backend.set_guest_pat(&vcpu, 0x0007040600070406ull);
	assert_int_equal(stale_field(), -1);
	snap();
	svm_backend.set_guest_cr2(&vcpu, 0xdead000);
	assert_int_equal(stale_field(), -1);
}

static void event_ops(void **state)
{
	snap();
	svm_backend.request_interrupt_window(&vcpu, true);
	assert_int_equal(stale_field(), -1);
	snap();
	svm_backend.request_interrupt_window(&vcpu, false);
	assert_int_equal(stale_field(), -1);
	snap();
	svm_backend.inject_interrupt(&vcpu, 0x30);
	svm_backend.end_interrupt_shadow(&vcpu);
	assert_int_equal(stale_field(), -1);
	vmcb->control.event_inj = 0;
	snap();
	svm_backend.inject_exception(&vcpu, 13, true, 0);
	assert_int_equal(stale_field(), -1);
	vmcb->control.event_inj = 0;
}

/* NMI blocking in software: the IRET intercept on and off, mhv's single
 * step over the handler's IRET (TF in RFLAGS, in no group) and its #DB
 * (DR6 put back) */
static void nmi_ops(void **state)
{
	struct vm_exit exit;

	snap();
	svm_backend.inject_nmi(&vcpu);
	assert_int_equal(stale_field(), -1);
	vmcb->control.event_inj = 0;
	snap();
	vmcb->control.exit_code = SVM_EXIT_IRET;
	memset(&exit, 0, sizeof(exit));
	svm_exit_table[SVM_EXIT_IRET].decode(vmcb, &vcpu.regs, &exit);
	assert_int_equal(stale_field(), -1);
	snap();
	vcpu.regs.rip = 0x5000;
	svm_backend.request_nmi_window(&vcpu);
	assert_int_equal(stale_field(), -1);
	vmcb->save.dr6 |= DR6_BS;
	snap();
	memset(&exit, 0, sizeof(exit));
	svm_exit_table[SVM_EXIT_EXCP_BASE + VECTOR_DB].decode(vmcb, &vcpu.regs, &exit);
	assert_int_equal(stale_field(), -1);
}

/* TF over an instruction mhv completed: DR6.BS, DR7.GD, and an NMI waiting
 * for injection taken back (the IRET intercept off) */
static void single_step_ops(void **state)
{
	snap();
	svm_backend.inject_nmi(&vcpu);
	vmcb->save.dr7 |= DR7_GD;
	snap();
	assert_int_equal(svm_backend.single_step_trap(&vcpu), BACKEND_REQUEUE_NMI);
	assert_int_equal(stale_field(), -1);
	vmcb->control.event_inj = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tpr_never_clean), cmocka_unit_test(checker_catches_unmarked),
		cmocka_unit_test(set_state_ops),   cmocka_unit_test(event_ops),
		cmocka_unit_test(nmi_ops),	   cmocka_unit_test(single_step_ops),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
