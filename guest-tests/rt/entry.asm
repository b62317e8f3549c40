; SPDX-License-Identifier: MIT
; Guest entry, exception stubs and the probes that expect a fault.
bits 64
default rel

extern guest_main
extern guest_exception
extern hypercall
global _start
global guest_isr_stubs
global rdmsr_safe
global wrmsr_safe
global single_step_probe
global fault_fixup
global fault_armed
global fault_vector
global fault_rip

section .text.entry
; mhv starts us in 64-bit mode with RSP set, RDI = variant, RSI = RAM size
_start:
	cld
	call guest_main
	; guest_main returns the exit code: hypercall(HC_EXIT, code, 0), on
	; whichever channel the runtime chose
	mov rsi, rax
	mov edi, 4			; HC_EXIT
	xor edx, edx
	call hypercall
.dead:
	hlt
	jmp .dead

section .text

%include "guest-tests/rt/fault_probe.inc"

%define HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)
align 16
guest_isr_stubs:
%assign v 0
%rep 256
	align 16
%if HAS_ERR(v) == 0
	push 0
%endif
	push v
	jmp isr_common
%assign v v + 1
%endrep

isr_common:
	push rax
	push rcx
	push rdx
	push rbx
	push rbp
	push rsi
	push rdi
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	call guest_exception
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rdi
	pop rsi
	pop rbp
	pop rbx
	pop rdx
	pop rcx
	pop rax
	add rsp, 16
	iretq

; int rdmsr_safe(u32 msr, u64 *val): -1, or the vector of the fault it raised
rdmsr_safe:
	mov ecx, edi
	FAULT_PROBE_BEGIN
	rdmsr
	shl rdx, 32
	or rax, rdx
	mov [rsi], rax
	FAULT_PROBE_END

; int wrmsr_safe(u32 msr, u64 val)
wrmsr_safe:
	mov ecx, edi
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	wrmsr
	FAULT_PROBE_END

; int rdpmc_safe(u32 ecx, u64 *val): -1, or the vector of the fault it raised
global rdpmc_safe
rdpmc_safe:
	mov ecx, edi
	FAULT_PROBE_BEGIN
	rdpmc
	shl rdx, 32
	or rax, rdx
	mov [rsi], rax
	FAULT_PROBE_END

; int cr4_write_probe(u64 value): -1, or the vector of the fault it raised
global cr4_write_probe
cr4_write_probe:
	FAULT_PROBE_BEGIN
	mov cr4, rdi
	FAULT_PROBE_END

; int xsetbv_safe(u32 index, u64 value): -1, or the vector of the fault it raised
global xsetbv_safe
xsetbv_safe:
	mov ecx, edi
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	xsetbv
	FAULT_PROBE_END

; int xsaves_safe(void *area, u64 mask): -1, or the vector of the fault it raised
; (#UD where the hypervisor has not enabled XSAVES for its guests)
global xsaves_safe
xsaves_safe:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	xsaves64 [rdi]
	FAULT_PROBE_END

; int xrstors_safe(const void *area, u64 mask): -1, or the vector of the fault it raised
global xrstors_safe
xrstors_safe:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	xrstors64 [rdi]
	FAULT_PROBE_END

; int single_step_probe(void): sets TF, runs one instruction; the vector seen
single_step_probe:
	FAULT_PROBE_BEGIN
	pushfq
	or qword [rsp], 0x100
	popfq
	nop
	nop
	FAULT_PROBE_END

; int single_step_exit_probe(void): TF set, then CPUID, which exits and mhv
; completes: the vector that arrived after it (1: mhv delivered the step's
; #DB), or -1; fault_rip says where it arrived (single_step_exit_next)
global single_step_exit_probe
global single_step_exit_next
single_step_exit_probe:
	push rbx
	lea r8, [single_step_exit_fault]
	mov [fault_fixup], r8
	mov byte [fault_armed], 1
	xor eax, eax
	xor ecx, ecx
	pushfq
	or qword [rsp], 0x100
	popfq
	cpuid
single_step_exit_next:
	mov byte [fault_armed], 0
	mov eax, -1
	pop rbx
	ret
single_step_exit_fault:
	movzx eax, byte [fault_vector]
	pop rbx
	ret

; int syscall_probe(void): SYSCALL, which lands at syscall_landing when
; EFER.SCE is set (the caller points LSTAR there, STAR's CS at the guest's
; code segment, SFMASK at 0); syscall_taken says whether it did.  -1, or
; the vector of the fault it raised (#UD with EFER.SCE clear).
global syscall_probe
global syscall_landing
global syscall_taken
syscall_probe:
	mov dword [syscall_taken], 0
	FAULT_PROBE_BEGIN
	syscall
	FAULT_PROBE_END

; SYSCALL left the return RIP in RCX and RFLAGS in R11: back, at CPL 0
syscall_landing:
	mov dword [syscall_taken], 1
	push r11
	popfq
	jmp rcx

; int NAME_probe(void): runs one instruction that must fault; the vector seen, or -1
%macro PROBE 2
global %1_probe
%1_probe:
	xor eax, eax
	xor ecx, ecx
	FAULT_PROBE_BEGIN
	%2
	FAULT_PROBE_END
%endmacro

PROBE vmrun, vmrun
PROBE vmload, vmload
PROBE vmsave, vmsave
PROBE stgi, stgi
PROBE clgi, clgi
PROBE invlpga, invlpga
PROBE ud2, ud2
PROBE rdpmc, rdpmc
PROBE vmxon, {vmxon [probe_scratch]}
PROBE vmxoff, vmxoff
PROBE vmclear, {vmclear [probe_scratch]}
PROBE vmptrld, {vmptrld [probe_scratch]}
PROBE vmptrst, {vmptrst [probe_scratch]}
PROBE vmread, {vmread rax, rcx}
PROBE vmwrite, {vmwrite rcx, rax}
PROBE vmlaunch, vmlaunch
PROBE vmresume, vmresume
PROBE invept, {invept rax, [probe_scratch]}
PROBE invvpid, {invvpid rax, [probe_scratch]}

section .data
align 16
probe_scratch: dq 0, 0
fault_fixup: dq 0
fault_armed: db 0
fault_vector: db 0
align 8
fault_rip: dq 0
syscall_taken: dd 0
