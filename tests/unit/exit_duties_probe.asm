; SPDX-License-Identifier: MIT
; The VM-run loops' exit path between storing the guest's GPRs and calling
; the exit handler (core/duties.inc EXIT_DUTIES, core/guest_regs.inc
; CALL_EXIT_TABLE), run natively for each duty set: every GPR but RSP and
; RDI starts with a "guest" value, and the handler the table call reaches
; stores every GPR as it finds them (test_exit_duties.c).  IBPB is left
; out: its WRMSR needs CPL 0.
bits 64
default rel

%include "core/guest_regs.inc"
%include "core/duties.inc"

%define GUEST(n) (0x6700000000000000 | (n))

section .text

DUTY_DATA

; The handler: GPRs in ModRM order into [rdi]
capture:
	mov [rdi + 0 * 8], rax
	mov [rdi + 1 * 8], rcx
	mov [rdi + 2 * 8], rdx
	mov [rdi + 3 * 8], rbx
	mov [rdi + 5 * 8], rbp
	mov [rdi + 6 * 8], rsi
	mov [rdi + 7 * 8], rdi
	mov [rdi + 8 * 8], r8
	mov [rdi + 9 * 8], r9
	mov [rdi + 10 * 8], r10
	mov [rdi + 11 * 8], r11
	mov [rdi + 12 * 8], r12
	mov [rdi + 13 * 8], r13
	mov [rdi + 14 * 8], r14
	mov [rdi + 15 * 8], r15
	ret

; void probe(u64 out[16]), one per duty set
%macro PROBE 2
%1:
	PUSH_HOST_CALLEE_SAVED
	mov rax, GUEST(0)
	mov rcx, GUEST(1)
	mov rdx, GUEST(2)
	mov rbx, GUEST(3)
	mov rbp, GUEST(5)
	mov rsi, GUEST(6)
	mov r8, GUEST(8)
	mov r9, GUEST(9)
	mov r10, GUEST(10)
	mov r11, GUEST(11)
	mov r12, GUEST(12)
	mov r13, GUEST(13)
	mov r14, GUEST(14)
	mov r15, GUEST(15)
	EXIT_DUTIES (%2) & ~DUTY_IBPB
	mov esi, 0x5151			; the loops load RSI (VMCB, exit reason)
	mov eax, 1			; and the table index
	CALL_EXIT_TABLE 1, probe_table, %2
	POP_HOST_CALLEE_SAVED
	ret
%endmacro

%assign s 0
%rep DUTY_SETS
	PROBE probe_%[s], DUTY_SET_%[s]
%assign s s + 1
%endrep

section .data.rel.ro progbits alloc noexec write align=8
probe_table:
	dq 0, capture
global exit_probes
exit_probes:
%assign s 0
%rep DUTY_SETS
	dq probe_%[s]
%assign s s + 1
%endrep
global exit_probe_capture
exit_probe_capture:
	dq capture

section .rodata
global exit_probe_sets
DUTY_SET_LIST exit_probe_sets
section .note.GNU-stack noalloc noexec nowrite progbits
