; SPDX-License-Identifier: MIT
; The fuzz guest as a multiboot kernel for the bare emulator (docs/fuzz.md):
; the multiboot header, then into long mode on identity page tables of the
; low 4 GiB (2 MiB pages), the GDT mhv gives its guests (code 0x08, data
; 0x10), and the runtime's _start with RDI = 2, the differential variant.
bits 32
%include "tests/multiboot/identity_4g.inc"
section .multiboot
align 4
	dd 0x1badb002			; magic (Multiboot Specification §3.1.1)
	dd 0				; flags
	dd -0x1badb002			; checksum

section .text.boot
global bare_start
extern _start
global bare_mbi
bare_start:
	mov [bare_mbi], ebx		; the boot information (§3.2)
	lgdt [gdtr]
	jmp 0x18:.reload		; 32-bit code until paging is on
.reload:
	mov ecx, 0x10
	mov ds, ecx
	mov es, ecx
	mov ss, ecx
	mov esp, stack_top
	IDENTITY_4G_FILL
	; into IA-32e mode (SDM Vol 3 §10.8.5): PAE, CR3, EFER.LME, CR0.PG
	mov eax, cr4
	or eax, (1 << 5) | (1 << 9) | (1 << 10)	; PAE, OSFXSR, OSXMMEXCPT
	mov cr4, eax
	mov eax, pml4
	mov cr3, eax
	mov ecx, 0xc0000080
	rdmsr
	or eax, 1 << 8
	wrmsr
	mov eax, cr0
	and eax, ~((1 << 30) | (1 << 29) | (1 << 2))	; caches on, no x87 emulation
	or eax, (1 << 31) | (1 << 16) | (1 << 5) | (1 << 1)	; PG, WP, NE, MP
	mov cr0, eax
	jmp 0x08:.long
bits 64
.long:
	mov ecx, 0x10
	mov ds, ecx
	mov es, ecx
	mov ss, ecx
	mov rsp, stack_top
	mov edi, 2			; the differential variant (guest-tests/fuzz.c)
	mov esi, 0x400000
	jmp _start

section .data
align 8
gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
	dq 0x00cf9a000000ffff		; 0x18: 32-bit code
gdtr:
	dw gdtr - gdt - 1
	dd gdt
bare_mbi: dd 0

section .bss
IDENTITY_4G_TABLES
align 16
	resb 65536
stack_top:
