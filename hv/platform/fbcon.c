// SPDX-License-Identifier: MIT
#include "fbcon.h"
#include "arch/x86.h"
#include "lib/boot_info.h"
#include "fbcon_font.h"
#include "lib/fmt.h"

#define CELL_W (FONT_WIDTH + 1)
#define CELL_H (FONT_ROWS + 2)
#define MAX_COLS 320
#define MAX_ROWS 160
#define FG 0x00c0c0c0u /* light grey on black: the same in RGB and BGR order */
#define BG 0x00000000u

static volatile u32 *fb;
static u32 pitch, scale, cols, rows, col, row;
static char text[MAX_ROWS][MAX_COLS];
static char describe[128] = "none";

bool fbcon_init(const struct boot_fb *info)
{
	if (!info->base || !info->width || !info->height) {
		fmt_snprintf(describe, sizeof(describe), "no GOP framebuffer");
		return false;
	}
	fb = (volatile u32 *)(uintptr_t)info->base;
	pitch = info->pitch;
	/* big screens get bigger glyphs, still at least 100 columns */
	scale = info->width / (100 * CELL_W);
	scale = scale < 1 ? 1 : scale > 4 ? 4 : scale;
	cols = info->width / (CELL_W * scale);
	rows = info->height / (CELL_H * scale);
	cols = cols > MAX_COLS ? MAX_COLS : cols;
	rows = rows > MAX_ROWS ? MAX_ROWS : rows;
	fmt_snprintf(describe, sizeof(describe), "%ux%u, %ux%u cells of %ux%u pixels, %s",
		     info->width, info->height, cols, rows, CELL_W * scale, CELL_H * scale,
		     info->source ? info->source : "the GOP");
	__builtin_memset(text, ' ', sizeof(text));
	for (u32 y = 0; y < rows * CELL_H * scale; y++)
		for (u32 x = 0; x < cols * CELL_W * scale; x++)
			fb[y * pitch + x] = BG;
	return true;
}

const char *fbcon_describe(void)
{
	return describe;
}

static void draw_cell(u32 r, u32 c)
{
	unsigned char ch = (unsigned char)text[r][c];
	const u8 *g = ch >= FONT_FIRST && ch < FONT_FIRST + FONT_GLYPHS
			  ? fbcon_font[ch - FONT_FIRST]
			  : fbcon_font['?' - FONT_FIRST];
	u32 x0 = c * CELL_W * scale, y0 = r * CELL_H * scale;

	for (u32 y = 0; y < CELL_H * scale; y++) {
		u32 fy = y / scale;
		u8 bits = fy >= 1 && fy <= FONT_ROWS ? g[fy - 1] : 0; /* one blank row above */
		volatile u32 *line = fb + (y0 + y) * pitch + x0;

		for (u32 x = 0; x < CELL_W * scale; x++) {
			u32 fx = x / scale;

			line[x] = fx < FONT_WIDTH && (bits >> (FONT_WIDTH - 1 - fx)) & 1 ? FG : BG;
		}
	}
}

static u64 pause_ticks; /* fbcon_set_pause */

void fbcon_set_pause(u64 ticks)
{
	pause_ticks = ticks;
}

u32 fbcon_columns(void)
{
	return fb ? cols : 0;
}

u32 fbcon_rows(void)
{
	return fb ? rows : 0;
}

/* The screen is full: after the pause (for a photograph of it), the lower
 * half becomes the upper half. */
static void scroll_half(void)
{
	u32 keep = rows / 2, r, c;
	u64 until = rdtsc() + pause_ticks;

	while (pause_ticks && rdtsc() < until)
		cpu_relax();

	for (r = 0; r < rows; r++) {
		if (r < keep)
			__builtin_memcpy(text[r], text[r + rows - keep], cols);
		else
			__builtin_memset(text[r], ' ', cols);
		for (c = 0; c < cols; c++)
			draw_cell(r, c);
	}
	row = keep;
}

static void newline(void)
{
	col = 0;
	if (++row == rows)
		scroll_half();
}

void fbcon_putc(char c)
{
	if (!fb)
		return;
	if (c == '\r')
		return;
	if (c == '\n') {
		newline();
		return;
	}
	if (col == cols)
		newline();
	text[row][col] = c;
	draw_cell(row, col);
	col++;
}
