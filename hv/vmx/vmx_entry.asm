; SPDX-License-Identifier: MIT
; The VMLAUNCH/VMRESUME loop.  The host's callee-saved registers are saved
; once per vCPU run; per exit only the guest's GPRs are stored and
; reloaded, and the exit handler is called from here.  RSP and RIP live
; in the VMCS (the handlers that need them read them); RAX is a plain GPR
; on VMX.
; VMLAUNCH enters once; every later entry is a VMRESUME, so nothing per
; exit remembers which.
bits 64
default rel
section .text

extern vmx_handle_exit
extern vmx_handle_exit_reason
extern vmx_handle_exit_pmu
extern vmx_entry_failed
extern vmx_fast_exits

%include "core/guest_regs.inc"
%include "core/duties.inc"

%define VMCS_HOST_RSP 0x6c14
%define VMCS_HOST_RIP 0x6c16
%define VMCS_EXIT_REASON 0x4402

; Stack frame while the loop runs: [rsp + 16] vcpu
%define F_VCPU 16
; The entry stamp of a VMRESUME comes after the exit handling and the
; duties: a timed loop's stamps lie within its first 512 bytes (guest_regs.inc).
%define TIMED_ALIGN 512

section .rodata
verw_selector:
	dw 0x10				; HOST_DS (host/cpu_tables.h)

section .text

; The guest's GPRs from struct vcpu at [rsp + F_VCPU], ready to enter;
; %2: the duties, VERW last (after the host's last load of its own data);
; %3: the loop's start.
%macro LOAD_GUEST 3
	mov rdi, [rsp + F_VCPU]
%if %1
	lfence
	STAMP_TSC T_ENTRY_TSC
	TIMED_LOOP_CHECK %3, TIMED_ALIGN
%endif
	mov rax, [rdi + G_RAX]
	LOAD_GUEST_GPRS
	mov rdi, [rdi + G_RDI]
%if %2 & DUTY_VERW
	CLEAR_CPU_BUFFERS
%endif
%endmacro

; void NAME(struct vcpu *vcpu): returns when the VM has stopped.  The timed
; variant also stamps the TSC just before VMLAUNCH/VMRESUME and just after
; the VM exit (vmrun_to_guest / guest_to_exit).  %3 is the exit handler,
; called for every exit (%4 = 0: sw, sw-noelide, the PMU switch around each)
; or for reasons from 256 up (%4 = 1: the others call the basic reason's
; entry of vmx_fast_exits).  %4 = 2 (sw-lazy): every reason calls through
; the table vcpu->exit_table points to, reasons from 256 up its last entry;
; the PMU code switches it between the fast handlers and its world switch
; (vmx_pmu.c).  %5: the per-exit duties (core/mitigations.h), DUTY_* bits.
%macro RUN_LOOP 5
%if %2
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
global %1
%1:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	sub rsp, 16			; 16-byte alignment at the calls below
	; A VM exit lands on .exit with this RSP (SDM Vol 3 §28.5.3)
	mov rax, VMCS_HOST_RSP
	vmwrite rax, rsp
	lea rdx, [%%exit]
	mov rax, VMCS_HOST_RIP
	vmwrite rax, rdx
	LOAD_GUEST %2, %5, %1
	vmlaunch
	jmp %%failed
%%exit:
	push rdi
	mov rdi, [rsp + 8 + F_VCPU]
	mov [rdi + G_RAX], rax
	mov [rdi + G_RDX], rdx
%if %2
	STAMP_TSC T_EXIT_TSC
%endif
	STORE_GUEST_GPRS
	pop qword [rdi + G_RDI]
%if %5 & DUTY_RSB_FILL
	FILL_RSB
%endif
%if %4
	; Only bits 15:0 are the basic reason (SDM Vol 3 §28.2.1); reasons
	; from 256 up take the general path, and the MOVZX keeps even a
	; mispredicted index inside the table.
	mov eax, VMCS_EXIT_REASON
	vmread rsi, rax
	cmp si, 0x100
	jae %%general
	movzx eax, sil
	CALL_EXIT_TABLE %4, vmx_fast_exits	; (vcpu, reason); non-zero: enter again
%else
	call %3
%endif
%%handled:
	test eax, eax
	jz %%out
	LOAD_GUEST %2, %5, %1
	vmresume
%%failed:
	; VMfailInvalid/VMfailValid: the guest never ran
	mov rdi, [rsp + F_VCPU]
	call vmx_entry_failed
%%out:
	add rsp, 24
	POP_HOST_CALLEE_SAVED
	ret
%if %4
%%general:
	CALL_EXIT_GENERAL %4, %3, %%handled
%endif
%endmacro

RUN_LOOP vmx_run_loop, 0, vmx_handle_exit_reason, 1, 0
RUN_LOOP vmx_run_loop_timed, 1, vmx_handle_exit_reason, 1, 0
RUN_LOOP vmx_run_loop_pmu, 0, vmx_handle_exit_pmu, 0, 0
RUN_LOOP vmx_run_loop_lazy, 0, 0, 2, 0
RUN_LOOP vmx_run_loop_pmu_timed, 1, vmx_handle_exit_pmu, 0, 0
RUN_LOOP vmx_run_loop_lazy_timed, 1, 0, 2, 0
RUN_LOOP vmx_run_loop_rsb, 0, vmx_handle_exit_reason, 1, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_timed_rsb, 1, vmx_handle_exit_reason, 1, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_pmu_rsb, 0, vmx_handle_exit_pmu, 0, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_lazy_rsb, 0, 0, 2, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_pmu_timed_rsb, 1, vmx_handle_exit_pmu, 0, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_lazy_timed_rsb, 1, 0, 2, DUTY_RSB_FILL
RUN_LOOP vmx_run_loop_verw, 0, vmx_handle_exit_reason, 1, DUTY_VERW
RUN_LOOP vmx_run_loop_timed_verw, 1, vmx_handle_exit_reason, 1, DUTY_VERW
RUN_LOOP vmx_run_loop_pmu_verw, 0, vmx_handle_exit_pmu, 0, DUTY_VERW
RUN_LOOP vmx_run_loop_lazy_verw, 0, 0, 2, DUTY_VERW
RUN_LOOP vmx_run_loop_pmu_timed_verw, 1, vmx_handle_exit_pmu, 0, DUTY_VERW
RUN_LOOP vmx_run_loop_lazy_timed_verw, 1, 0, 2, DUTY_VERW
RUN_LOOP vmx_run_loop_rsb_verw, 0, vmx_handle_exit_reason, 1, DUTY_RSB_FILL | DUTY_VERW
RUN_LOOP vmx_run_loop_timed_rsb_verw, 1, vmx_handle_exit_reason, 1, DUTY_RSB_FILL | DUTY_VERW
RUN_LOOP vmx_run_loop_pmu_rsb_verw, 0, vmx_handle_exit_pmu, 0, DUTY_RSB_FILL | DUTY_VERW
RUN_LOOP vmx_run_loop_lazy_rsb_verw, 0, 0, 2, DUTY_RSB_FILL | DUTY_VERW
RUN_LOOP vmx_run_loop_pmu_timed_rsb_verw, 1, vmx_handle_exit_pmu, 0, DUTY_RSB_FILL | DUTY_VERW
RUN_LOOP vmx_run_loop_lazy_timed_rsb_verw, 1, 0, 2, DUTY_RSB_FILL | DUTY_VERW
