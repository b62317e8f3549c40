/* SPDX-License-Identifier: MIT */
/*
 * Feeding the console's copy of the log (platform/console_log.h) in host
 * tests.  The log is a static of console_log.c: each test feeds on from
 * where the last one left it, so each checks against this shadow of the
 * whole log.
 */
#ifndef MHV_TEST_LOG_FEED_H
#define MHV_TEST_LOG_FEED_H

#include <stdlib.h>

#include "platform/console_log.h"

static char *shadow;
static size_t shadow_len;

static void feed(size_t n)
{
	size_t i;

	shadow = realloc(shadow, shadow_len + n);
	for (i = 0; i < n; i++) {
		/* lines of varied length, so that a misplaced byte shows */
		char c = (shadow_len + i) % 61 == 60 ? '\n' : 'a' + (shadow_len + i) * 7 % 26;

		shadow[shadow_len + i] = c;
		console_log_putc(c);
	}
	shadow_len += n;
}

#endif
