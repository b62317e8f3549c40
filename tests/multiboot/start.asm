; SPDX-License-Identifier: MIT
; A multiboot (v1) test kernel for mhv's external-guest support: the
; header, and an entry that keeps EAX/EBX for mbtest_main on its own stack.
bits 32
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
	call mbtest_main
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

section .data
align 8
gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff		; 0x10: data, flat
gdtr:
	dw gdtr - gdt - 1
	dd gdt

section .bss
align 16
	resb 16384
stack_top:
