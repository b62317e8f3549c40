; SPDX-License-Identifier: MIT
; The VMRUN loop.  The host's callee-saved registers are saved once, when
; the vCPU starts running; per exit, only the guest's GPRs are stored and
; reloaded, and the C exit handler is called straight from here.  RAX, RSP
; and RIP live in the VMCB (svm_handle_exit syncs them).  No VMLOAD/VMSAVE
; per exit: the host never uses the state they switch (FS/GS/TR/LDTR,
; KERNEL_GS_BASE, STAR/LSTAR/CSTAR/SFMASK, SYSENTER_*), so the guest's stays
; loaded from svm_vcpu_run's VMLOAD to its VMSAVE.
bits 64
default rel
section .text

extern svm_handle_exit
extern svm_handle_exit_pmu
extern svm_fast_exits

%include "core/guest_regs.inc"
%include "core/duties.inc"

; Stack frame while the loop runs
%define F_VMCB 8		; [rsp + 8]: VMCB physical address
%define F_VCPU 16		; [rsp + 16]: struct vcpu *

%define VMCB_EXIT_CODE 0x70	; APM Vol 2 Table B-1
%define TIMED_ALIGN 256		; both stamps of a timed loop (guest_regs.inc)

; void NAME(struct vcpu *vcpu, u64 vmcb_pa): returns when the exit handler
; says the VM stopped.  The timed variant also stamps the TSC just before
; VMRUN and just after #VMEXIT (vmrun_to_guest / guest_to_exit); the plain
; one, used for everything else, has no extra instruction.
; %3: the exit handler, called for every exit (%4 = 0) or for codes above
; 255 (%4 = 1: the others call the code's entry of svm_fast_exits).  %4 = 2:
; every code calls through the table vcpu->exit_table points to, codes above
; 255 its last entry; the PMU code switches it between the plain handlers
; and its world switch (svm_pmu.c).  %5: the
; per-exit duties (core/mitigations.h), DUTY_RSB_FILL or none (VERW is for
; Intel's MDS only).  %6: an MSR to write 0 right before every VMRUN, or 0
; (pmu_entry_zeroed_msr).
%macro RUN_LOOP 6
%if %2
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
global %1
%1:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	push rsi
	sub rsp, 8			; 16-byte alignment at the call below
%%enter:
%if %6
	mov ecx, %6
	xor eax, eax
	xor edx, edx
	wrmsr
%endif
	mov rdi, [rsp + F_VCPU]
%if %2
	lfence
	STAMP_TSC T_ENTRY_TSC
%endif
	mov rax, [rsp + F_VMCB]		; VMRUN takes the VMCB in RAX
	LOAD_GUEST_GPRS
	mov rdi, [rdi + G_RDI]
	vmrun
	; #VMEXIT: host RSP, RAX and RIP are back from the host save area
	push rdi
	mov rdi, [rsp + 8 + F_VCPU]
	mov [rdi + G_RDX], rdx
%if %2
	; RAX is the host's here: guest RAX is in the VMCB
	STAMP_TSC T_EXIT_TSC
	TIMED_LOOP_CHECK %1, TIMED_ALIGN
%endif
	STORE_GUEST_GPRS
	pop qword [rdi + G_RDI]
%if %5 & DUTY_RSB_FILL
	FILL_RSB
%endif
	mov rsi, [rsp + F_VMCB]		; identity-mapped: the VMCB's address
%if %4
	; Codes above 255 (NPF, VMEXIT_INVALID) take the general path; the
	; MOVZX keeps even a mispredicted index inside the table.
	cmp qword [rsi + VMCB_EXIT_CODE], 0xff
	ja %%general
	movzx eax, byte [rsi + VMCB_EXIT_CODE]
	CALL_EXIT_TABLE %4, svm_fast_exits	; (vcpu, vmcb); non-zero: enter again
%else
	call %3
%endif
%%handled:
	test eax, eax
	jnz %%enter
	add rsp, 24
	POP_HOST_CALLEE_SAVED
	ret
%if %4
%%general:
	CALL_EXIT_GENERAL %4, %3, %%handled
%endif
%endmacro

; PerfCntrGlobalCtl (APM Vol 2 §13.2.1, PerfMonV2): PMU_HW's VMRUN needs it 0
%define ZERO_GLOBAL_CTL 0xc0000301

RUN_LOOP svm_run_loop, 0, svm_handle_exit, 1, 0, 0
RUN_LOOP svm_run_loop_timed, 1, svm_handle_exit, 1, 0, 0
RUN_LOOP svm_run_loop_rsb, 0, svm_handle_exit, 1, DUTY_RSB_FILL, 0
RUN_LOOP svm_run_loop_timed_rsb, 1, svm_handle_exit, 1, DUTY_RSB_FILL, 0
; sw, sw-noelide: the switch around every exit
RUN_LOOP svm_run_loop_pmu, 0, svm_handle_exit_pmu, 0, 0, 0
RUN_LOOP svm_run_loop_pmu_timed, 1, svm_handle_exit_pmu, 0, 0, 0
RUN_LOOP svm_run_loop_pmu_rsb, 0, svm_handle_exit_pmu, 0, DUTY_RSB_FILL, 0
RUN_LOOP svm_run_loop_pmu_timed_rsb, 1, svm_handle_exit_pmu, 0, DUTY_RSB_FILL, 0
; sw-lazy: fast handlers while the PMU needs no hook
RUN_LOOP svm_run_loop_lazy, 0, 0, 2, 0, 0
RUN_LOOP svm_run_loop_lazy_timed, 1, 0, 2, 0, 0
RUN_LOOP svm_run_loop_lazy_rsb, 0, 0, 2, DUTY_RSB_FILL, 0
RUN_LOOP svm_run_loop_lazy_timed_rsb, 1, 0, 2, DUTY_RSB_FILL, 0
; hw: the same, and the host GLOBAL_CTL off before each VMRUN
RUN_LOOP svm_run_loop_hw, 0, 0, 2, 0, ZERO_GLOBAL_CTL
RUN_LOOP svm_run_loop_hw_timed, 1, 0, 2, 0, ZERO_GLOBAL_CTL
RUN_LOOP svm_run_loop_hw_rsb, 0, 0, 2, DUTY_RSB_FILL, ZERO_GLOBAL_CTL
RUN_LOOP svm_run_loop_hw_timed_rsb, 1, 0, 2, DUTY_RSB_FILL, ZERO_GLOBAL_CTL
