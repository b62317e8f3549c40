; SPDX-License-Identifier: MIT
; The guest programs, built as flat images (build/guest/*.bin) and carried
; inside BOOTX64.EFI.
bits 64
section .data

%macro BLOB 1
global guest_blob_%1_start
global guest_blob_%1_end
align 16
guest_blob_%1_start:
	incbin %str(%1.bin)
guest_blob_%1_end:
%endmacro

BLOB smoke
BLOB vmexit
BLOB xstate
BLOB pmu
BLOB hostile
BLOB fuzz
