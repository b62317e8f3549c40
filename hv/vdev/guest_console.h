/* SPDX-License-Identifier: MIT */
#ifndef MHV_GUEST_CONSOLE_H
#define MHV_GUEST_CONSOLE_H

#include "core/vm.h"

/*
 * A guest's console output, printed a line at a time as "[name] line";
 * any number of its vCPUs may write at once.
 */
void guest_console_putc(struct vm *vm, char c);
void guest_console_flush(struct vm *vm);

/*
 * A byte of guest text as mhv prints it: printable ASCII as it is,
 * anything else (newline, CR, ESC, other controls, DEL, bytes from 0x80)
 * as '?'.  So no guest text can end one of mhv's lines and start a line
 * of its own, move the cursor or send escape sequences to a terminal.
 */
static inline char guest_char_shown(char c)
{
	return c >= 0x20 && c <= 0x7e ? c : '?';
}

/* guest_char_shown over a terminated string, in place. */
static inline void guest_text_clean(char *s)
{
	for (; *s; s++)
		*s = guest_char_shown(*s);
}

#endif
