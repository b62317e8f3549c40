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
; duties: a timed loop's stamps lie within its first 1024 bytes (guest_regs.inc).
%define TIMED_ALIGN 1024

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
%if (%2) & DUTY_VERW
	CLEAR_CPU_BUFFERS
%endif
%endmacro

; RUN_LOOP name, timed, handler, dispatch, duties
; void name(struct vcpu *vcpu): returns when the VM has stopped.
;   timed: 1 also stamps the TSC just before VMLAUNCH/VMRESUME and just
;     after the VM exit (vmrun_to_guest / guest_to_exit).
;   handler: the exit handler, called for every exit (dispatch 0: sw,
;     sw-noelide, the PMU switch around each) or for reasons from 256 up
;     (dispatch 1: the others call the basic reason's entry of
;     vmx_fast_exits).  dispatch 2 (sw-lazy): every reason calls through
;     the table vcpu->exit_table points to, reasons from 256 up its last
;     entry; the PMU code switches it between the fast handlers and its
;     world switch (vmx_pmu.c).
;   duties: the per-exit duties, one duty set (core/duties.inc).
%macro RUN_LOOP 5
%push run_loop
%define %$name %1
%define %$timed %2
%define %$handler %3
%define %$dispatch %4
%define %$duties %5
%if %$timed
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
%$name:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	sub rsp, 16			; 16-byte alignment at the calls below
	; A VM exit lands on .exit with this RSP (SDM Vol 3 §28.5.3)
	mov rax, VMCS_HOST_RSP
	vmwrite rax, rsp
	lea rdx, [%%exit]
	mov rax, VMCS_HOST_RIP
	vmwrite rax, rdx
	LOAD_GUEST %$timed, %$duties, %$name
	vmlaunch
	jmp %%failed
%%exit:
	push rdi
	mov rdi, [rsp + 8 + F_VCPU]
	mov [rdi + G_RAX], rax
	mov [rdi + G_RDX], rdx
%if %$timed
	STAMP_TSC T_EXIT_TSC
%endif
	STORE_GUEST_GPRS
	pop qword [rdi + G_RDI]
	EXIT_DUTIES %$duties
%if (%$duties & DUTY_CLEAR_REGS) && %$dispatch == 0
	xor eax, eax			; guest values the handler call does not load
	xor esi, esi
%endif
%if %$dispatch
	; Only bits 15:0 are the basic reason (SDM Vol 3 §28.2.1); reasons
	; from 256 up take the general path, and the MOVZX keeps even a
	; mispredicted index inside the table.
	mov eax, VMCS_EXIT_REASON
	vmread rsi, rax
	cmp si, 0x100
	jae %%general
	movzx eax, sil
	CALL_EXIT_TABLE %$dispatch, vmx_fast_exits, %$duties	; (vcpu, reason); non-zero: enter again
%else
	call %$handler
%endif
%%handled:
	test eax, eax
	jz %%out
	LOAD_GUEST %$timed, %$duties, %$name
	vmresume
%%failed:
	; VMfailInvalid/VMfailValid: the guest never ran
	mov rdi, [rsp + F_VCPU]
	call vmx_entry_failed
%%out:
	add rsp, 24
	POP_HOST_CALLEE_SAVED
	ret
%if %$dispatch
%%general:
	CALL_EXIT_GENERAL %$dispatch, %$handler, %%handled, %$duties
%endif
%pop
%endmacro

; The loop kinds, as enum vmx_loop_kind (vmx.h): %1 name, %2 timed, %3 duties
%macro VMX_KIND_0 3			; PMU off: the fast handlers
	RUN_LOOP %1, %2, vmx_handle_exit_reason, 1, %3
%endmacro
%macro VMX_KIND_1 3			; sw, sw-noelide (and hw, which VMX has not)
	RUN_LOOP %1, %2, vmx_handle_exit_pmu, 0, %3
%endmacro
%macro VMX_KIND_2 3			; sw-lazy
	RUN_LOOP %1, %2, 0, 2, %3
%endmacro
%define VMX_LOOP_KINDS 3

DUTY_DATA

; One loop per kind, timed or not, and duty set, and the table of them:
; vmx_run_loop_fn *const vmx_run_loops[VMX_LOOP_KINDS][2][DUTY_SETS]
RUN_LOOPS VMX_KIND_, vmx_loop_, VMX_LOOP_KINDS, vmx_run_loops

section .rodata
global vmx_loop_duty_sets
DUTY_SET_LIST vmx_loop_duty_sets
