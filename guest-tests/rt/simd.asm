; SPDX-License-Identifier: MIT
; Vector-register access for the xstate suite: the C runtime is built
; -mgeneral-regs-only, so only these routines touch SSE/AVX/AVX-512 state.
bits 64
default rel
section .text

global simd_load_xmm, simd_store_xmm
global simd_load_ymm, simd_store_ymm
global simd_load_zmm, simd_store_zmm
global xsave_area, xrstor_area

; void simd_load_xmm(const u8 src[16 * 16])
simd_load_xmm:
%assign i 0
%rep 16
	movdqu xmm %+ i, [rdi + 16 * i]
%assign i i + 1
%endrep
	ret

simd_store_xmm:
%assign i 0
%rep 16
	movdqu [rdi + 16 * i], xmm %+ i
%assign i i + 1
%endrep
	ret

; void simd_load_ymm(const u8 src[16 * 32])
simd_load_ymm:
%assign i 0
%rep 16
	vmovdqu ymm %+ i, [rdi + 32 * i]
%assign i i + 1
%endrep
	ret

simd_store_ymm:
%assign i 0
%rep 16
	vmovdqu [rdi + 32 * i], ymm %+ i
%assign i i + 1
%endrep
	ret

; void simd_load_zmm(const u8 src[32 * 64 + 8 * 8]): zmm0-31, then k0-7
simd_load_zmm:
%assign i 0
%rep 32
	vmovdqu64 zmm %+ i, [rdi + 64 * i]
%assign i i + 1
%endrep
%assign i 0
%rep 8
	kmovq k %+ i, [rdi + 2048 + 8 * i]
%assign i i + 1
%endrep
	ret

simd_store_zmm:
%assign i 0
%rep 32
	vmovdqu64 [rdi + 64 * i], zmm %+ i
%assign i i + 1
%endrep
%assign i 0
%rep 8
	kmovq [rdi + 2048 + 8 * i], k %+ i
%assign i i + 1
%endrep
	ret

; void xsave_area(void *area, u64 mask) / xrstor_area: 64-byte aligned area
xsave_area:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	xsave [rdi]
	ret

xrstor_area:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	xrstor [rdi]
	ret
