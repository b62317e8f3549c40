; SPDX-License-Identifier: MIT
; Exact instruction sequences for the bare PMU test (pmutest.c): what the
; model must count is written out here, instruction by instruction.
bits 64
default rel
section .text

GLOBAL_CTL equ 0xc0000301
INTEL_GLOBAL_CTRL equ 0x38f

; u64 pmu_loop(u64 n, u64 global_ctl): enable the counters in
; PerfCntrGlobalCtl, retire n iterations of dec/jnz, disable them.
; Counted: the enabling WRMSR (it retires with the counters on), the mov,
; 2n loop instructions and the three that set up the disabling WRMSR, which
; retires with them off: 2n + 5 instructions, n branches.
; pmu_loop_intel does the same through IA32_PERF_GLOBAL_CTRL.
%macro PMU_LOOP 2 ; name, global control MSR
global %1
%1:
	mov r8, rdi
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	mov ecx, %2
	wrmsr			; 1
	mov rcx, r8		; 2
.l:	dec rcx
	jnz .l			; 2n, n branches
	mov ecx, %2		; 3
	xor eax, eax		; 4
	xor edx, edx		; 5
	wrmsr
	ret
%endmacro

; void pmu_loop_sti(u64 n, u64 global_ctl): pmu_loop with interrupts on
; while the counters run, so an overflow PMI (fixed delivery) is taken.
%macro PMU_LOOP_STI 2
global %1
%1:
	mov r8, rdi
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	mov ecx, %2
	sti
	wrmsr
	mov rcx, r8
.l:	dec rcx
	jnz .l
	mov ecx, %2
	xor eax, eax
	xor edx, edx
	wrmsr
	cli
	ret
%endmacro

PMU_LOOP pmu_loop, GLOBAL_CTL
PMU_LOOP_STI pmu_loop_sti, GLOBAL_CTL
PMU_LOOP pmu_loop_intel, INTEL_GLOBAL_CTRL
PMU_LOOP_STI pmu_loop_intel_sti, INTEL_GLOBAL_CTRL

; u64 svm_run(u64 vmcb_pa, u64 global_ctl, u64 n): enable the counters,
; VMRUN a guest that retires n iterations of dec/jnz and exits by VMMCALL
; (intercepted: it does not retire), disable them.  The host retires 6
; counted instructions (WRMSR, 2 movs before VMRUN, 3 after it); VMRUN
; retires in guest context, as one instruction and one branch: the guest
; retires 2n + 1 instructions and n + 1 branches.  GIF is 0 after #VMEXIT:
; STGI sets it again.
global svm_run
svm_run:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	mov r8, rdi
	mov r9, rdx
	mov rax, rsi
	xor edx, edx
	mov ecx, GLOBAL_CTL
	clgi
	wrmsr			; 1
	mov rcx, r9		; 2
	mov rax, r8		; 3
	vmrun
	mov ecx, GLOBAL_CTL	; 4
	xor eax, eax		; 5
	xor edx, edx		; 6
	wrmsr
	stgi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret

; The guest: RCX iterations (GPRs other than RAX/RSP are not switched by
; VMRUN), then VMMCALL.
global guest_code
guest_code:
.l:	dec rcx
	jnz .l
	vmmcall
	ud2

; #GP: count it and step over the 2-byte WRMSR/RDMSR/RDPMC that raised it
; (RIP sits above the error code).
global gp_handler, gp_count
gp_handler:
	inc dword [rel gp_count]
	add qword [rsp + 8], 2
	add rsp, 8
	iretq

section .data
align 4
gp_count: dd 0
