/* SPDX-License-Identifier: MIT */
/* Segment and system descriptor facts (SDM Vol 3 §3.4.5; APM Vol 2 §4.7-4.8). */
#ifndef MHV_SEGMENT_H
#define MHV_SEGMENT_H

/* System descriptor types, S = 0 (SDM Vol 3 Table 3-2) */
#define SEG_TYPE_LDT 2
#define SEG_TYPE_TSS64_BUSY 11

/*
 * Segment registers, numbered as the VMX instruction information encodes
 * them (SDM Vol 3 Table 28-8) and as SVM's IOIO SEG field does (APM Vol 2
 * §15.10.2).  SEG_REG_COUNT stands for "not known".
 */
enum seg_reg {
	SEG_ES,
	SEG_CS,
	SEG_SS,
	SEG_DS,
	SEG_FS,
	SEG_GS,
	SEG_REG_COUNT
};

#endif
