/* SPDX-License-Identifier: MIT */
#ifndef MHV_VMX_H
#define MHV_VMX_H

#include "core/backend.h"
#include "core/mitigation_policy.h"
#include "vmx_controls.h"

struct vcpu;

/* What the CPU offers, computed once at init from the capability MSRs. */
struct vmx_caps {
	u32 revision;
	u32 pin, proc, proc2, exit, entry; /* the control values every VMCS gets */
	u64 cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	u64 ept_vpid_cap;
	struct vmx_flush flush; /* the INVEPT/INVVPID types mhv uses */
	bool vpid, unrestricted_guest, interrupt_window, tsc_offsetting;
	bool nmi_window;       /* virtual NMIs with NMI-window exiting (§25.6.1, §26.7.6) */
	bool perf_global_ctrl; /* entry and exit can load IA32_PERF_GLOBAL_CTRL */
	bool ple;	       /* PAUSE-loop exiting (secondary control bit 10) */
	bool ins_outs_info;    /* INS/OUTS exits give address size and segment */
};

struct vmx_vcpu {
	u64 vmcs_pa;
	u8 *msr_bitmap;		/* 4 KiB, SDM Vol 3 §25.6.9 */
	u8 *io_bitmaps;		/* A and B, 8 KiB, §25.6.4 */
	u8 *virtual_apic;	/* TPR shadow page, §25.6.8 */
	u64 cr0_mask, cr4_mask; /* guest/host masks: the bits mhv holds (§25.6.6) */
	bool unrestricted;	/* unrestricted guest: PE and PG are the guest's */
	u16 vpid;
	u32 proc;		    /* primary controls as last written */
	u64 guest_perf_global_ctrl; /* VMCS 0x2808 as last written */
};

extern struct vmx_caps vmx_caps;
extern const struct backend_ops vmx_backend;

/* Returns NULL with *why set when this CPU cannot run the VMX backend. */
const struct backend_ops *vmx_probe(const char **why, int *status);
/* Per CPU (the BSP from vmx_probe, each AP when it starts); 0 or a status. */
int vmx_cpu_enable(const char **why);
void vmx_idle_wait(void);
/* The VM-run loops (vmx_entry.asm), by kind: no PMU, PMU switch at every
 * exit (sw, sw-noelide), fast path while the PMU needs no hook (sw-lazy);
 * timed or not; one per duty set (core/mitigation_policy.h), listed in
 * vmx_loop_duty_sets (then 0xff), which vmx_probe checks. */
enum vmx_loop_kind {
	VMX_LOOP_PLAIN,
	VMX_LOOP_PMU,
	VMX_LOOP_LAZY,
	VMX_LOOP_KINDS
};
typedef void vmx_run_loop_fn(struct vcpu *vcpu);
extern vmx_run_loop_fn *const vmx_run_loops[VMX_LOOP_KINDS][2][DUTY_SETS];
extern const u8 vmx_loop_duty_sets[DUTY_SETS + 1];
int vmx_handle_exit(struct vcpu *vcpu);
int vmx_handle_exit_reason(struct vcpu *vcpu, u32 reason);
int vmx_handle_exit_pmu(struct vcpu *vcpu);
int vmx_pmu_general_exit(struct vcpu *vcpu, u32 reason);

/* Per basic exit reason below 256, called by the VM-run loops without a
 * PMU mode with the full reason: a fast handler or vmx_handle_exit_reason
 * (vmx_fast.c); and the same for the sw-lazy loops' quiet spells, its last
 * entry for reasons from 256 up. */
#define VMX_FAST_EXITS 256
typedef int vmx_fast_fn(struct vcpu *vcpu, u32 reason);
extern vmx_fast_fn *vmx_fast_exits[VMX_FAST_EXITS];
extern vmx_fast_fn *vmx_fast_exits_pmu[VMX_FAST_EXITS + 1];
void vmx_fast_exits_init(void);

/* A VMCS field, its name for messages and the value to write. */
struct vmcs_init {
	u32 field;
	const char *name;
	u64 value;
};

#define VMCS_INIT(field, value)      \
	{                            \
		field, #field, value \
	}

/* VMWRITE each field to the current VMCS; on a refusal err names the field
 * and the VM-instruction error. */
enum backend_err vmx_write_fields(const struct vmcs_init *fields, unsigned n, enum backend_err code,
				  struct backend_error *err);

/* The guest PMU (vmx_pmu.c): intercepts and controls at vCPU creation,
 * the first load before VMLAUNCH. */
enum backend_err vmx_pmu_setup(struct vcpu *vcpu, struct vmx_vcpu *x, struct backend_error *err);
void vmx_pmu_first_entry(struct vcpu *vcpu);
void vmx_msr_bitmap_allow(u8 *bitmap, u32 msr, bool read, bool write);
void vmx_entry_failed(struct vcpu *vcpu);

#endif
