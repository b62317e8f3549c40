/* SPDX-License-Identifier: MIT */
/*
 * The virtualization backend, chosen once at init from CPUID (hv/main.c)
 * so that one binary boots on AMD and Intel.  Common code calls through these
 * pointers and never asks which vendor it runs on.
 */
#ifndef MHV_BACKEND_H
#define MHV_BACKEND_H

#include "exit.h"
#include "lib/types.h"

struct cpuid_cache;
struct vcpu;
struct vm;

/* Why a backend could not set a vCPU up: a kind for code to test. */
enum backend_err {
	BACKEND_OK,
	BACKEND_ERR_NO_MEMORY,	 /* no page for the VMCB/VMCS or a permission map */
	BACKEND_ERR_VMCLEAR,	 /* VMCLEAR of the new VMCS failed */
	BACKEND_ERR_VMPTRLD,	 /* VMPTRLD of the new VMCS failed */
	BACKEND_ERR_VMWRITE,	 /* the CPU refused a VMCS field */
	BACKEND_ERR_VPID,	 /* the CPU refused the VM's VPID */
	BACKEND_ERR_UNSUPPORTED, /* the guest needs what this CPU lacks */
	BACKEND_ERR_GUEST_STATE, /* VM entry's checks would refuse the state */
};

/* The kind, and one line for the user naming what failed. */
struct backend_error {
	enum backend_err code;
	char reason[128];
};

/* Fill err (printf format) and return its code. */
enum backend_err backend_fail(struct backend_error *err, enum backend_err code, const char *fmt,
			      ...) __printf(3, 4);

struct backend_ops {
	const char *name;
	/* Prepare the VM's nested page table and the vCPU's control state;
	 * the guest starts in 64-bit mode at regs.rip with the given CR3.
	 * BACKEND_OK, or the error with err filled. */
	enum backend_err (*vcpu_create)(struct vcpu *vcpu, u64 guest_cr3, u64 guest_gdt,
					u16 gdt_limit, struct backend_error *err);
	/* Run the guest until an exit handler stops the VM.  The backend
	 * loops in its own entry code and hands each decoded exit to
	 * vcpu_dispatch_exit(). */
	void (*vcpu_run)(struct vcpu *vcpu);
	void (*vcpu_destroy)(struct vcpu *vcpu);
	/* Map [gpa, gpa + size) of the VM's nested page table to host memory. */
	int (*map_ram)(struct vm *vm, u64 gpa, u64 hpa, u64 size);
	void (*inject_exception)(struct vcpu *vcpu, u8 vector, bool has_error, u32 error);
	/* External interrupts: may one be injected now (IF set, no interrupt
	 * shadow, no event pending)?  Inject one; exit when the guest can
	 * take one. */
	bool (*interrupt_allowed)(struct vcpu *vcpu);
	void (*inject_interrupt)(struct vcpu *vcpu, u8 vector);
	void (*request_interrupt_window)(struct vcpu *vcpu, bool on);
	/* An event (interrupt, NMI, exception) waits for the next entry:
	 * SVM's EVENTINJ.V, VMX's VM-entry interruption-information valid bit. */
	bool (*event_queued)(struct vcpu *vcpu);
	/* An instruction mhv completed for the guest ends a STI/MOV SS shadow. */
	void (*end_interrupt_shadow)(struct vcpu *vcpu);
	u64 (*guest_cr0)(struct vcpu *vcpu);
	u64 (*guest_cr3)(struct vcpu *vcpu);
	u64 (*guest_efer)(struct vcpu *vcpu);
	u64 (*guest_cr4)(struct vcpu *vcpu);
	unsigned (*guest_cpl)(struct vcpu *vcpu);
	/* 16, 32 or 64: how the guest's code segment decodes now; its base. */
	unsigned (*guest_code_bits)(struct vcpu *vcpu, u64 *cs_base);
	u64 (*guest_rflags)(struct vcpu *vcpu);
	/* The base of a guest segment register (enum seg_reg), as loaded. */
	u64 (*guest_seg_base)(struct vcpu *vcpu, unsigned seg);
	/* CR2 for a #PF mhv injects: the guest sees it in its handler. */
	void (*set_guest_cr2)(struct vcpu *vcpu, u64 cr2);
	/* A guest EFER value msr.c or a CR0 write found valid; LMA as the
	 * guest's mode now has it. */
	void (*set_guest_efer)(struct vcpu *vcpu, u64 efer);
	/* The guest's IA32_PAT, which msr.c checked: the memory types its own
	 * page tables choose, combined with the nested tables' (APM Vol 2
	 * §15.25.8; SDM Vol 3 §29.3.7.2). */
	u64 (*guest_pat)(struct vcpu *vcpu);
	void (*set_guest_pat)(struct vcpu *vcpu, u64 pat);
	/* The guest's TSC is the host's plus offset; false where the CPU
	 * cannot offset it. */
	bool (*set_tsc_offset)(struct vcpu *vcpu, u64 offset);
	/* Load the guest's CR0 or CR4 with a value core/guest_cr.c found
	 * valid, as the guest will read it back (the backend keeps what the
	 * CPU needs underneath and does the TLB invalidation the MOV would).
	 * false: this CPU cannot hold it (#GP, as the CPU itself would). */
	bool (*set_guest_cr)(struct vcpu *vcpu, unsigned cr, u64 value);
	/* The vendor's name of a raw exit code, for messages. */
	const char *(*exit_name)(u64 vendor_code);
	/* The CPU refused to enter the guest (EXIT_INVALID): the cause in why
	 * when the backend can tell it, else why left empty (optional). */
	void (*explain_invalid)(struct vcpu *vcpu, u64 vendor_code, char *why, size_t size);
	/* Let a pending host interrupt or NMI be taken (it caused an exit). */
	void (*host_interrupt_window)(void);
	/* Hide from the guest's CPUID what this backend cannot give it (optional). */
	void (*adjust_guest_cpuid)(struct cpuid_cache *view);
	/* Per-CPU enable on an AP (the BSP's is part of probing): 0, or an
	 * mhv_status with why set. */
	int (*cpu_enable)(const char **why);
	/* Sleep until an interrupt arrives (an idle AP). */
	void (*idle_wait)(void);
	/* Features the environment header prints, e.g. "NRIP save: no". */
	void (*describe)(void);
	/*
	 * The single-step trap of an instruction mhv completed with the
	 * guest's RFLAGS.TF set: DR6.BS, #DB queued, any STI/MOV SS shadow
	 * ended.  The trap ranks above NMIs and interrupts (SDM Vol 3 §6.9,
	 * Table 6-2), so one queued this exit is taken back: its vector,
	 * BACKEND_REQUEUE_NMI, or -1 for none.
	 */
	int (*single_step_trap)(struct vcpu *vcpu);
	/* NMIs: may one be injected now (not blocked by an earlier NMI's
	 * handler, a shadow or another queued event)?  Inject one; exit
	 * (EXIT_INTERRUPT_WINDOW) once one can be injected. */
	bool (*nmi_allowed)(struct vcpu *vcpu);
	void (*inject_nmi)(struct vcpu *vcpu);
	void (*request_nmi_window)(struct vcpu *vcpu);
	/*
	 * An external interrupt queued for the next entry taken out again,
	 * not delivered: its vector, or -1 when the queued event is none
	 * (optional).  A pending NMI ranks above it (SDM Vol 3 §6.9, Table
	 * 6-2): vapic.c gives the vector back to the IRR and injects the
	 * NMI, where the backend would otherwise wait for an NMI window
	 * behind the interrupt (SVM: a single step, whose TF the interrupt's
	 * delivery would push into the guest's frame).
	 */
	int (*take_back_interrupt)(struct vcpu *vcpu);
};

#define BACKEND_REQUEUE_NMI 256

/* Set once by hv_main (hv/main.c), before any VM exists. */
extern const struct backend_ops *backend;

#endif
