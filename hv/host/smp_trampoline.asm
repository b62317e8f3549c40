; SPDX-License-Identifier: MIT
; The AP start-up trampoline, copied to a page below 1 MiB (boot_info
; trampoline_base) before the SIPI that names that page.  An AP wakes in
; real mode at CS = page << 8, IP = 0 (SDM Vol 3 §8.4.4.1, §10.1.4), climbs
; to 32-bit protected mode and to long mode on small identity page tables
; that the BSP builds after the code, then loads mhv's own CR3 and takes the
; next slot.  It cannot know its own stack yet (that takes its APIC ID, in
; its APIC's mode, which is C's work), so one AP at a time runs
; smp_ap_boot(slot) on the shared boot stack, then moves to the stack that
; names, of its own NUMA node, and calls smp_ap_entry(cpu) there: it never
; comes back to the boot stack, which the next AP then takes.
; Everything is addressed relative to the copy's base (EBX), so one copy
; works at any page below 1 MiB.
bits 16
default abs
section .text

global smp_trampoline_start
global smp_trampoline_end

; The data block the BSP fills in (offsets from the trampoline's base)
%define T_GDTR (tramp_gdtr - smp_trampoline_start)
%define T_PM32 (tramp_pm32_ptr - smp_trampoline_start)
%define T_LM64 (tramp_lm64_ptr - smp_trampoline_start)
%define T_CR3_LOW (tramp_cr3_low - smp_trampoline_start)
%define T_EFER (tramp_efer - smp_trampoline_start)
%define T_CR3 (tramp_cr3 - smp_trampoline_start)
%define T_BOOT_STACK (tramp_boot_stack - smp_trampoline_start)
%define T_BOOT_LOCK (tramp_boot_lock - smp_trampoline_start)
%define T_BOOT (tramp_boot - smp_trampoline_start)
%define T_SLOTS (tramp_slots - smp_trampoline_start)
%define T_MAX_SLOTS (tramp_max_slots - smp_trampoline_start)
%define T_ENTRY (tramp_entry - smp_trampoline_start)
%define T_GDTR64 (tramp_gdtr64 - smp_trampoline_start)
%define T_PARK_IDTR (tramp_park_idtr - smp_trampoline_start)
%define T_PARKED (tramp_parked - smp_trampoline_start)
%define T_PARK_STACKS (tramp_park_stacks - smp_trampoline_start)

; A parked CPU's stack: room for the frame of an NMI (five quadwords,
; pushed at a 16-byte aligned RSP: SDM Vol 3 §6.14.2), whose handler is an
; IRETQ.  One page of them (the trampoline's last, smp.c).
%define PARK_STACK_BYTES 64
%define PARK_STACKS (4096 / PARK_STACK_BYTES)

%define CODE32 0x08
%define DATA32 0x10
%define CODE64 0x18

smp_trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4			; EBX = the trampoline's physical base
	o32 lgdt [T_GDTR]
	mov eax, cr0
	or eax, 1			; PE
	mov cr0, eax
	jmp dword far [T_PM32]		; offset32:selector, patched by the BSP

bits 32
tramp_pm32:
	mov ax, DATA32
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5			; PAE (SDM Vol 3 §9.8.5: PAE before LME+PG)
	mov cr4, eax
	mov eax, [ebx + T_CR3_LOW]
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER: LME (and NXE as on the BSP)
	mov eax, [ebx + T_EFER]
	xor edx, edx
	wrmsr
	mov eax, cr0
	or eax, 0x80000001		; PG | PE: long mode becomes active
	mov cr0, eax
	jmp far [ebx + T_LM64]

bits 64
tramp_lm64:
	mov ebx, ebx			; zero-extend the base
	mov rax, [rbx + T_CR3]		; mhv's page tables (identity map of all memory)
	mov cr3, rax
	; Each AP takes the next slot (its struct cpu without a MADT).  APs
	; started together race here.
	mov eax, 1
	lock xadd [rbx + T_SLOTS], eax
	cmp eax, [rbx + T_MAX_SLOTS]
	jae tramp_park			; more APs than slots, or slots closed: parked
	mov r12d, eax			; callee-saved across smp_ap_boot
.lock:					; the boot stack, one AP at a time
	mov eax, 1
	xchg eax, [rbx + T_BOOT_LOCK]
	test eax, eax
	jz .locked
.spin:
	pause
	cmp dword [rbx + T_BOOT_LOCK], 0
	jne .spin
	jmp .lock
.locked:
	mov rsp, [rbx + T_BOOT_STACK]
	xor ebp, ebp
	mov edi, r12d
	mov rax, [rbx + T_BOOT]
	call rax			; smp_ap_boot(slot): RAX = stack top, RDX = cpu
	test rax, rax
	jz tramp_park_unlock		; not a CPU mhv started, or too late: parked
	mov rsp, rax			; its own stack, for good
	; A plain store releases: it stays after this AP's stores to the boot
	; stack, which the next AP overwrites (stores are not reordered with
	; other stores, SDM Vol 3 §9.2.2).
	mov dword [rbx + T_BOOT_LOCK], 0
	mov rdi, rdx
	mov rax, [rbx + T_ENTRY]
	call rax			; smp_ap_entry(cpu), never returns

; A CPU mhv will never use parks here for good, touching nothing of any
; other CPU's: on a small stack of its own from the park page, with an IDT
; of its own whose NMI handler returns to the halt (an NMI reaches every
; CPU, parked ones too: a BMC's, QEMU's nmi).  Interrupts stay off; a
; machine check shuts it down, as one before mhv started would.  From C
; (smp.c, any stack, any GDT): tramp_park; from above, holding the boot
; lock on the shared boot stack: tramp_park_unlock.  A CPU past the
; PARK_STACKS-th halts without a stack (counted all the same).
tramp_park:
	xor r14d, r14d			; the boot lock is not this CPU's
	jmp park
tramp_park_unlock:
	mov r14d, 1
park:
	cli
	lea rbx, [rel smp_trampoline_start]
	lgdt [rbx + T_GDTR64]		; the trampoline's GDT, whose CODE64 the IDT names
	lea rax, [rel .flat]
	push CODE64
	push rax
	o64 retf
.flat:
	mov eax, 1
	lock xadd [rbx + T_PARKED], eax
	cmp eax, PARK_STACKS
	jae .no_stack
	inc eax
	shl eax, 6			; * PARK_STACK_BYTES: the top of its stack
	mov rsp, [rbx + T_PARK_STACKS]
	add rsp, rax
	lidt [rbx + T_PARK_IDTR]
.no_stack:
	test r14d, r14d			; off the boot stack now: the next AP may take it
	jz .halt
	mov dword [rbx + T_BOOT_LOCK], 0
.halt:
	hlt
	jmp .halt
park_nmi:
	iretq

align 16
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff		; 0x10: data, flat
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tramp_gdt_end:

tramp_gdtr:
	dw tramp_gdt_end - tramp_gdt - 1
	dd 0				; base + (tramp_gdt - start), patched
align 8
tramp_pm32_ptr:
	dd 0				; base + (tramp_pm32 - start), patched
	dw CODE32
align 8
tramp_lm64_ptr:
	dd 0				; base + (tramp_lm64 - start), patched
	dw CODE64
align 8
tramp_cr3_low:	dq 0			; the temporary identity tables below 4 GiB
tramp_efer:	dq 0
tramp_cr3:	dq 0
tramp_boot_stack: dq 0			; the top of the shared boot stack
tramp_boot:	dq 0			; smp_ap_boot
tramp_entry:	dq 0			; smp_ap_entry
tramp_slots:	dd 0			; slots taken so far
tramp_max_slots: dd 0
tramp_boot_lock: dd 0			; 1 while an AP runs on the boot stack
tramp_parked:	dd 0			; CPUs parked (tramp_park)
align 8
tramp_park_stacks: dq 0			; the park page, patched
align 8
	dw 0, 0, 0			; so that the base below is 8-byte aligned
tramp_gdtr64:				; LGDT in 64-bit mode: limit, 8-byte base
	dw tramp_gdt_end - tramp_gdt - 1
	dq 0				; base + (tramp_gdt - start), patched
	dw 0, 0, 0
tramp_park_idtr:
	dw 3 * 16 - 1			; vectors 0-2: NMI is the one a parked CPU takes
	dq 0				; base + (tramp_park_idt - start), patched
align 16
tramp_park_idt:
	times 3 * 16 db 0		; gate 2 (NMI) -> park_nmi, patched
smp_trampoline_end:

; Offsets the BSP patches (hv/host/smp.c reads these)
global smp_tramp_off_gdtr, smp_tramp_off_gdt, smp_tramp_off_pm32, smp_tramp_off_pm32_ptr
global smp_tramp_off_lm64, smp_tramp_off_lm64_ptr, smp_tramp_off_cr3_low, smp_tramp_off_efer
global smp_tramp_off_cr3, smp_tramp_off_boot_stack, smp_tramp_off_boot, smp_tramp_off_entry
global smp_tramp_off_slots, smp_tramp_off_max_slots
global smp_tramp_off_park, smp_tramp_off_park_nmi, smp_tramp_off_parked, smp_tramp_off_park_stacks
global smp_tramp_off_gdtr64, smp_tramp_off_park_idtr, smp_tramp_off_park_idt
section .rodata
align 4
smp_tramp_off_gdtr:	dd T_GDTR
smp_tramp_off_gdt:	dd tramp_gdt - smp_trampoline_start
smp_tramp_off_pm32:	dd tramp_pm32 - smp_trampoline_start
smp_tramp_off_pm32_ptr:	dd T_PM32
smp_tramp_off_lm64:	dd tramp_lm64 - smp_trampoline_start
smp_tramp_off_lm64_ptr:	dd T_LM64
smp_tramp_off_cr3_low:	dd T_CR3_LOW
smp_tramp_off_efer:	dd T_EFER
smp_tramp_off_cr3:	dd T_CR3
smp_tramp_off_boot_stack: dd T_BOOT_STACK
smp_tramp_off_boot:	dd T_BOOT
smp_tramp_off_slots:	dd T_SLOTS
smp_tramp_off_max_slots: dd T_MAX_SLOTS
smp_tramp_off_entry:	dd T_ENTRY
smp_tramp_off_park:	dd tramp_park - smp_trampoline_start
smp_tramp_off_park_nmi:	dd park_nmi - smp_trampoline_start
smp_tramp_off_parked:	dd T_PARKED
smp_tramp_off_park_stacks: dd T_PARK_STACKS
smp_tramp_off_gdtr64:	dd T_GDTR64
smp_tramp_off_park_idtr: dd T_PARK_IDTR
smp_tramp_off_park_idt:	dd tramp_park_idt - smp_trampoline_start
