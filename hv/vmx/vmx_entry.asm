; SPDX-License-Identifier: MIT
; The VMLAUNCH/VMRESUME loop.  The host's callee-saved registers are saved
; once per vCPU run; per exit only the guest's GPRs are stored and
; reloaded, and the C exit handler is called from here.  RSP and RIP live
; in the VMCS (vmx_handle_exit syncs them); RAX is a plain GPR on VMX.
bits 64
default rel
section .text

extern vmx_handle_exit
extern vmx_handle_exit_pmu
extern vmx_entry_failed

%include "core/guest_regs.inc"

%define VMCS_HOST_RSP 0x6c14
%define VMCS_HOST_RIP 0x6c16

; Stack frame while the loop runs: [rsp + 8] launched flag, [rsp + 16] vcpu
%define F_LAUNCHED 8
%define F_VCPU 16

; void NAME(struct vcpu *vcpu): returns when the VM has stopped.  The timed
; variant also stamps the TSC just before VMLAUNCH/VMRESUME and just after
; the VM exit (vmrun_to_guest / guest_to_exit).  %3 is the exit handler:
; VMs with a PMU mode use the one that switches the PMU around the exit.
%macro RUN_LOOP 3
global %1
%1:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	push 0				; not launched yet
	sub rsp, 8			; 16-byte alignment at the calls below
	; A VM exit lands on .exit with this RSP (SDM Vol 3 §28.5.3)
	mov rax, VMCS_HOST_RSP
	vmwrite rax, rsp
	lea rdx, [%%exit]
	mov rax, VMCS_HOST_RIP
	vmwrite rax, rdx
%%enter:
	mov rdi, [rsp + F_VCPU]
%if %2
	lfence
	STAMP_TSC T_ENTRY_TSC
%endif
	mov rax, [rdi + G_RAX]
	LOAD_GUEST_GPRS
	cmp byte [rsp + F_LAUNCHED], 0
	mov rdi, [rdi + G_RDI]		; MOV leaves the flags of the CMP alone
	jne %%resume
	vmlaunch
	jmp %%failed
%%resume:
	vmresume
%%failed:
	; VMfailInvalid/VMfailValid: the guest never ran
	mov rdi, [rsp + F_VCPU]
	call vmx_entry_failed
	jmp %%out
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
	mov byte [rsp + F_LAUNCHED], 1
	call %3				; rdi = vcpu; non-zero: enter again
	test eax, eax
	jnz %%enter
%%out:
	add rsp, 24
	POP_HOST_CALLEE_SAVED
	ret
%endmacro

RUN_LOOP vmx_run_loop, 0, vmx_handle_exit
RUN_LOOP vmx_run_loop_timed, 1, vmx_handle_exit
RUN_LOOP vmx_run_loop_pmu, 0, vmx_handle_exit_pmu
RUN_LOOP vmx_run_loop_pmu_timed, 1, vmx_handle_exit_pmu
