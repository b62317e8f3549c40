; SPDX-License-Identifier: MIT
; Probes for the fuzz guest: one instruction each, any operand, that may
; fault.  Each returns -1, or the vector of the fault it raised (the
; runtime's fixup, rt/entry.asm, resumes after it).
bits 64
default rel

extern fault_fixup
extern fault_armed
extern fault_vector

section .text

%include "guest-tests/rt/fault_probe.inc"

; int probe_in(u16 port, u32 size, u32 *val): IN of 1, 2 or 4 bytes
global probe_in
probe_in:
	mov r9, rdx
	mov edx, edi
	xor eax, eax
	FAULT_PROBE_BEGIN
	cmp esi, 1
	je .b
	cmp esi, 2
	je .w
	in eax, dx
	jmp .done
.b:	in al, dx
	jmp .done
.w:	in ax, dx
.done:
	mov [r9], eax
	FAULT_PROBE_END

; int probe_out(u16 port, u32 size, u32 val)
global probe_out
probe_out:
	mov eax, edx
	mov edx, edi
	FAULT_PROBE_BEGIN
	cmp esi, 1
	je .b
	cmp esi, 2
	je .w
	out dx, eax
	jmp .done
.b:	out dx, al
	jmp .done
.w:	out dx, ax
.done:
	FAULT_PROBE_END

; int probe_ins(u16 port, u32 size, void *buf, u64 count): REP INS
global probe_ins
probe_ins:
	mov eax, edi
	mov rdi, rdx
	mov edx, eax
	FAULT_PROBE_BEGIN
	cmp esi, 1
	je .b
	cmp esi, 2
	je .w
	rep insd
	jmp .done
.b:	rep insb
	jmp .done
.w:	rep insw
.done:
	FAULT_PROBE_END

; int probe_outs(u16 port, u32 size, const void *buf, u64 count): REP OUTS
global probe_outs
probe_outs:
	mov r9d, esi
	mov rsi, rdx
	mov edx, edi
	FAULT_PROBE_BEGIN
	cmp r9d, 1
	je .b
	cmp r9d, 2
	je .w
	rep outsd
	jmp .done
.b:	rep outsb
	jmp .done
.w:	rep outsw
.done:
	FAULT_PROBE_END

; int probe_mmio_read(u64 addr, u32 size, u64 *val): one MOV from memory
global probe_mmio_read
probe_mmio_read:
	mov r9, rdx
	xor eax, eax
	FAULT_PROBE_BEGIN
	cmp esi, 1
	je .b
	cmp esi, 2
	je .w
	cmp esi, 4
	je .d
	mov rax, [rdi]
	jmp .done
.b:	mov al, [rdi]
	jmp .done
.w:	mov ax, [rdi]
	jmp .done
.d:	mov eax, [rdi]
.done:
	mov [r9], rax
	FAULT_PROBE_END

; int probe_mmio_write(u64 addr, u32 size, u64 val): one MOV to memory
global probe_mmio_write
probe_mmio_write:
	FAULT_PROBE_BEGIN
	cmp esi, 1
	je .b
	cmp esi, 2
	je .w
	cmp esi, 4
	je .d
	mov [rdi], rdx
	jmp .done
.b:	mov [rdi], dl
	jmp .done
.w:	mov [rdi], dx
	jmp .done
.d:	mov [rdi], edx
.done:
	FAULT_PROBE_END

; int probe_cr_write(u32 cr, u64 val): MOV to CR0, CR3, CR4 or CR8
global probe_cr_write
probe_cr_write:
	FAULT_PROBE_BEGIN
	cmp edi, 0
	je .c0
	cmp edi, 3
	je .c3
	cmp edi, 4
	je .c4
	mov cr8, rsi
	jmp .done
.c0:	mov cr0, rsi
	jmp .done
.c3:	mov cr3, rsi
	jmp .done
.c4:	mov cr4, rsi
.done:
	FAULT_PROBE_END

; int probe_dr_write(u32 dr, u64 val): MOV to DR0-DR7 (4 and 5 alias 6
; and 7 unless CR4.DE); DR7 is 0 again before it returns, fault or not
global probe_dr_write
probe_dr_write:
	FAULT_PROBE_BEGIN
	cmp edi, 0
	je .d0
	cmp edi, 1
	je .d1
	cmp edi, 2
	je .d2
	cmp edi, 3
	je .d3
	cmp edi, 4
	je .d4
	cmp edi, 5
	je .d5
	cmp edi, 6
	je .d6
	mov dr7, rsi
	jmp .done
.d0:	mov dr0, rsi
	jmp .done
.d1:	mov dr1, rsi
	jmp .done
.d2:	mov dr2, rsi
	jmp .done
.d3:	mov dr3, rsi
	jmp .done
.d4:	mov dr4, rsi
	jmp .done
.d5:	mov dr5, rsi
	jmp .done
.d6:	mov dr6, rsi
.done:
	xor ecx, ecx
	mov dr7, rcx
	mov byte [fault_armed], 0
	mov eax, -1
	ret
%$fault:
	xor ecx, ecx
	mov dr7, rcx
	movzx eax, byte [fault_vector]
	ret
	%pop

; int probe_hypercall(bool vmcall, u64 nr, u64 a0, u64 a1, u64 *ret):
; VMCALL or VMMCALL, whichever the vendor lacks raising #UD
global probe_hypercall
probe_hypercall:
	push rbx
	mov r10, r8
	mov r11d, edi
	mov rax, rsi
	mov rdi, rdx
	mov rsi, rcx
	xor edx, edx
	xor ecx, ecx
	FAULT_PROBE_BEGIN
	test r11d, r11d
	jz .amd
	vmcall
	jmp .done
.amd:	vmmcall
.done:
	mov [r10], rax
	mov byte [fault_armed], 0
	mov eax, -1
	pop rbx
	ret
%$fault:
	movzx eax, byte [fault_vector]
	pop rbx
	ret
	%pop

; int probe_invlpg(u64 addr)
global probe_invlpg
probe_invlpg:
	FAULT_PROBE_BEGIN
	invlpg [rdi]
	FAULT_PROBE_END

; int probe_xsave(void *area, u64 mask)
global probe_xsave
probe_xsave:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	xsave64 [rdi]
	FAULT_PROBE_END

; int probe_xrstor(const void *area, u64 mask)
global probe_xrstor
probe_xrstor:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	FAULT_PROBE_BEGIN
	xrstor64 [rdi]
	FAULT_PROBE_END

; void probe_halt(void): STI; HLT; CLI - wakes on an interrupt, taken at once
global probe_halt
probe_halt:
	sti
	hlt
	cli
	ret
