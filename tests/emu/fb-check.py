#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read mhv's framebuffer console back from a QEMU screendump and compare
it with the text mhv printed.

    fb-check.py SCREEN.ppm TEXT_LOG SERIAL_LOG FONT.c

The cell geometry comes from the "framebuffer: WxH, CxR cells of AxB
pixels" header line in TEXT_LOG (the port 0xE9 mirror of everything).
Every cell is matched against mhv's own font (hv/platform/fbcon_font.c) at that
scale; a cell that is no glyph fails the check.  Every non-blank screen
line must be part of a line of TEXT_LOG, none may be a part of an MHV-JSON
record (those are for programs: serial and the kept log only), the last
"mhv: summary" line must be on screen, and with console = fb the serial
log must not have it."""
import re
import sys

CELL_W, CELL_H, FONT_W, FONT_ROWS = 6, 9, 5, 7


def fail(msg):
    print(f"fb-check: FAIL: {msg}")
    sys.exit(1)


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m:
        fail(f"{path} is not a binary PPM")
    w, h = int(m.group(1)), int(m.group(2))
    return w, h, data[m.end():]


def read_font(path):
    glyphs = {}
    code = 0x20
    for line in open(path):
        m = re.match(r"\s*\{ ((?:0x[0-9a-f]{2}, ){6}0x[0-9a-f]{2}) \}", line)
        if m:
            glyphs[tuple(int(v, 16) for v in m.group(1).split(", "))] = chr(code)
            code += 1
    if code != 0x7F:
        fail(f"{path}: {code - 0x20} glyphs, want 95")
    return glyphs


def main():
    ppm, text_log, serial_log, font_c = sys.argv[1:5]
    # the console draws every byte outside printable ASCII as '?'
    raw = open(text_log, "rb").read().replace(b"\r", b"")
    text = "".join(chr(b) if b == 10 or 0x20 <= b < 0x7F else "?" for b in raw)
    m = re.search(r"framebuffer: (\d+)x(\d+), (\d+)x(\d+) cells of (\d+)x(\d+) pixels", text)
    if not m:
        fail(f"no framebuffer header line in {text_log}")
    cols, rows, scale = int(m.group(3)), int(m.group(4)), int(m.group(5)) // CELL_W
    w, h, px = read_ppm(ppm)
    glyphs = read_font(font_c)

    def lit(x, y):
        i = 3 * (y * w + x)
        return px[i] | px[i + 1] | px[i + 2] != 0

    screen = []
    for r in range(rows):
        line = []
        for c in range(cols):
            x0, y0 = c * CELL_W * scale, r * CELL_H * scale
            bits = []
            for fy in range(CELL_H):
                v = 0
                for fx in range(CELL_W):
                    if lit(x0 + fx * scale, y0 + fy * scale):
                        v |= 1 << (FONT_W - 1 - fx) if fx < FONT_W else 1 << 8
                bits.append(v)
            if bits[0] or bits[8] or any(b >> 8 for b in bits):
                fail(f"cell ({r},{c}) has pixels outside the glyph box")
            ch = glyphs.get(tuple(bits[1:8]))
            if ch is None:
                fail(f"cell ({r},{c}) is no glyph of the font: rows {bits[1:8]}")
            line.append(ch)
        screen.append("".join(line).rstrip())
    shown = [l for l in screen if l.strip()]
    if len(shown) < 5:
        fail(f"only {len(shown)} lines of text on the screen")
    log_lines = text.splitlines()
    for l in shown:
        if not any(l in t for t in log_lines):
            fail(f"screen line not in the log: {l!r}")
    if not any(t.startswith("MHV-JSON ") for t in log_lines):
        fail("the log has no MHV-JSON line: the run shows nothing of the screen's JSON rule")
    for l in shown:
        if "MHV-JSON" in l or '"suite":' in l:
            fail(f"a JSON record on the screen (they belong on serial only): {l!r}")
    if not any(l.startswith("mhv: medians") for l in shown):
        fail("the screen does not show the medians table that ends a run")
    summary = [t for t in log_lines if t.startswith("mhv: summary")]
    if not summary or summary[-1] not in shown:
        fail("the summary line is not on the screen")
    if "mhv: summary" in open(serial_log, errors="replace").read():
        fail("console = fb, yet the summary went to the serial port")
    print(f"fb-check: {len(shown)} screen lines, every one in the log; {summary[-1]}")


if __name__ == "__main__":
    main()
