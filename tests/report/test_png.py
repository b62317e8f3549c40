# SPDX-License-Identifier: MIT
"""mhv-report --plot FILE.png: the PNG writer, font and bar chart."""
import os
import re
import struct
import unittest
import xml.etree.ElementTree as ET

from common import SVG, TempLogs, fixture, pixel, read_png, report, run

class PngTest(TempLogs):
    def png(self, *args, log=None):
        """Run plot --plot into a scratch PNG; (path, width, height, rows)."""
        path = os.path.join(self.tmp.name, "chart.png")
        status, out, err = run("plot", log or fixture("qemu-tcg.log"), "--plot", path, *args)
        self.assertEqual((status, out, err), (0, f"wrote {path}\n", ""))
        return (path,) + read_png(path)

    def layout(self, log):
        found = report.load_log(log)
        return report.mhv_png.Layout(report.chart_rows(found), report.chart_title(found))

    def test_signature_header_and_zlib_data(self):
        path, width, height, rows = self.png()
        lay = self.layout(fixture("qemu-tcg.log"))
        self.assertEqual((width, height), (int(lay.width), lay.height))
        with open(path, "rb") as f:
            head = f.read(33)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(head[12:16], b"IHDR")
        self.assertEqual(struct.unpack(">II", head[16:24]), (width, height))
        self.assertGreater(width, 600)
        self.assertEqual(pixel(rows, 0, 0), report.mhv_png.WHITE)

    def test_bars_are_drawn_where_the_medians_are(self):
        _, _, _, rows = self.png()
        lay = self.layout(fixture("qemu-tcg.log"))
        bar, whisker = report.mhv_png.BAR, report.mhv_png.WHISKER
        widths = []
        for i, r in enumerate(lay.rows):
            x0, y0, x1, y1 = (int(v) for v in lay.bar(i))
            line = [pixel(rows, x, y0 + 1) for x in range(lay.left, int(lay.x(lay.top)))]
            widths.append(line.count(bar))
            self.assertEqual(line[:x1 - x0], [bar] * (x1 - x0), r["label"])
            self.assertNotEqual(pixel(rows, (x0 + x1) // 2, y0 - 2), bar)
            self.assertEqual(pixel(rows, int(lay.x(r["p99"])), (y0 + y1) // 2), whisker)
        self.assertEqual(len(widths), 4)
        self.assertTrue(widths[0] < widths[1] < widths[2], widths)
        label = [pixel(rows, x, y) for x in range(lay.left) for y in range(lay.bar(2)[1], lay.bar(2)[3])]
        self.assertIn((0, 0, 0), label)  # the test name left of the bar

    def test_skipped_row_has_no_bar(self):
        _, _, _, rows = self.png(log=fixture("bochs.log"))
        lay = self.layout(fixture("bochs.log"))
        self.assertIsNone(lay.bar(3))
        self.assertEqual(lay.rows[3]["note"], "skipped: no hypercall page")

    def test_markdown_and_csv_draw_it_too(self):
        for cmd in ("markdown", "csv"):
            with self.subTest(cmd=cmd):
                path = os.path.join(self.tmp.name, cmd + ".png")
                plain = run(cmd, fixture("pmu.log"))
                self.assertEqual(run(cmd, fixture("pmu.log"), "--plot", path), plain)
                width, height, rows = read_png(path)
                self.assertTrue(any(report.mhv_png.BAR in
                                    [pixel(rows, x, y) for x in range(width)]
                                    for y in range(height)))

    def test_png_and_svg_at_once_and_stdin(self):
        png, svg = (os.path.join(self.tmp.name, n) for n in ("c.png", "c.svg"))
        data = open(fixture("bochs.log"), "rb").read()
        status, out, err = run("plot", "--plot", png, "--out", svg, stdin=data)
        self.assertEqual((status, out, err), (0, f"wrote {png}\nwrote {svg}\n", ""))
        self.assertEqual(read_png(png)[0], int(self.layout(fixture("bochs.log")).width))
        self.assertEqual(ET.parse(svg).getroot().tag, SVG + "svg")

    def test_plot_needs_an_output(self):
        status, out, err = run("plot", fixture("bochs.log"))
        self.assertEqual((status, out), (2, ""))
        self.assertIn("--plot FILE.png and/or --out FILE.svg", err)

    def test_unwritable_output(self):
        path = os.path.join(self.tmp.name, "no", "such", "dir.png")
        status, out, err = run("markdown", fixture("bochs.log"), "--plot", path)
        self.assertEqual(status, 2)
        self.assertRegex(err, "^mhv-report: " + re.escape(path) + ":0: cannot write: ")

    def test_font_has_every_name_character(self):
        png = report.mhv_png
        for ch in "abcdefghijklmnopqrstuvwxyz0123456789_-.":
            with self.subTest(ch=ch):
                self.assertIn(ch, png.FONT)
                self.assertTrue(any(png.glyph_rows(ch)) or ch == " ")
        self.assertEqual(png.glyph_rows("Q"), png.glyph_rows("q"))
        self.assertEqual(png.glyph_rows("\u00e9"), png.glyph_rows("?"))
        glyphs = [tuple(png.glyph_rows(ch)) for ch in png.FONT]
        self.assertEqual(len(set(glyphs)), len(glyphs))

    def test_axis_steps(self):
        self.assertEqual([report.mhv_png.nice_step(t) for t in (1, 4, 256, 291433)],
                         [1, 1, 100, 100000])


if __name__ == "__main__":
    unittest.main()
