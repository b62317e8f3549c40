/* SPDX-License-Identifier: MIT */
#ifndef MHV_CONSOLE_H
#define MHV_CONSOLE_H

#include "lib/types.h"

struct boot_info;

/* Where the console goes (mhv.cfg "console"). */
enum console_mode {
	CONSOLE_BOTH, /* the default: serial and framebuffer */
	CONSOLE_SERIAL,
	CONSOLE_FB,
};

/* The console: a polled 16550 (SPCR when present, else COM1) and the GOP
 * framebuffer when there is one, both until the config says otherwise. */
void console_init(const struct boot_info *bi);
void console_set_debugcon(bool on);
void console_set_mode(enum console_mode mode);
const char *console_fb_describe(void);
void console_putc(char c);
int console_printf(const char *fmt, ...) __printf(1, 2);
int console_vprintf(const char *fmt, va_list ap);
/* While several CPUs print at once: on collects each CPU's output into
 * whole lines, printed one at a time; off prints what is left and goes
 * back to printing each character as it comes.  Returns whether it was on. */
bool console_lines_per_cpu(bool on);
/* While held, output goes everywhere but the screen (lines for programs,
 * like the JSON records, which would only push the tables off it); the
 * kept log has them.  Returns whether it was held. */
bool console_screen_hold(bool hold);
/* This CPU's lines start with "[cpuN] " (while lines are per CPU). */
void console_tag_cpu_lines(bool on);
/* Where the console is, for the environment header ("COM1 0x3f8 (default)") */
const char *console_describe(void);

#endif
