; SPDX-License-Identifier: MIT
; Host exception and interrupt entry stubs.  Every stub is 16 bytes, so C
; computes stub addresses from isr_stubs alone and no table of absolute
; addresses (relocations) is needed.
bits 64
default rel
section .text

extern isr_dispatch
global isr_stubs
global gdt_load
global rdmsr_safe
global wrmsr_safe
global rdmsr_safe_insn
global wrmsr_safe_insn
global msr_fault

; Vectors whose exception pushes an error code (SDM Vol 3 §6.15, APM Vol 2 §8.2)
%define HAS_ERR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

align 16
isr_stubs:
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
	cld
	call isr_dispatch
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

; void gdt_load(const struct desc_ptr *gdtr, u16 cs, u16 ds, u16 tss)
gdt_load:
	lgdt [rdi]
	mov ds, dx
	mov es, dx
	mov ss, dx
	xor eax, eax
	mov fs, ax
	mov gs, ax
	ltr cx
	; reload CS with a far return
	movzx rsi, si
	lea rax, [.reloaded]
	push rsi
	push rax
	retfq
.reloaded:
	ret

; int rdmsr_safe(u32 msr, u64 *val): 0, or -1 when RDMSR raised #GP
; (isr_dispatch resumes a #GP at rdmsr_safe_insn at msr_fault).  The
; faulting RIP says which access it was: no shared state, so any number
; of CPUs probe MSRs at once (a machine check reaches them all together).
rdmsr_safe:
	mov ecx, edi
rdmsr_safe_insn:
	rdmsr
	shl rdx, 32
	or rax, rdx
	mov [rsi], rax
	xor eax, eax
	ret

; int wrmsr_safe(u32 msr, u64 val): 0, or -1 when WRMSR raised #GP
wrmsr_safe:
	mov ecx, edi
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
wrmsr_safe_insn:
	wrmsr
	xor eax, eax
	ret

; where either resumes after a #GP
msr_fault:
	mov eax, -1
	ret
