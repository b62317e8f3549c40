/* SPDX-License-Identifier: MIT */
/*
 * A copy of everything the console sends to the serial port, kept in
 * memory so that the run's log can outlive it (platform/log_keep.c): the
 * first LOG_HEAD bytes (the header: machine, config, CPUs) and the last
 * LOG_TAIL (the tables and the summary).
 */
#ifndef MHV_CONSOLE_LOG_H
#define MHV_CONSOLE_LOG_H

#include "lib/types.h"

void console_log_putc(char c);
/* Bytes the console has sent in all. */
u64 console_log_total(void);
/*
 * The log as kept in at most @max bytes: the head, then, when bytes are
 * left out (beyond what memory keeps, or beyond @max), a marker line
 * saying how many, then the end of the log.
 */
struct console_log_view {
	u64 total;		   /* bytes the console had sent */
	u64 first, last, left_out; /* of those: kept from the start, from the end, neither */
	u64 bytes;		   /* of the view: first + the marker + last */
	char marker[64];
	u32 marker_len;
};

void console_log_plan(struct console_log_view *v, u64 max);
/* @len bytes of the view from @pos. */
void console_log_read(const struct console_log_view *v, u64 pos, char *buf, u64 len);

#endif
