/* SPDX-License-Identifier: MIT */
/*
 * A text console on the GOP framebuffer the firmware left behind, for
 * machines whose serial port nobody reads.  Cells of 6x9 pixels (the 5x7
 * font plus spacing) times a scale that keeps at least ~100 columns;
 * when the screen is full the lower half moves up (one redraw per half
 * screen of output, not per line).
 */
#ifndef MHV_FBCON_H
#define MHV_FBCON_H

#include "lib/types.h"

struct boot_fb;

/* false when there is no usable framebuffer */
bool fbcon_init(const struct boot_fb *fb);
void fbcon_putc(char c);
/* Wait this many TSC ticks before each scroll (fb_pause), 0: none. */
void fbcon_set_pause(u64 ticks);
/* The text grid, 0 x 0 without a framebuffer. */
u32 fbcon_columns(void);
u32 fbcon_rows(void);
/* "800x600, 133x66 cells" or why there is none */
const char *fbcon_describe(void);

#endif
