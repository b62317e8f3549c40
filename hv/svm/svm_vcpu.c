// SPDX-License-Identifier: MIT
/* SVM vCPUs: VMCB set-up, nested page table, permission maps, VMRUN. */
#include "svm.h"
#include "svm_exit.h"
#include "svm_vmcb_check.h"
#include "platform/console.h"
#include "lib/guest_abi.h"
#include "host/paging.h"
#include "core/msr_policy.h"
#include "host/cpu_features.h"
#include "host/page_alloc.h"
#include "arch/pagetable.h"
#include "pmu/pmu_vcpu.h"
#include "core/vcpu.h"
#include "core/vm.h"
#include "core/guest_cr.h"
#include "arch/msr.h"
#include "arch/ctlreg.h"
#include "arch/regs.h"
#include "arch/segment.h"
#include "arch/x86.h"

#define MSRPM_PAGES (SVM_MSRPM_SIZE / PAGE_SIZE)
#define IOPM_PAGES (SVM_IOPM_SIZE / PAGE_SIZE)

/* NPT walks are user accesses: every level needs U/S (APM Vol 2 §15.25.5). */
static struct pt_ctx npt_ctx = {
	.alloc_page = host_pt_alloc_page,
	.phys_to_virt = host_pt_phys_to_virt,
	.table_flags = PTE_P | PTE_RW | PTE_US,
};

static int svm_map_ram(struct vm *vm, u64 gpa, u64 hpa, u64 size)
{
	return vm_map_nested(vm, &npt_ctx, gpa, hpa, size, PTE_P | PTE_RW | PTE_US);
}

void svm_msrpm_allow(u8 *msrpm, u32 msr, bool read, bool write)
{
	/* Three 2 KiB blocks, two bits per MSR: read, then write (APM Vol 2 §15.11) */
	static const struct {
		u32 base, offset;
	} blocks[] = { { 0x00000000, 0x000 }, { 0xc0000000, 0x800 }, { 0xc0010000, 0x1000 } };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(blocks); i++) {
		u32 n = msr - blocks[i].base;

		if (msr >= blocks[i].base && n < 0x2000) {
			u8 bits = (read ? 1 : 0) | (write ? 2 : 0);

			msrpm[blocks[i].offset + n / 4] &= ~(bits << ((n % 4) * 2));
			return;
		}
	}
}

static void set_segment(struct vmcb_segment *s, u16 sel, u16 attr, u32 limit, u64 base)
{
	s->selector = sel;
	s->attrib = attr;
	s->limit = limit;
	s->base = base;
}

/*
 * The multiboot entry state (Multiboot Specification §3.2): 32-bit
 * protected mode, paging off.  The flat data segments are the 64-bit
 * guests' (SEG_ATTR_DATA has D/B and G); only CS changes: L off, D/B on
 * (attributes packed as APM Vol 2 §15.5.1).
 */
#define SEG_ATTR_CODE32 0xc9b

static void svm_boot32(struct vmcb_save_area *g)
{
	g->cs.attrib = SEG_ATTR_CODE32;
	set_segment(&g->gdtr, 0, 0, 0, 0);
	g->efer = EFER_SVME;
	g->cr0 = CR0_PE | CR0_ET | CR0_NE;
	g->cr4 = 0;
	g->cr3 = 0;
}

/*
 * An external guest entering in 64-bit mode (the kernel's x86 boot.rst,
 * 64-bit boot protocol): mhv's 64-bit state, with CS = __BOOT_CS and the
 * data segments __BOOT_DS of the GDT the loader wrote.
 */
static void svm_boot64(struct vmcb_save_area *g)
{
	g->cs.selector = GUEST_BOOT64_CS;
	g->ds.selector = GUEST_BOOT64_DS;
	g->es.selector = GUEST_BOOT64_DS;
	g->ss.selector = GUEST_BOOT64_DS;
	g->fs.selector = GUEST_BOOT64_DS;
	g->gs.selector = GUEST_BOOT64_DS;
}

/*
 * An AP's state after INIT-SIPI (SDM Vol 3 §10.1.1 Table 10-1 for the
 * reset values; §9.4.4: CS = vector << 8, base vector << 12, IP 0): real
 * mode, which SVM runs directly with nested paging (APM Vol 2 §15.25.1).
 * Attributes: P, S, type (code 0x9b, data 0x93, busy TSS 0x8b, LDT 0x82).
 */
static void svm_boot_real(struct vmcb_save_area *g, u8 vector)
{
	set_segment(&g->cs, vector << 8, 0x9b, 0xffff, (u64)vector << 12);
	set_segment(&g->ds, 0, 0x93, 0xffff, 0);
	set_segment(&g->es, 0, 0x93, 0xffff, 0);
	set_segment(&g->ss, 0, 0x93, 0xffff, 0);
	set_segment(&g->fs, 0, 0x93, 0xffff, 0);
	set_segment(&g->gs, 0, 0x93, 0xffff, 0);
	set_segment(&g->gdtr, 0, 0, 0xffff, 0);
	set_segment(&g->idtr, 0, 0, 0xffff, 0);
	set_segment(&g->ldtr, 0, 0x82, 0xffff, 0);
	set_segment(&g->tr, 0, 0x8b, 0xffff, 0);
	g->efer = EFER_SVME;
	g->cr0 = CR0_ET | CR0_NE;
	g->cr4 = 0;
	g->cr3 = 0;
	g->cpl = 0;
}

/* The MSR and I/O permission maps: everything exits but the pass-through MSRs. */
static enum backend_err svm_alloc_maps(const struct vcpu *vcpu, struct svm_vcpu *s,
				       struct backend_error *err)
{
	unsigned i;

	s->msrpm = alloc_pages_zeroed(MSRPM_PAGES);
	s->iopm = alloc_pages_zeroed(IOPM_PAGES);
	if (!s->msrpm || !s->iopm)
		return backend_fail(err, BACKEND_ERR_NO_MEMORY,
				    "no memory for the MSR and I/O permission maps (%llu pages)",
				    MSRPM_PAGES + IOPM_PAGES);
	__builtin_memset(s->msrpm, 0xff, MSRPM_PAGES * PAGE_SIZE);
	__builtin_memset(s->iopm, 0xff, IOPM_PAGES * PAGE_SIZE);
	for (i = 0; i < msr_passthrough_count; i++)
		if (!msr_passthrough[i].available || msr_passthrough[i].available(vcpu))
			svm_msrpm_allow(s->msrpm, msr_passthrough[i].index, msr_passthrough[i].read,
					msr_passthrough[i].write);
	return BACKEND_OK;
}

/* The intercepts, the maps, the ASID, nested paging and the virtual
 * interrupt controls. */
/* Hidden CR4 bits a guest may set without mhv's intercept (see below). */
#define CR4_UNINTERCEPTED_HIDDEN CR4_CET

static void svm_init_controls(struct vcpu *vcpu, struct svm_vcpu *s)
{
	struct vmcb_control_area *c = &s->vmcb->control;

	/* SMIs too, as KVM does: the firmware's SMM handler then runs from
	 * the host's context, at the general exit path's STGI, never from the
	 * guest's (APM Vol 2 §15.22.2, Response to SMI). */
	c->intercept_misc1 = INTERCEPT_INTR | INTERCEPT_NMI | INTERCEPT_SMI | INTERCEPT_RDPMC |
			     INTERCEPT_CPUID | INTERCEPT_INVD | INTERCEPT_HLT | INTERCEPT_INVLPGA |
			     INTERCEPT_IOIO_PROT | INTERCEPT_MSR_PROT | INTERCEPT_SHUTDOWN;
	/*
	 * CR4: the CPU refuses the bits it does not implement (APM Vol 2
	 * §3.1.3), but would let the guest set those it has and the guest's
	 * CPUID hides: only then are CR4 writes intercepted (guest_cr.c
	 * refuses them), an exit per write.  Otherwise they cost nothing,
	 * as on VMX where only the hidden bits are in the CR4 mask.
	 * CR4.CET alone does not turn the intercept on: the guest's CPUID
	 * hides CET (core/cpuid_allow.c) but every Zen 3 and later has it,
	 * and the exit per CR4 write would land on every guest TLB flush
	 * that toggles CR4.PGE (Bochs zen5: 9 -> 1911 instructions).  A guest
	 * that sets it anyway reaches only its own state: the CET state
	 * components are reset for every vCPU (xstate/xss_allow.c), and
	 * the CET MSRs stay intercepted.
	 */
	if (guest_cr4_hidden(vcpu) & ~CR4_UNINTERCEPTED_HIDDEN)
		c->intercept_cr_write = INTERCEPT_CR4_WRITE;
	c->intercept_misc2 = INTERCEPT_VMRUN | INTERCEPT_VMMCALL | INTERCEPT_VMLOAD |
			     INTERCEPT_VMSAVE | INTERCEPT_STGI | INTERCEPT_CLGI | INTERCEPT_SKINIT |
			     INTERCEPT_WBINVD | INTERCEPT_XSETBV;
	/* #DB and #AC always: a guest can otherwise wedge the CPU in an
	 * endless chain of them (CVE-2015-5307, CVE-2015-8104).  #MC: a
	 * machine check while the guest runs is the host's, and the host's
	 * handler is not called for an intercepted one (APM Vol 2 §15.12). */
	c->intercept_exceptions = BIT(VECTOR_DB) | BIT(VECTOR_AC) | BIT(VECTOR_MC);
	c->iopm_base_pa = (u64)(uintptr_t)s->iopm;
	c->msrpm_base_pa = (u64)(uintptr_t)s->msrpm;
	c->guest_asid = 1 + vcpu->vm->id % (host_cpu.nr_asids > 1 ? host_cpu.nr_asids - 1 : 1);
	c->tlb_control = TLB_CONTROL_FLUSH_ALL;
	c->int_ctl = INT_CTL_V_INTR_MASKING; /* host IF governs physical interrupts */
	/* With V_INTR_MASKING the guest's CR8 is V_TPR, bits 3:0 of int_ctl:
	 * the APIC's TPR bits 7:4 (APM Vol 2 §15.21.4); the vAPIC keeps its
	 * TPR there, so that MOV to CR8 needs no exit. */
	apic_set_cr8_home(&vcpu->apic, (u8 *)&c->int_ctl, 4);
	c->nested_ctl = NESTED_CTL_NP_ENABLE;
	c->nested_cr3 = vcpu->vm->npt_root;

	/* PAUSE filter where vCPUs can wait on each other (APM Vol 2 §15.14.4);
	 * KVM's defaults: 3000 PAUSEs, 128 cycles between them */
	if (vcpu->vm->nr_vcpus > 1 && host_cpu.has.pause_filter) {
		c->intercept_misc1 |= INTERCEPT_PAUSE;
		c->pause_filter_count = 3000;
		c->pause_filter_threshold = 128;
	}
}

/* The guest's state at its first VMRUN: 64-bit mode on mhv's page tables
 * and GDT (an external guest's boot mode is set over it afterwards). */
static void svm_init_guest_state(struct vmcb_save_area *g, u64 guest_cr3, u64 guest_gdt,
				 u16 gdt_limit)
{
	set_segment(&g->cs, 0x08, SEG_ATTR_CODE64, 0xffffffff, 0);
	set_segment(&g->ds, 0x10, SEG_ATTR_DATA, 0xffffffff, 0);
	set_segment(&g->es, 0x10, SEG_ATTR_DATA, 0xffffffff, 0);
	set_segment(&g->ss, 0x10, SEG_ATTR_DATA, 0xffffffff, 0);
	set_segment(&g->fs, 0x10, SEG_ATTR_DATA, 0xffffffff, 0);
	set_segment(&g->gs, 0x10, SEG_ATTR_DATA, 0xffffffff, 0);
	set_segment(&g->gdtr, 0, 0, gdt_limit, guest_gdt);
	set_segment(&g->tr, GUEST_TSS_SEL, SEG_ATTR_TSS64, 0x67, GUEST_TSS);
	g->efer = EFER_LME | EFER_LMA | EFER_SVME | (host_cpu.has.nx ? EFER_NXE : 0);
	g->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	g->cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	g->cr3 = guest_cr3;
	g->rflags = RFLAGS_FIXED1;
	g->dr6 = DR6_INIT;
	g->dr7 = DR7_INIT;
	g->g_pat = PAT_POWER_ON_DEFAULT;
}

static enum backend_err svm_vcpu_create(struct vcpu *vcpu, u64 guest_cr3, u64 guest_gdt,
					u16 gdt_limit, struct backend_error *err)
{
	struct svm_vcpu *s = alloc_page_zeroed();
	struct vmcb *vmcb = alloc_page_zeroed();
	struct vmcb_save_area *g;
	enum backend_err e;
	char why[96];

	if (!s || !vmcb)
		return backend_fail(err, BACKEND_ERR_NO_MEMORY, "no memory for the VMCB");
	s->vmcb = vmcb;
	s->vmcb_pa = (u64)(uintptr_t)vmcb;
	e = svm_alloc_maps(vcpu, s, err);
	if (e)
		return e;
	vcpu->vendor = s;
	/* the VMCB is packed, but RFLAGS sits 8-byte aligned in its page */
	_Static_assert(__builtin_offsetof(struct vmcb, save.rflags) % 8 == 0, "RFLAGS aligned");
	vcpu->guest_rflags =
	    (const u64 *)(const void *)((u8 *)vmcb + __builtin_offsetof(struct vmcb, save.rflags));

	svm_init_controls(vcpu, s);
	g = &vmcb->save;
	svm_init_guest_state(g, guest_cr3, guest_gdt, gdt_limit);
	if (vcpu->boot64)
		svm_boot64(g);
	else if (vcpu->boot32)
		svm_boot32(g);
	if (vcpu->wait_sipi)
		svm_boot_real(g, vcpu->sipi_vector);
	if (vcpu->pmu_mode)
		svm_pmu_setup(vcpu, s);
	if (svm_vmcb_check(vmcb, host_cpu.phys_bits, why, sizeof(why)))
		return backend_fail(err, BACKEND_ERR_GUEST_STATE, "VMRUN would refuse the VMCB: %s",
				    why);
	return BACKEND_OK;
}

/* VMEXIT_INVALID says only that a check failed: name the first one. */
static void svm_explain_invalid(struct vcpu *vcpu, u64 code, char *why, size_t size)
{
	svm_vmcb_check(((struct svm_vcpu *)vcpu->vendor)->vmcb, host_cpu.phys_bits, why, size);
}

static void svm_vcpu_destroy(struct vcpu *vcpu)
{
	/* Pages go back with the VM's allocator mark; nothing cached on the CPU. */
	vcpu->vendor = NULL;
}

static void sync_regs_to_vmcb(struct vcpu *vcpu, struct vmcb *vmcb)
{
	vmcb->save.rip = vcpu->regs.rip;
	vmcb->save.rax = vcpu->regs.gpr[GPR_RAX];
	vmcb->save.rsp = vcpu->regs.gpr[GPR_RSP];
}

/* mhv's single step is over: its TF goes, and its #DB's DR6 bits when
 * the guest was not single-stepping itself. */
static void end_nmi_step(struct svm_vcpu *s, struct vmcb *vmcb, bool own_db)
{
	s->nmi_step = false;
	/* after an IRET, TF is what the IRET loaded */
	if (!s->step_guest_tf && !s->step_over_iret)
		vmcb->save.rflags &= ~RFLAGS_TF;
	if (own_db && !s->step_guest_tf) {
		vmcb->save.dr6 = s->step_dr6;
		svm_vmcb_dirty(vmcb, VMCB_CLEAN_DRX);
	}
}

/* Exit decoders get the guest registers: the start of struct vcpu (vm.h). */
static struct svm_vcpu *decoding_vcpu(const struct guest_regs *regs)
{
	return ((const struct vcpu *)(const void *)regs)->vendor;
}

/* Intercepted while an injected NMI's handler runs: its IRET runs next,
 * and the NMIs are looked at again (EXIT_INTERRUPT_WINDOW). */
static void decode_iret(const struct vmcb *vmcb, const struct guest_regs *regs,
			struct vm_exit *exit)
{
	struct svm_vcpu *s = decoding_vcpu(regs);

	s->vmcb->control.intercept_misc1 &= ~INTERCEPT_IRET;
	svm_vmcb_dirty(s->vmcb, VMCB_CLEAN_INTERCEPTS);
	s->iret_seen = true;
	s->iret_rip = vmcb->save.rip;
}

/*
 * A #DB exit ends the single step mhv armed for a waiting NMI (as KVM's
 * does; not told by DR6.BS, which unpatched Bochs sets only after the
 * intercept: tests/emu/bochs/0006-svm-db-intercept-dr6-first.patch).
 * It is mhv's own unless the guest was stepping itself or a breakpoint
 * of its matched (a B0-B3 bit new since the step began).
 */
static void decode_db(const struct vmcb *vmcb, const struct guest_regs *regs, struct vm_exit *exit)
{
	struct svm_vcpu *s = decoding_vcpu(regs);
	bool own;

	exit->exc.vector = VECTOR_DB;
	exit->exc.has_error = false;
	exit->exc.error_code = 0;
	if (!s->nmi_step)
		return;
	own = !s->step_guest_tf && !(vmcb->save.dr6 & ~s->step_dr6 & DR6_TRAP_BITS);
	if (own)
		exit->kind = EXIT_INTERRUPT_WINDOW;
	end_nmi_step(s, s->vmcb, own);
}

void svm_nmi_exits_init(void)
{
	svm_exit_table[SVM_EXIT_IRET].decode = decode_iret;
	svm_exit_table[SVM_EXIT_EXCP_BASE + VECTOR_DB].decode = decode_db;
}

static inline __attribute__((always_inline)) int handle_exit(struct vcpu *vcpu, struct vmcb *vmcb,
							     bool nrips)
{
	struct vm_exit exit;

	svm_gif_release();
	/* nothing written since the VMRUN that just exited (svm.h) */
	vmcb->control.clean_bits = SVM_CLEAN_AFTER_EXIT;
	vcpu->regs.rip = vmcb->save.rip;
	vcpu->regs.gpr[GPR_RAX] = vmcb->save.rax;
	vcpu->regs.gpr[GPR_RSP] = vmcb->save.rsp;
	vmcb->control.tlb_control = 0;
	vmcb->control.event_inj = 0;
	/* An event whose delivery the exit interrupted is delivered again. */
	if (unlikely(vmcb->control.exit_int_info & EVENT_VALID))
		vmcb->control.event_inj = vmcb->control.exit_int_info;
	svm_decode_exit(vmcb, &vcpu->regs, &exit, nrips);
	if (!vcpu_dispatch_exit(vcpu, &exit))
		return 0;
	sync_regs_to_vmcb(vcpu, vmcb);
	svm_gif_hold();
	return 1;
}

/* The general path of every #VMEXIT, called by the VM-run loops and the
 * fast handlers (svm_fast.c); non-zero to enter again.  It runs with GIF
 * set (svm.h): a device model, a guest's console line or a HLT may take
 * milliseconds, and SMIs must not wait for them. */
int svm_handle_exit(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return handle_exit(vcpu, vmcb, svm_has_nrips);
}

/* The same where the CPU has NRIP save: no test of it per exit. */
int svm_handle_exit_nrips(struct vcpu *vcpu, struct vmcb *vmcb)
{
	return handle_exit(vcpu, vmcb, true);
}

/*
 * FS, GS, TR and LDTR with their hidden parts, KERNEL_GS_BASE, STAR,
 * LSTAR, CSTAR, SFMASK and SYSENTER_CS/ESP/EIP: VMRUN and #VMEXIT leave
 * them in the CPU, VMLOAD and VMSAVE move them between the CPU and a VMCB
 * (APM Vol 2 §15.5.2; Vol 3 VMLOAD, VMSAVE).  The host never relies on
 * them (no IST, no SWAPGS, no per-CPU data in GS: host/cpu_tables.c), so
 * the guest's stay loaded across exits: one VMLOAD when the vCPU takes
 * its CPU, one VMSAVE when it stops (each vCPU runs once, start to end,
 * on its CPU: vm_vcpu_run), nothing per exit.
 */
static void svm_vmload(u64 vmcb_pa)
{
	asm volatile("vmload %%rax" ::"a"(vmcb_pa) : "memory");
}

static void svm_vmsave(u64 vmcb_pa)
{
	asm volatile("vmsave %%rax" ::"a"(vmcb_pa) : "memory");
}

/* The loop kind of each PMU mode */
static const u8 loop_kind[PMU_MODE_COUNT] = {
	[PMU_OFF] = SVM_LOOP_PLAIN,    [PMU_SW] = SVM_LOOP_PMU, [PMU_SW_NOELIDE] = SVM_LOOP_PMU,
	[PMU_SW_LAZY] = SVM_LOOP_LAZY, [PMU_HW] = SVM_LOOP_HW,
};

static void svm_vcpu_run(struct vcpu *vcpu)
{
	struct svm_vcpu *s = vcpu->vendor;
	bool pmu = vcpu->pmu_mode != PMU_OFF;

	svm_vmload(s->vmcb_pa);
	s->vmcb->control.clean_bits = 0; /* its first VMRUN on this CPU (svm.h) */
	sync_regs_to_vmcb(vcpu, s->vmcb);
	if (pmu)
		svm_pmu_first_entry(vcpu, s->vmcb);
	svm_gif_hold();
	svm_run_loops[loop_kind[vcpu->pmu_mode]][vcpu->timed][vcpu->duty_set](vcpu, s->vmcb_pa);
	/* a fast handler may have ended the VM with GIF still clear */
	svm_gif_release();
	if (pmu)
		pmu_vcpu_stopped(vcpu);
	svm_vmsave(s->vmcb_pa);
}

static void svm_inject_exception(struct vcpu *vcpu, u8 vector, bool has_error, u32 error)
{
	struct svm_vcpu *s = vcpu->vendor;

	s->vmcb->control.event_inj = vector | EVENT_TYPE_EXCEPTION | EVENT_VALID |
				     (has_error ? EVENT_ERROR_VALID | ((u64)error << 32) : 0);
}

static bool svm_interrupt_allowed(struct vcpu *vcpu)
{
	const struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;

	return (vmcb->save.rflags & RFLAGS_IF) && !(vmcb->control.int_shadow & INT_SHADOW_MASK) &&
	       !(vmcb->control.event_inj & EVENT_VALID);
}

static void svm_inject_interrupt(struct vcpu *vcpu, u8 vector)
{
	struct svm_vcpu *s = vcpu->vendor;

	s->vmcb->control.event_inj = vector | EVENT_TYPE_INTR | EVENT_VALID;
}

static bool svm_event_queued(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->control.event_inj & EVENT_VALID;
}

/*
 * The interrupt window: a virtual interrupt (V_IRQ) that ignores V_TPR,
 * with the VINTR intercept, exits as soon as the guest could take it
 * (APM Vol 2 §15.21.4).
 */
static void svm_request_interrupt_window(struct vcpu *vcpu, bool on)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;
	struct vmcb_control_area *c = &vmcb->control;
	const u64 window = INT_CTL_V_IRQ | INT_CTL_V_INTR_PRIO_MAX | INT_CTL_V_IGN_TPR;

	if (on) {
		c->int_ctl |= window;
		c->intercept_misc1 |= INTERCEPT_VINTR;
	} else {
		c->int_ctl &= ~window;
		c->intercept_misc1 &= ~INTERCEPT_VINTR;
	}
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_TPR | VMCB_CLEAN_INTERCEPTS);
}

static void svm_end_interrupt_shadow(struct vcpu *vcpu)
{
	((struct svm_vcpu *)vcpu->vendor)->vmcb->control.int_shadow &= ~INT_SHADOW_MASK;
}

/* An injected #DB leaves DR6 as it is (APM Vol 2 §15.20): the trap's BS
 * is set here, B0-B3 cleared as a single-step #DB leaves them (SDM Vol 3
 * §18.2.3). */
static int svm_single_step_trap(struct vcpu *vcpu)
{
	struct svm_vcpu *s = vcpu->vendor;
	struct vmcb *vmcb = s->vmcb;
	struct vmcb_control_area *c = &vmcb->control;
	int taken_back = -1;

	c->int_shadow &= ~INT_SHADOW_MASK;
	/* TF is mhv's alone: its step for a waiting NMI goes on to its #DB
	 * (as KVM's does), the guest sees no trap */
	if (s->nmi_step && !s->step_guest_tf)
		return -1;
	vmcb->save.dr6 = (vmcb->save.dr6 & ~DR6_TRAP_BITS) | DR6_BS;
	vmcb->save.dr7 &= ~DR7_GD; /* as delivering a #DB does (SDM Vol 3 §18.2.4) */
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_DRX);
	if (c->event_inj & EVENT_VALID) {
		if ((c->event_inj & EVENT_TYPE_MASK) == EVENT_TYPE_NMI) {
			/* not delivered: the guest does not block NMIs yet */
			s->nmi_masked = false;
			c->intercept_misc1 &= ~INTERCEPT_IRET;
			svm_vmcb_dirty(vmcb, VMCB_CLEAN_INTERCEPTS);
			taken_back = BACKEND_REQUEUE_NMI;
		} else if ((c->event_inj & EVENT_TYPE_MASK) == EVENT_TYPE_INTR) {
			taken_back = c->event_inj & EVENT_VECTOR_MASK;
		}
	}
	c->event_inj = VECTOR_DB | EVENT_TYPE_EXCEPTION | EVENT_VALID;
	return taken_back;
}

/* EVENTINJ holds an external interrupt (APM Vol 2 §15.20): out again. */
static int svm_take_back_interrupt(struct vcpu *vcpu)
{
	struct vmcb_control_area *c = &((struct svm_vcpu *)vcpu->vendor)->vmcb->control;
	int v;

	if ((c->event_inj & (EVENT_VALID | EVENT_TYPE_MASK)) != (EVENT_VALID | EVENT_TYPE_INTR))
		return -1;
	v = c->event_inj & EVENT_VECTOR_MASK;
	c->event_inj = 0;
	return v;
}

static bool svm_nmi_allowed(struct vcpu *vcpu)
{
	struct svm_vcpu *s = vcpu->vendor;
	const struct vmcb_control_area *c = &s->vmcb->control;

	/* The handler's IRET has run once RIP is off it (as KVM judges it);
	 * looked at only here, when an NMI waits, not at every exit. */
	if (s->nmi_masked && s->iret_seen && vcpu->regs.rip != s->iret_rip)
		s->nmi_masked = false;
	return !s->nmi_masked && !(c->int_shadow & INT_SHADOW_MASK) &&
	       !(c->event_inj & EVENT_VALID);
}

/* The guest blocks NMIs from here to its handler's IRET (SDM Vol 3 §6.7.1). */
static void svm_inject_nmi(struct vcpu *vcpu)
{
	struct svm_vcpu *s = vcpu->vendor;
	struct vmcb_control_area *c = &s->vmcb->control;

	c->event_inj = VECTOR_NMI | EVENT_TYPE_NMI | EVENT_VALID;
	c->intercept_misc1 |= INTERCEPT_IRET;
	svm_vmcb_dirty(s->vmcb, VMCB_CLEAN_INTERCEPTS);
	s->nmi_masked = true;
	s->iret_seen = false;
	/* the window is here: mhv's TF must not reach the handler's frame */
	if (s->nmi_step)
		end_nmi_step(s, s->vmcb, false);
}

/*
 * Exit as soon as an NMI can be injected.  Before the handler's IRET the
 * IRET intercept does it; from the IRET on, or while a shadow or another
 * event holds the NMI back, one instruction is single-stepped (as KVM
 * does without vNMI).
 */
static void svm_request_nmi_window(struct vcpu *vcpu)
{
	struct svm_vcpu *s = vcpu->vendor;
	struct vmcb_save_area *g = &s->vmcb->save;

	if ((s->nmi_masked && !s->iret_seen) || s->nmi_step)
		return;
	s->step_guest_tf = g->rflags & RFLAGS_TF;
	s->step_over_iret = s->nmi_masked;
	s->step_dr6 = g->dr6;
	g->rflags |= RFLAGS_TF;
	s->nmi_step = true;
}

static u64 svm_guest_cr0(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.cr0;
}

static u64 svm_guest_cr3(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.cr3;
}

static u64 svm_guest_cr4(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.cr4;
}

static u64 svm_guest_efer(struct vcpu *vcpu)
{
	/* SVME is set for VMRUN's sake (APM Vol 2 §15.5.1); the guest has no SVM. */
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.efer & ~EFER_SVME;
}

/* Segment attributes packed as APM Vol 2 §15.5.1: bit 9 L, bit 10 D/B. */
static unsigned svm_guest_code_bits(struct vcpu *vcpu, u64 *cs_base)
{
	const struct vmcb_save_area *g = &((struct svm_vcpu *)vcpu->vendor)->vmcb->save;

	*cs_base = g->cs.base;
	if ((g->efer & EFER_LMA) && (g->cs.attrib & BIT(9)))
		return 64;
	return (g->cs.attrib & BIT(10)) ? 32 : 16;
}

static u64 svm_guest_rflags(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.rflags;
}

/*
 * ES, CS, SS and DS are in the VMCB after #VMEXIT; FS and GS stay in the
 * CPU, VMSAVE only stores them when the vCPU stops (svm_vcpu_run), and
 * the host never changes their bases meanwhile.
 */
static u64 svm_guest_seg_base(struct vcpu *vcpu, unsigned seg)
{
	const struct vmcb_save_area *g = &((struct svm_vcpu *)vcpu->vendor)->vmcb->save;

	switch (seg) {
	case SEG_ES:
		return g->es.base;
	case SEG_CS:
		return g->cs.base;
	case SEG_SS:
		return g->ss.base;
	case SEG_DS:
		return g->ds.base;
	case SEG_FS:
		return rdmsr(MSR_FS_BASE);
	case SEG_GS:
		return rdmsr(MSR_GS_BASE);
	default:
		return 0;
	}
}

/* VMRUN loads the guest's CR2 from the VMCB (APM Vol 2 §15.5.1). */
static void svm_set_guest_cr2(struct vcpu *vcpu, u64 cr2)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;

	vmcb->save.cr2 = cr2;
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_CR2);
}

static void svm_set_guest_efer(struct vcpu *vcpu, u64 efer)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;

	vmcb->save.efer = efer | EFER_SVME;
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_CRX);
}

/* With nested paging the guest's PAT is the VMCB's g_pat (APM Vol 2 §15.25.8). */
static u64 svm_guest_pat(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.g_pat;
}

static void svm_set_guest_pat(struct vcpu *vcpu, u64 pat)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;

	vmcb->save.g_pat = pat;
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_NP);
}

/* Always applied to the guest's RDTSC, RDTSCP and RDMSR (APM Vol 2 §15.30.5). */
static bool svm_set_tsc_offset(struct vcpu *vcpu, u64 offset)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;

	vmcb->control.tsc_offset = offset;
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_INTERCEPTS);
	return true;
}

/*
 * The guest's CR0/CR4 are the VMCB's as they are.  The MOV mhv completes
 * for the guest did not invalidate the TLB entries that the CPU's MOV
 * would have (SDM Vol 3 §4.10.4.1): flush the guest's ASID instead.
 */
static bool svm_set_guest_cr(struct vcpu *vcpu, unsigned cr, u64 value)
{
	struct vmcb *vmcb = ((struct svm_vcpu *)vcpu->vendor)->vmcb;
	u64 old = cr == 0 ? vmcb->save.cr0 : vmcb->save.cr4;
	u64 tlb_bits = cr == 0 ? CR0_PG | CR0_WP : CTLREG_CR4_TLB_BITS;

	if ((old ^ value) & tlb_bits)
		vmcb->control.tlb_control =
		    host_cpu.has.flush_by_asid ? TLB_CONTROL_FLUSH_ASID : TLB_CONTROL_FLUSH_ALL;
	if (cr == 0)
		vmcb->save.cr0 = value;
	else
		vmcb->save.cr4 = value;
	svm_vmcb_dirty(vmcb, VMCB_CLEAN_CRX);
	return true;
}

/*
 * A physical interrupt that made the guest exit is taken here, through the
 * host IDT; an NMI or SMI was taken already, when the general exit path
 * set GIF (svm.h).
 */
static void svm_host_interrupt_window(void)
{
	asm volatile("sti; nop; cli" ::: "memory");
}

static unsigned svm_guest_cpl(struct vcpu *vcpu)
{
	return ((struct svm_vcpu *)vcpu->vendor)->vmcb->save.cpl;
}

static void svm_describe(void)
{
	console_printf("mhv: backend: AMD SVM, nested paging, %u ASIDs, NRIP save %s, "
		       "decode assists %s, VMCB clean bits %s\n",
		       host_cpu.nr_asids,
		       svm_has_nrips ? "yes" : "no (RIP advanced from opcode bytes)",
		       host_cpu.has.decode_assists ? "yes (MOV to CR4)" : "no",
		       host_cpu.has.vmcb_clean ? "yes (used)" : "no");
}

const struct backend_ops svm_backend = {
	.name = "svm",
	.vcpu_create = svm_vcpu_create,
	.vcpu_run = svm_vcpu_run,
	.vcpu_destroy = svm_vcpu_destroy,
	.map_ram = svm_map_ram,
	.inject_exception = svm_inject_exception,
	.interrupt_allowed = svm_interrupt_allowed,
	.inject_interrupt = svm_inject_interrupt,
	.request_interrupt_window = svm_request_interrupt_window,
	.event_queued = svm_event_queued,
	.end_interrupt_shadow = svm_end_interrupt_shadow,
	.guest_cr0 = svm_guest_cr0,
	.guest_cr3 = svm_guest_cr3,
	.guest_efer = svm_guest_efer,
	.guest_cr4 = svm_guest_cr4,
	.guest_cpl = svm_guest_cpl,
	.guest_code_bits = svm_guest_code_bits,
	.guest_rflags = svm_guest_rflags,
	.guest_seg_base = svm_guest_seg_base,
	.set_guest_cr2 = svm_set_guest_cr2,
	.set_guest_efer = svm_set_guest_efer,
	.guest_pat = svm_guest_pat,
	.set_guest_pat = svm_set_guest_pat,
	.set_tsc_offset = svm_set_tsc_offset,
	.set_guest_cr = svm_set_guest_cr,
	.exit_name = svm_exit_name,
	.explain_invalid = svm_explain_invalid,
	.host_interrupt_window = svm_host_interrupt_window,
	.cpu_enable = svm_cpu_enable,
	.idle_wait = svm_idle_wait,
	.describe = svm_describe,
	.single_step_trap = svm_single_step_trap,
	.nmi_allowed = svm_nmi_allowed,
	.inject_nmi = svm_inject_nmi,
	.request_nmi_window = svm_request_nmi_window,
	.take_back_interrupt = svm_take_back_interrupt,
};
