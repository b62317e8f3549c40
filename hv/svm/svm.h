/* SPDX-License-Identifier: MIT */
#ifndef MHV_SVM_H
#define MHV_SVM_H

#include "core/backend.h"
#include "core/mitigation_policy.h"
#include "vmcb.h"

struct guest_regs;
struct vcpu;

struct svm_vcpu {
	struct vmcb *vmcb;
	u64 vmcb_pa;
	u8 *msrpm; /* 8 KiB MSR permission map, APM Vol 2 §15.11 */
	u8 *iopm;  /* 12 KiB I/O permission map, APM Vol 2 §15.10.1 */
	/*
	 * Guest NMI blocking, kept in software (no vNMI): from an injected
	 * NMI to the completion of its handler's IRET, which is intercepted
	 * and then single-stepped when another NMI waits (SDM Vol 3 §6.7.1;
	 * vNMI, APM Vol 2 §15.21, would do it in hardware: QEMU and Bochs
	 * have none).  Nothing of it runs per exit: the IRET and #DB exits'
	 * decoders and the NMI backend ops keep it (svm_vcpu.c).
	 */
	bool nmi_masked;     /* an injected NMI's handler has not returned */
	bool iret_seen;	     /* ... its IRET was intercepted at iret_rip */
	bool nmi_step;	     /* mhv set TF to exit after one instruction */
	bool step_over_iret; /* ... that instruction is the IRET */
	bool step_guest_tf;  /* ... and the guest had TF set itself */
	u64 iret_rip;
	u64 step_dr6; /* DR6 before the step, put back when the #DB is mhv's */
};

extern const struct backend_ops svm_backend;
extern bool svm_has_nrips;

/*
 * VMCB clean bits (vmcb.h).  The general exit path marks every group clean
 * before anything of the exit writes the VMCB, one store, and each writer
 * of a group's field marks that group dirty.  The fast handlers write only
 * fields in no group (RIP, RAX, EVENTINJ, TLB_CONTROL) and leave the bits
 * as the last general exit left them: a group it marked dirty is loaded
 * once more, never one written since.  svm_vcpu_run starts a vCPU with
 * none clean: its VMCB has not run on this CPU before (a vCPU runs once,
 * start to end, on one CPU: vm_vcpu_run), and its ASID never changes.
 *
 * Never clean, as in KVM (VMCB_ALWAYS_DIRTY_MASK): the TPR group.  The
 * vAPIC keeps its TPR in V_TPR (apic_set_cr8_home) and writes it on any
 * path; VMRUN reloads 060h-067h every time, as it does under KVM, whose
 * null exit mhv's is compared with.  CPUs without clean bits ignore the
 * field (KVM writes it on every CPU).
 */
#define SVM_CLEAN_AFTER_EXIT (VMCB_CLEAN_ALL & ~VMCB_CLEAN_TPR)

static inline void svm_vmcb_dirty(struct vmcb *vmcb, u32 groups)
{
	vmcb->control.clean_bits &= ~groups;
}

/* Returns NULL with *why set when this CPU cannot run the SVM backend. */
const struct backend_ops *svm_probe(const char **why, int *status);
/* Per CPU (the BSP from svm_probe, each AP when it starts); 0 or a status. */
int svm_cpu_enable(const char **why);
/* The IRET and #DB exits' decoders for NMI blocking, into svm_exit_table. */
void svm_nmi_exits_init(void);
void svm_idle_wait(void);

/*
 * GIF (APM Vol 2 §15.17).  The host keeps it set, as KVM does: with GIF
 * clear the CPU holds SMIs, and real firmware's SMM (USB legacy emulation,
 * ACPI, UEFI variable services) then waits in its rendezvous for a CPU
 * that does not come.  Maskable interrupts still wait for IF, which the
 * host keeps clear outside its interrupt windows, as on VMX.
 *
 * GIF is clear only from just before the VM-run loop's first VMRUN to the
 * start of the general exit path: the loop itself and the fast handlers
 * (svm_fast.c), a bounded few hundred instructions per exit that never
 * wait: they call only the bus's port ranges marked fast (vdev/board.c),
 * never the UART, whose writes print on the host's consoles.  Clear
 * there so that nothing is taken between the check of what to inject and
 * VMRUN; IF is set there so that
 * a physical interrupt that arrives in the guest makes it exit
 * (V_INTR_MASKING: the host's IF masks physical interrupts while the
 * guest runs, APM Vol 2 §15.21.1), and it is then taken in the general
 * path's interrupt window.
 */
static inline void svm_gif_hold(void)
{
	asm volatile("clgi; sti" ::: "memory");
}

static inline void svm_gif_release(void)
{
	asm volatile("cli; stgi" ::: "memory");
}
/* The VM-run loops (svm_entry.asm), by kind: no PMU, PMU switch at every
 * exit (sw, sw-noelide), fast path while the PMU needs no hook (sw-lazy;
 * hw, which also clears the host's GLOBAL_CTL before VMRUN); timed or not;
 * one per duty set (core/mitigation_policy.h), listed in
 * svm_loop_duty_sets (then 0xff), which svm_probe checks. */
enum svm_loop_kind {
	SVM_LOOP_PLAIN,
	SVM_LOOP_PMU,
	SVM_LOOP_LAZY,
	SVM_LOOP_HW,
	SVM_LOOP_KINDS
};
typedef void svm_run_loop_fn(struct vcpu *vcpu, u64 vmcb_pa);
extern svm_run_loop_fn *const svm_run_loops[SVM_LOOP_KINDS][2][DUTY_SETS];
extern const u8 svm_loop_duty_sets[DUTY_SETS + 1];
int svm_handle_exit(struct vcpu *vcpu, struct vmcb *vmcb);
int svm_handle_exit_nrips(struct vcpu *vcpu, struct vmcb *vmcb);
int svm_handle_exit_pmu(struct vcpu *vcpu, struct vmcb *vmcb);
int svm_pmu_general_exit(struct vcpu *vcpu, struct vmcb *vmcb);

/* The guest PMU (svm_pmu.c): intercepts and VMCB bits at vCPU creation,
 * the first load before the first VMRUN. */
void svm_pmu_setup(struct vcpu *vcpu, struct svm_vcpu *s);
void svm_pmu_first_entry(struct vcpu *vcpu, struct vmcb *vmcb);
void svm_msrpm_allow(u8 *msrpm, u32 msr, bool read, bool write);

#endif
