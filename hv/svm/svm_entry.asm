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

; RUN_LOOP name, timed, handler, dispatch, duties, zeroed_msr
; void name(struct vcpu *vcpu, u64 vmcb_pa): returns when the exit handler
; says the VM stopped.
;   timed: 1 also stamps the TSC just before VMRUN and just after #VMEXIT
;     (vmrun_to_guest / guest_to_exit); 0, used for everything else, has
;     no extra instruction.
;   handler: the exit handler, called for every exit (dispatch 0) or for
;     codes above 255 (dispatch 1: the others call the code's entry of
;     svm_fast_exits).  dispatch 2: every code calls through the table
;     vcpu->exit_table points to, codes above 255 its last entry; the PMU
;     code switches it between the plain handlers and its world switch
;     (svm_pmu.c).
;   duties: the per-exit duties, one duty set (core/duties.inc).
;   zeroed_msr: an MSR to write 0 right before every VMRUN, or 0
;     (pmu_entry_zeroed_msr).
%macro RUN_LOOP 6
%push run_loop
%define %$name %1
%define %$timed %2
%define %$handler %3
%define %$dispatch %4
%define %$duties %5
%define %$zeroed_msr %6
%if %$timed
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
%$name:
	PUSH_HOST_CALLEE_SAVED
	push rdi
	push rsi
	sub rsp, 8			; 16-byte alignment at the call below
%%enter:
%if %$zeroed_msr
	mov ecx, %$zeroed_msr
	xor eax, eax
	xor edx, edx
	wrmsr
%endif
	mov rdi, [rsp + F_VCPU]
%if %$timed
	lfence
	STAMP_TSC T_ENTRY_TSC
%endif
	mov rax, [rsp + F_VMCB]		; VMRUN takes the VMCB in RAX
	LOAD_GUEST_GPRS
	mov rdi, [rdi + G_RDI]
%if (%$duties) & DUTY_VERW
	CLEAR_CPU_BUFFERS
%endif
	vmrun
	; #VMEXIT: host RSP, RAX and RIP are back from the host save area
	push rdi
	mov rdi, [rsp + 8 + F_VCPU]
	mov [rdi + G_RDX], rdx
%if %$timed
	; RAX is the host's here: guest RAX is in the VMCB
	STAMP_TSC T_EXIT_TSC
	TIMED_LOOP_CHECK %$name, TIMED_ALIGN
%endif
	STORE_GUEST_GPRS
	pop qword [rdi + G_RDI]
	EXIT_DUTIES %$duties
	mov rsi, [rsp + F_VMCB]		; identity-mapped: the VMCB's address
%if %$dispatch
	; Codes above 255 (NPF, VMEXIT_INVALID) take the general path; the
	; MOVZX keeps even a mispredicted index inside the table.
	cmp qword [rsi + VMCB_EXIT_CODE], 0xff
	ja %%general
	movzx eax, byte [rsi + VMCB_EXIT_CODE]
	CALL_EXIT_TABLE %$dispatch, svm_fast_exits, %$duties	; (vcpu, vmcb); non-zero: enter again
%else
	call %$handler
%endif
%%handled:
	test eax, eax
	jnz %%enter
	add rsp, 24
	POP_HOST_CALLEE_SAVED
	ret
%if %$dispatch
%%general:
	CALL_EXIT_GENERAL %$dispatch, %$handler, %%handled, %$duties
%endif
%pop
%endmacro

; PerfCntrGlobalCtl (APM Vol 2 §13.2.1, PerfMonV2): PMU_HW's VMRUN needs it 0
%define ZERO_GLOBAL_CTL 0xc0000301

; The loop kinds, as enum svm_loop_kind (svm.h): %1 name, %2 timed, %3 duties
%macro SVM_KIND_0 3			; PMU off: the fast handlers
	RUN_LOOP %1, %2, svm_handle_exit, 1, %3, 0
%endmacro
%macro SVM_KIND_1 3			; sw, sw-noelide: the switch around every exit
	RUN_LOOP %1, %2, svm_handle_exit_pmu, 0, %3, 0
%endmacro
%macro SVM_KIND_2 3			; sw-lazy: fast handlers while the PMU needs no hook
	RUN_LOOP %1, %2, 0, 2, %3, 0
%endmacro
%macro SVM_KIND_3 3			; hw: the same, and the host GLOBAL_CTL off before each VMRUN
	RUN_LOOP %1, %2, 0, 2, %3, ZERO_GLOBAL_CTL
%endmacro
%define SVM_LOOP_KINDS 4

DUTY_DATA

; One loop per kind, timed or not, and duty set, and the table of them:
; svm_run_loop_fn *const svm_run_loops[SVM_LOOP_KINDS][2][DUTY_SETS]
RUN_LOOPS SVM_KIND_, svm_loop_, SVM_LOOP_KINDS, svm_run_loops

section .rodata
global svm_loop_duty_sets
DUTY_SET_LIST svm_loop_duty_sets
