; SPDX-License-Identifier: MIT
; A multiboot (v1) test kernel for mhv's external-guest support: the
; header, and an entry that keeps EAX/EBX for mbtest_main on its own stack.
bits 32
%include "tests/multiboot/identity_4g.inc"
section .multiboot
align 4
	dd 0x1badb002			; magic (Multiboot Specification §3.1.1)
	dd 0x00000002			; flags: memory information
	dd -(0x1badb002 + 0x00000002)	; checksum

section .text
global _start
extern mbtest_main
_start:
	; the boot GDTR may be invalid (§3.2): our own GDT before any segment load
	lgdt [gdtr]
	jmp 0x08:.reload
.reload:
	mov ecx, 0x10
	mov ds, ecx
	mov es, ecx
	mov ss, ecx
	mov esp, stack_top
	push ebx			; boot information
	push eax			; boot magic
	call mbtest_main		; returns the number of failed checks
	mov [failures32], eax
	jmp long_mode_check
.halt:
	cli
	hlt
	jmp .halt

; #UD handler: count it, step over the 2-byte UD2, return
global ud_handler
extern ud_count
ud_handler:
	inc dword [ud_count]
	add dword [esp], 2
	iret

; #GP handler: count it, drop the error code, step over the 2-byte
; RDMSR/WRMSR that raised it
global gp_handler
extern gp_count
gp_handler:
	inc dword [gp_count]
	add esp, 4
	add dword [esp], 2
	iret

; LAPIC interrupts: count per vector, EOI through the xAPIC page
global timer_irq, ipi_irq
extern timer_count, ipi_count
timer_irq:
	inc dword [timer_count]
	mov dword [0xfee000b0], 0
	iret
ipi_irq:
	inc dword [ipi_count]
	mov dword [0xfee000b0], 0
	iret

; The AP trampoline, copied below 1 MiB and started by INIT-SIPI in real
; mode at CS = vector << 8, IP 0: it counts itself in and records its CS.
global ap_tramp_start, ap_tramp_end
bits 16
ap_tramp_start:
	xor ax, ax
	mov ds, ax
	lock inc dword [0x7000]		; APs started
	mov ax, cs
	mov [0x7004], ax		; the CS the SIPI gave
.park:
	cli
	hlt
	jmp .park
ap_tramp_end:
bits 32

; Into long mode as kvm-unit-tests' 64-bit binaries do (SDM Vol 3 §10.8.5):
; PAE, CR3, EFER.LME by WRMSR, then CR0.PG, then a far jump to a 64-bit CS.
; There: EFER.LMA must read 1 and the xAPIC version must read through the
; page from 64-bit code; then the exit port gets the failure count.
long_mode_check:
	IDENTITY_4G_FILL
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, 1 << 8			; LME
	wrmsr
	mov eax, cr0
	or eax, 1 << 31			; PG
	mov cr0, eax
	jmp 0x18:long64
bits 64
long64:
	mov ecx, 0xc0000080
	rdmsr
	mov ebx, [rel failures32]
	test eax, 1 << 10		; LMA
	jz .fail
	mov rsi, 0xfee00030
	mov eax, [rsi]
	cmp al, 0x14
	jne .fail
	lea rsi, [rel pass_msg]
	jmp .print
.fail:
	inc ebx
	lea rsi, [rel fail_msg]
.print:
	mov dx, 0x3f8
.next:
	lodsb
	test al, al
	jz .done
	out dx, al
	jmp .next
.done:
	mov eax, ebx
	out 0xf4, eax
.hang:
	cli
	hlt
	jmp .hang
bits 32

section .rodata
pass_msg: db "mbtest: PASS long_mode", 10, 0
fail_msg: db "mbtest: FAIL long_mode", 10, 0

section .data
align 8
gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff		; 0x10: data, flat
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
gdtr:
	dw gdtr - gdt - 1
	dd gdt

failures32: dd 0

section .bss
IDENTITY_4G_TABLES
align 16
	resb 16384
stack_top:
