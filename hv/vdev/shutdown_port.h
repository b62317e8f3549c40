/* SPDX-License-Identifier: MIT */
/*
 * Bochs' shutdown port (GUEST_SHUTDOWN_PORT): the string "Shutdown"
 * written a byte at a time ends the machine.  Pure: the bytes of the
 * word matched so far, and the next byte, give the new count; the word
 * is complete at SHUTDOWN_PORT_WORD_LEN.
 */
#ifndef MHV_SHUTDOWN_PORT_H
#define MHV_SHUTDOWN_PORT_H

#include "lib/types.h"

#define SHUTDOWN_PORT_WORD_LEN 8

static inline u8 shutdown_port_match(u8 matched, u8 byte)
{
	static const char word[SHUTDOWN_PORT_WORD_LEN + 1] = "Shutdown";

	/* a complete word (or any count past it) starts over */
	if (matched < SHUTDOWN_PORT_WORD_LEN && (char)byte == word[matched])
		return matched + 1;
	return (char)byte == word[0];
}

#endif
