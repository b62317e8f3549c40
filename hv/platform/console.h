/* SPDX-License-Identifier: MIT */
#ifndef MHV_CONSOLE_H
#define MHV_CONSOLE_H

#include "lib/types.h"

struct boot_info;
struct serial_choice;

/* Where the console goes (mhv.cfg "console"). */
enum console_mode {
	CONSOLE_BOTH, /* the default: serial and framebuffer */
	CONSOLE_SERIAL,
	CONSOLE_FB,
};

/* The console: the serial outputs serial names (serial.h) and the GOP
 * framebuffer when there is one, both until console_set_mode says otherwise. */
void console_init(const struct boot_info *bi, const struct serial_choice *serial);
void console_set_debugcon(bool on);
void console_set_mode(enum console_mode mode);
const char *console_fb_describe(void);
void console_putc(char c);
int console_printf(const char *fmt, ...) __printf(1, 2);
int console_vprintf(const char *fmt, va_list ap);
/* A line buffer for each of n CPUs, from the page allocator while nothing
 * is released yet (smp_init, once the CPUs are counted): a VM's mark must
 * never take it back.  false: no memory, each CPU's output then goes out
 * as it comes, and lines of several CPUs may mix. */
bool console_lines_alloc(unsigned n);
/* While several CPUs print at once: on collects each CPU's output into
 * whole lines, printed one at a time; off prints what is left and goes
 * back to printing each character as it comes.  Returns whether it was on. */
bool console_lines_per_cpu(bool on);
/* While held, output goes everywhere but the screen (lines for programs,
 * like the JSON records, which would only push the tables off it); the
 * kept log has them.  Returns whether it was held. */
bool console_screen_hold(bool hold);
/* While on, output goes to the screen (and port 0xE9, which mirrors it)
 * alone: not to serial nor the kept log, which have the whole tables.
 * Returns whether it was on. */
bool console_screen_only(bool on);
/* The screen's text grid; false when there is no screen console. */
bool console_screen_size(u32 *cols, u32 *rows);
/* fb_pause: seconds to wait before each scroll of a full screen. */
void console_set_screen_pause(u32 seconds);
/* This CPU's lines start with "[cpuN] " (while lines are per CPU). */
void console_tag_cpu_lines(bool on);
/* Where the serial console is, for the environment header */
const char *console_describe(void);

#endif
