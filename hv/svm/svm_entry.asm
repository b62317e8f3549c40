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
; per-exit duties, one duty set (core/duties.inc).  %6: an MSR to write 0
; right before every VMRUN, or 0 (pmu_entry_zeroed_msr).
%macro RUN_LOOP 6
%if %2
	TIMED_LOOP_ALIGN TIMED_ALIGN
%endif
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
%if (%5) & DUTY_VERW
	CLEAR_CPU_BUFFERS
%endif
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
	EXIT_DUTIES %5
	mov rsi, [rsp + F_VMCB]		; identity-mapped: the VMCB's address
%if %4
	; Codes above 255 (NPF, VMEXIT_INVALID) take the general path; the
	; MOVZX keeps even a mispredicted index inside the table.
	cmp qword [rsi + VMCB_EXIT_CODE], 0xff
	ja %%general
	movzx eax, byte [rsi + VMCB_EXIT_CODE]
	CALL_EXIT_TABLE %4, svm_fast_exits, %5	; (vcpu, vmcb); non-zero: enter again
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
	CALL_EXIT_GENERAL %4, %3, %%handled, %5
%endif
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

; One loop per kind, timed or not, and duty set
%assign k 0
%rep SVM_LOOP_KINDS
%assign t 0
%rep 2
%assign s 0
%rep DUTY_SETS
	SVM_KIND_%[k] svm_loop_%[k]_%[t]_%[s], t, DUTY_SET_%[s]
%assign s s + 1
%endrep
%assign t t + 1
%endrep
%assign k k + 1
%endrep

; the table of loop addresses needs load-time relocation: not .rodata
section .data.rel.ro progbits alloc noexec write align=8
; svm_run_loop_fn *const svm_run_loops[SVM_LOOP_KINDS][2][DUTY_SETS]
global svm_run_loops
svm_run_loops:
%assign k 0
%rep SVM_LOOP_KINDS
%assign t 0
%rep 2
%assign s 0
%rep DUTY_SETS
	dq svm_loop_%[k]_%[t]_%[s]
%assign s s + 1
%endrep
%assign t t + 1
%endrep
%assign k k + 1
%endrep

section .rodata
global svm_loop_duty_sets
DUTY_SET_LIST svm_loop_duty_sets
