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

; void NAME(struct vcpu *vcpu, u64 vmcb_pa): returns when the exit handler
; (%3) says the VM stopped.  The timed variant also stamps the TSC just
; before VMRUN and just after #VMEXIT (vmrun_to_guest / guest_to_exit); the
; plain one, used for everything else, has no extra instruction.  VMs with
; a PMU mode run the loops whose handler switches the PMU around the exit;
; the others (%4 = 1) call the exit code's entry of svm_fast_exits.  %5:
; the per-exit duties (core/mitigations.h), DUTY_RSB_FILL or none (VERW is
; for Intel's MDS only).
%macro RUN_LOOP 5
global %1
%1:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	push rsi
	sub rsp, 8			; 16-byte alignment at the call below
%%enter:
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
	lea rcx, [svm_fast_exits]
	call [rcx + rax * 8]		; (vcpu, vmcb); non-zero: enter again
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
	call %3
	jmp %%handled
%endif
%endmacro

RUN_LOOP svm_run_loop, 0, svm_handle_exit, 1, 0
RUN_LOOP svm_run_loop_timed, 1, svm_handle_exit, 1, 0
RUN_LOOP svm_run_loop_pmu, 0, svm_handle_exit_pmu, 0, 0
RUN_LOOP svm_run_loop_pmu_timed, 1, svm_handle_exit_pmu, 0, 0
RUN_LOOP svm_run_loop_rsb, 0, svm_handle_exit, 1, DUTY_RSB_FILL
RUN_LOOP svm_run_loop_timed_rsb, 1, svm_handle_exit, 1, DUTY_RSB_FILL
RUN_LOOP svm_run_loop_pmu_rsb, 0, svm_handle_exit_pmu, 0, DUTY_RSB_FILL
RUN_LOOP svm_run_loop_pmu_timed_rsb, 1, svm_handle_exit_pmu, 0, DUTY_RSB_FILL
