# SPDX-License-Identifier: MIT
"""SVG bar charts for mhv-report's `plot --out FILE.svg`.

Rows are dicts with a label and either min/median/p99 or a note (a
skipped measurement): one bar per row, a min..p99 whisker across it.
"""
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
ROW_H, LABEL_W, CHART_W, VALUE_W, TOP = 26, 230, 480, 90, 40


def svg_el(parent, tag, text=None, **attrs):
    el = ET.SubElement(parent, tag, {k.replace("_", "-"): str(v) for k, v in attrs.items()})
    el.text = text
    return el


def plot_row(svg, y, r, scale):
    """One bar (median) with its min..p99 whisker, or a grey note."""
    mid = y + ROW_H / 2
    svg_el(svg, "text", r["label"], x=LABEL_W - 8, y=mid + 4, text_anchor="end")
    if "note" in r:
        svg_el(svg, "text", r["note"], x=LABEL_W + 4, y=mid + 4, fill="#888")
        return

    def x(value):
        return LABEL_W + value * scale

    svg_el(svg, "rect", x=LABEL_W, y=y + 4, width=f"{r['median'] * scale:.1f}",
           height=ROW_H - 8, fill="#4a7ab5")
    svg_el(svg, "line", x1=f"{x(r['min']):.1f}", x2=f"{x(r['p99']):.1f}", y1=mid, y2=mid,
           stroke="#222")
    for v in (r["min"], r["p99"]):
        svg_el(svg, "line", x1=f"{x(v):.1f}", x2=f"{x(v):.1f}", y1=mid - 5, y2=mid + 5,
               stroke="#222")
    svg_el(svg, "text", str(r["median"]), x=f"{x(max(r['p99'], r['median'])) + 6:.1f}",
           y=mid + 4)


def build_svg(rows, title):
    """An SVG bar chart element."""
    top = max([v for r in rows if "note" not in r for v in (r["p99"], r["median"])] + [1])
    scale = CHART_W / top
    height = TOP + ROW_H * len(rows) + 10
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(LABEL_W + CHART_W + VALUE_W),
                             "height": str(height), "font-family": "sans-serif",
                             "font-size": "12"})
    svg_el(svg, "text", title, x=10, y=22, font_size=14)
    for i, r in enumerate(rows):
        plot_row(svg, TOP + i * ROW_H, r, scale)
    return svg


def write_svg(path, rows, title):
    """Write the chart to path (raises OSError)."""
    ET.ElementTree(build_svg(rows, title)).write(path, encoding="utf-8", xml_declaration=True)
