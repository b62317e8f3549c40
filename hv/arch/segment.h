/* SPDX-License-Identifier: MIT */
/* Segment and system descriptor facts (SDM Vol 3 §3.4.5; APM Vol 2 §4.7-4.8). */
#ifndef MHV_SEGMENT_H
#define MHV_SEGMENT_H

/* System descriptor types, S = 0 (SDM Vol 3 Table 3-2) */
#define SEG_TYPE_LDT 2
#define SEG_TYPE_TSS64_BUSY 11

#endif
