/* SPDX-License-Identifier: MIT */
#ifndef MHV_FBCON_FONT_H
#define MHV_FBCON_FONT_H

#include "lib/types.h"

#define FONT_FIRST 0x20 /* space */
#define FONT_GLYPHS 95	/* 0x20 .. 0x7e */
#define FONT_WIDTH 5
#define FONT_ROWS 7

/* Row r of glyph g: bit (FONT_WIDTH - 1 - x) is pixel x. */
extern const u8 fbcon_font[FONT_GLYPHS][FONT_ROWS];

#endif
