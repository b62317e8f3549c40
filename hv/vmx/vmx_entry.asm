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

; void NAME(struct vcpu *vcpu): returns when the VM has stopped.  The timed
; variant also stamps the TSC just before VMLAUNCH/VMRESUME and just after
; the VM exit (vmrun_to_guest / guest_to_exit).  %3 is the exit handler,
; called for every exit (%4 = 0: sw, sw-noelide, the PMU switch around each)
; or for reasons from 256 up (%4 = 1: the others call the basic reason's
; entry of vmx_fast_exits).  %4 = 2 (sw-lazy): every reason calls through
; the table vcpu->exit_table points to, reasons from 256 up its last entry;
; the PMU code switches it between the fast handlers and its world switch
; (vmx_pmu.c).  %5: the per-exit duties, one duty set (core/duties.inc).
%macro RUN_LOOP 5
%if %2
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
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
	EXIT_DUTIES %5
%if (%5 & DUTY_CLEAR_REGS) && %4 == 0
	xor eax, eax			; guest values the handler call does not load
	xor esi, esi
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
	CALL_EXIT_TABLE %4, vmx_fast_exits, %5	; (vcpu, reason); non-zero: enter again
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
	CALL_EXIT_GENERAL %4, %3, %%handled, %5
%endif
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

; One loop per kind, timed or not, and duty set
%assign k 0
%rep VMX_LOOP_KINDS
%assign t 0
%rep 2
%assign s 0
%rep DUTY_SETS
	VMX_KIND_%[k] vmx_loop_%[k]_%[t]_%[s], t, DUTY_SET_%[s]
%assign s s + 1
%endrep
%assign t t + 1
%endrep
%assign k k + 1
%endrep

; the table of loop addresses needs load-time relocation: not .rodata
section .data.rel.ro progbits alloc noexec write align=8
; vmx_run_loop_fn *const vmx_run_loops[VMX_LOOP_KINDS][2][DUTY_SETS]
global vmx_run_loops
vmx_run_loops:
%assign k 0
%rep VMX_LOOP_KINDS
%assign t 0
%rep 2
%assign s 0
%rep DUTY_SETS
	dq vmx_loop_%[k]_%[t]_%[s]
%assign s s + 1
%endrep
%assign t t + 1
%endrep
%assign k k + 1
%endrep

section .rodata
global vmx_loop_duty_sets
DUTY_SET_LIST vmx_loop_duty_sets
