; SPDX-License-Identifier: MIT
; The VMRUN loop body.  Saves and restores the guest's GPRs and nothing
; else: RAX and RSP live in the VMCB (copied by svm_vcpu_run), and there
; is no VMLOAD/VMSAVE here: the host never uses the state they switch
; (FS/GS/TR/LDTR bases, KERNEL_GS_BASE, STAR/LSTAR/CSTAR/SFMASK, SYSENTER).
bits 64
default rel
section .text

; Offsets into struct guest_regs: gpr[] in ModRM order
%define G_RCX 8
%define G_RDX 16
%define G_RBX 24
%define G_RBP 40
%define G_RSI 48
%define G_RDI 56
%define G_R8  64
%define G_R9  72
%define G_R10 80
%define G_R11 88
%define G_R12 96
%define G_R13 104
%define G_R14 112
%define G_R15 120

global svm_vmrun
; void svm_vmrun(struct guest_regs *regs, u64 vmcb_pa)
svm_vmrun:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	push rdi			; regs, found again after #VMEXIT
	mov rax, rsi			; VMRUN takes the VMCB in RAX
	mov rcx, [rdi + G_RCX]
	mov rdx, [rdi + G_RDX]
	mov rbx, [rdi + G_RBX]
	mov rbp, [rdi + G_RBP]
	mov rsi, [rdi + G_RSI]
	mov r8,  [rdi + G_R8]
	mov r9,  [rdi + G_R9]
	mov r10, [rdi + G_R10]
	mov r11, [rdi + G_R11]
	mov r12, [rdi + G_R12]
	mov r13, [rdi + G_R13]
	mov r14, [rdi + G_R14]
	mov r15, [rdi + G_R15]
	mov rdi, [rdi + G_RDI]
	vmrun
	; #VMEXIT: host RSP, RAX and RIP are back from the host save area
	push rdi
	mov rdi, [rsp + 8]
	mov [rdi + G_RCX], rcx
	mov [rdi + G_RDX], rdx
	mov [rdi + G_RBX], rbx
	mov [rdi + G_RBP], rbp
	mov [rdi + G_RSI], rsi
	mov [rdi + G_R8],  r8
	mov [rdi + G_R9],  r9
	mov [rdi + G_R10], r10
	mov [rdi + G_R11], r11
	mov [rdi + G_R12], r12
	mov [rdi + G_R13], r13
	mov [rdi + G_R14], r14
	mov [rdi + G_R15], r15
	pop qword [rdi + G_RDI]
	add rsp, 8
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	ret
