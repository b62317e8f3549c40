# SPDX-License-Identifier: MIT
"""PNG bar charts with the standard library only (zlib + struct).

A tiny RGB canvas, a 5x7 bitmap font and a PNG writer, enough for
mhv-report's `--plot FILE`: one horizontal bar per row (the median), a
min..p99 whisker across it, labels on the left and an x axis with numbers.
"""
import struct
import zlib

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
BAR, WHISKER, GRID, GREY = (74, 122, 181), (34, 34, 34), (225, 225, 225), (136, 136, 136)

# 5x7 glyphs: seven rows, two hex digits each, bit 4 is the leftmost column;
# g, j, p, q and y have two more rows below the baseline.
FONT = {
    "0": "0e11131519110e", "1": "040c040404040e", "2": "0e11010204081f",
    "3": "1f02040201110e", "4": "02060a121f0202",
    "5": "1f101e0101110e", "6": "0608101e11110e", "7": "1f010204080808",
    "8": "0e11110e11110e", "9": "0e11110f01020c",
    "a": "00000e010f110f", "b": "1010161911111e",
    "c": "00000e1010110e", "d": "01010d1311110f", "e": "00000e111f100e",
    "f": "0609081c080808", "g": "00000f1111110f010e", "h": "10101619111111",
    "i": "04000c0404040e", "j": "02000602020202120c",
    "k": "10101214181412", "l": "0c04040404040e", "m": "00001a15151111",
    "n": "00001619111111", "o": "00000e1111110e", "p": "00001e1111111e1010",
    "q": "00000f1111110f0101", "r": "00001619101010", "s": "00000e100e011e",
    "t": "08081c08080906", "u": "0000111111130d", "v": "00001111110a04",
    "w": "0000111115150a", "x": "0000110a040a11", "y": "0000111111110f010e",
    "z": "00001f0204081f",
    "_": "0000000000001f", "-": "0000001f000000", ".": "00000000000c0c",
    " ": "00000000000000", "/": "00010204081000", "[": "0e08080808080e",
    "]": "0e02020202020e", ":": "000c0c000c0c00", "(": "02040808080402",
    ")": "08040202020408", ",": "000000000c0408", "%": "18190204081303",
    "?": "0e110102040004", "+": "0004041f040400", "=": "00001f001f0000",
    "<": "02040810080402", ">": "08040201020408", "&": "0c12140815120d",
}
GLYPH_W, GLYPH_H = 5, 7


def glyph_rows(ch):
    """The 5-bit rows of a character (upper case drawn as lower)."""
    code = FONT.get(ch.lower(), FONT["?"])
    return [int(code[i:i + 2], 16) for i in range(0, len(code), 2)]


def text_width(text, scale=1):
    """Pixel width of text: 6 columns per character (5 + 1 gap)."""
    return max(len(text) * (GLYPH_W + 1) - 1, 0) * scale


class Canvas:
    """An RGB image held as one bytearray, top row first."""

    def __init__(self, width, height, background=WHITE):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(background) * (width * height))

    def fill(self, x0, y0, x1, y1, color):
        """Fill the rectangle [x0, x1) x [y0, y1), clipped to the image."""
        x0, x1 = max(int(x0), 0), min(int(x1), self.width)
        y0, y1 = max(int(y0), 0), min(int(y1), self.height)
        if x0 >= x1:
            return
        run = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            at = (y * self.width + x0) * 3
            self.pixels[at:at + len(run)] = run

    def pixel(self, x, y):
        at = (y * self.width + x) * 3
        return tuple(self.pixels[at:at + 3])

    def text(self, x, y, text, color=BLACK, scale=1):
        """Draw text with its top-left corner at (x, y)."""
        for ch in text:
            for row, bits in enumerate(glyph_rows(ch)):
                for col in range(GLYPH_W):
                    if bits & (0x10 >> col):
                        self.fill(x + col * scale, y + row * scale,
                                  x + (col + 1) * scale, y + (row + 1) * scale, color)
            x += (GLYPH_W + 1) * scale


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(canvas):
    """The canvas as PNG bytes: 8-bit RGB, filter 0 on every row."""
    stride = canvas.width * 3
    raw = b"".join(b"\0" + bytes(canvas.pixels[y * stride:(y + 1) * stride])
                   for y in range(canvas.height))
    header = struct.pack(">IIBBBBB", canvas.width, canvas.height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


# ---- bar chart ----

SCALE = 2                      # font magnification
ROW_H, PAD, TOP, CHART_W = 26, 12, 44, 600
CHAR_W = (GLYPH_W + 1) * SCALE


def nice_step(top, ticks=5):
    """A 1/2/5 x 10^k step giving at most `ticks` intervals up to top."""
    step = 1
    while True:
        for mult in (1, 2, 5):
            if top / (step * mult) <= ticks:
                return step * mult
        step *= 10


class Layout:
    """Where everything goes; rows are dicts with label and either
    min/median/p99 or note."""

    def __init__(self, rows, title):
        self.rows, self.title = rows, title
        values = [v for r in rows if "note" not in r for v in (r["p99"], r["median"])]
        self.step = nice_step(max(values + [1]))
        self.top = -(-max(values + [1]) // self.step) * self.step
        self.left = PAD + max([text_width(r["label"], SCALE) for r in rows] + [0]) + PAD
        longest = max([len(str(r.get("median", ""))) for r in rows] + [len(str(self.top))])
        self.width = max(self.left + CHART_W + PAD + longest * CHAR_W + PAD,
                         PAD * 2 + text_width(title, SCALE))
        self.axis_y = TOP + ROW_H * len(rows) + 4
        self.height = self.axis_y + 8 + GLYPH_H * SCALE + PAD

    def x(self, value):
        return self.left + value * CHART_W / self.top

    def bar(self, i):
        """(x0, y0, x1, y1) of row i's median bar; None when it has a note."""
        r = self.rows[i]
        if "note" in r:
            return None
        y = TOP + i * ROW_H
        return (self.left, y + 4, max(self.x(r["median"]), self.left + 1), y + ROW_H - 4)


def draw_axis(c, lay):
    """Vertical grid lines and numbers under the chart, at each tick."""
    for value in range(0, lay.top + 1, lay.step):
        x = int(lay.x(value))
        c.fill(x, TOP - 2, x + 1, lay.axis_y, GRID)
        c.fill(x, lay.axis_y, x + 1, lay.axis_y + 5, BLACK)
        label = str(value)
        c.text(x - text_width(label, SCALE) // 2, lay.axis_y + 8, label, BLACK, SCALE)
    c.fill(lay.left, lay.axis_y, lay.x(lay.top) + 1, lay.axis_y + 1, BLACK)


def draw_row(c, lay, i):
    """Label, bar, min..p99 whisker and median value of row i."""
    r, y = lay.rows[i], TOP + i * ROW_H
    text_y = y + (ROW_H - GLYPH_H * SCALE) // 2
    c.text(lay.left - PAD - text_width(r["label"], SCALE), text_y, r["label"], BLACK, SCALE)
    if "note" in r:
        c.text(lay.left + 4, text_y, r["note"], GREY, SCALE)
        return
    c.fill(*lay.bar(i), BAR)
    mid, lo, hi = y + ROW_H // 2, int(lay.x(r["min"])), int(lay.x(r["p99"]))
    c.fill(lo, mid, hi + 1, mid + 1, WHISKER)
    for x in (lo, hi):
        c.fill(x, mid - 5, x + 1, mid + 6, WHISKER)
    after = int(lay.x(max(r["p99"], r["median"]))) + 6
    c.text(after, text_y, str(r["median"]), BLACK, SCALE)


def draw_chart(rows, title):
    """A Canvas with the whole chart, and its Layout."""
    lay = Layout(rows, title)
    c = Canvas(int(lay.width), lay.height)
    c.text(PAD, PAD, title, BLACK, SCALE)
    draw_axis(c, lay)
    for i in range(len(rows)):
        draw_row(c, lay, i)
    return c, lay


def write_chart(path, rows, title):
    """Draw the chart and write it to path as PNG; its Layout."""
    canvas, lay = draw_chart(rows, title)
    with open(path, "wb") as f:
        f.write(encode_png(canvas))
    return lay
