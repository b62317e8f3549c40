#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tables, comparisons and plots of mhv benchmark results.

mhv prints one `MHV-JSON {...}` line per measurement on its serial console
(hv/report.c).  This script reads those lines out of whole console logs:

  report.py csv LOG...                       one CSV row per measurement
  report.py markdown LOG                     a median table per suite
  report.py compare BASE NEW [--stat S] [--threshold PCT]
  report.py columns LOG --base CFG --new CFG [--stat S] [--threshold PCT]
  report.py plot LOG --out FILE.svg          bar chart of medians, min-p99 whiskers

gain = (base - new) / base * 100, so positive means new is faster.  With
--threshold, exit status 1 when a matched test got slower by more than PCT
percent.  Bad input ends with `report.py: LOG:LINE: what is wrong` and status
2; LINE is 0 when the problem is the file as a whole.  When a log holds the
same (suite, test, config) twice, compare/columns/markdown use the last one.
"""
import argparse
import csv
import json
import os
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction

PREFIX = "MHV-JSON "
KEYS = ("suite", "test", "config", "env", "backend")
STATS = ("iterations", "batches", "min", "median", "p99", "mean", "stddev", "max")
CSV_COLUMNS = ("log",) + KEYS + ("unit",) + STATS + ("skipped",)
GAIN_STATS = ("median", "min", "mean")


class ReportError(Exception):
    """A problem with an input file, located as PATH:LINE."""

    def __init__(self, path, line, what):
        super().__init__(f"{path}:{line}: {what}")


# ---- parsing ----

def parse_record(path, lineno, text):
    """One MHV-JSON payload -> measurement dict (with log and line)."""
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(path, lineno, f"malformed MHV-JSON: {e.msg} (JSON column {e.colno})")
    if not isinstance(rec, dict):
        raise ReportError(path, lineno, "malformed MHV-JSON: not an object")
    wanted = KEYS + (("skipped",) if "skipped" in rec else ("unit",))
    for key in wanted:
        if not isinstance(rec.get(key), str):
            raise ReportError(path, lineno, f"MHV-JSON record lacks string field '{key}'")
    if "skipped" not in rec:
        for key in STATS:
            value = rec.get(key)
            if type(value) is not int or value < 0:
                raise ReportError(path, lineno,
                                  f"MHV-JSON record lacks non-negative integer '{key}'")
    rec["log"], rec["line"] = path, lineno
    return rec


def parse_log(path, text):
    """All measurements in a console log's text, in order."""
    found = []
    for lineno, line in enumerate(text.split("\n"), 1):
        at = line.find(PREFIX)
        if at >= 0:
            found.append(parse_record(path, lineno, line[at + len(PREFIX):].strip()))
    return found


def load_log(path):
    """Read a log as bytes; its measurements (at least one)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(path, 0, f"cannot read: {e.strerror}")
    found = parse_log(path, data.decode("utf-8", errors="replace"))
    if not found:
        raise ReportError(path, 0, "no MHV-JSON lines found")
    return found


# ---- helpers ----

def unique(values):
    """values without repeats, in first-seen order."""
    return list(dict.fromkeys(values))


def is_skipped(m):
    return "skipped" in m


def log_name(path):
    """A short column title for a log: its file name without extension."""
    return os.path.splitext(os.path.basename(path))[0] or path


def describe(measurements):
    """'env qemu-tcg, backend svm, unit tsc' (values joined when mixed)."""
    parts = []
    for key in ("env", "backend", "unit"):
        values = unique(m[key] for m in measurements if key in m)
        parts.append(f"{key} {'/'.join(values) or 'n/a'}")
    return ", ".join(parts)


def gain_pct(base, new):
    """Exact (base - new) / base * 100 as a Fraction; None if base is 0."""
    return None if base == 0 else Fraction(base - new, base) * 100


def format_gain(gain):
    """'+44.6%': one decimal, halves away from zero, never '-0.0%'."""
    if gain is None:
        return "n/a"
    tenths = (abs(gain) * 10 + Fraction(1, 2)).__floor__()
    sign = "-" if gain < 0 and tenths else "+"
    return f"{sign}{tenths // 10}.{tenths % 10}%"


def parse_threshold(text):
    """--threshold: a non-negative percentage, kept exact."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


# ---- commands ----

def cmd_csv(args, out):
    """One CSV row per measurement of every log."""
    rows = [m for path in args.logs for m in load_log(path)]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in rows:
        writer.writerow([m.get(col, "") for col in CSV_COLUMNS])
    return 0


def markdown_cell(m):
    if m is None:
        return ""
    if is_skipped(m):
        return "skipped (" + m["skipped"].replace("|", "\\|") + ")"
    return str(m["median"])


def cmd_markdown(args, out):
    """A table per suite: tests down, configs across, medians in the cells."""
    found = load_log(args.log)
    for i, suite in enumerate(unique(m["suite"] for m in found)):
        rows = [m for m in found if m["suite"] == suite]
        tests = unique(m["test"] for m in rows)
        configs = unique(m["config"] for m in rows)
        cells = {(m["test"], m["config"]): m for m in rows}
        if i:
            out.write("\n")
        out.write(f"### {suite}: median, {describe(rows)}\n\n")
        out.write("| test | " + " | ".join(configs) + " |\n")
        out.write("|---|" + "---:|" * len(configs) + "\n")
        for test in tests:
            line = [markdown_cell(cells.get((test, c))) for c in configs]
            out.write(f"| {test} | " + " | ".join(line) + " |\n")
    return 0


def gain_rows(base, new, stat):
    """Match two {key: measurement} maps -> (table rows, only-base, only-new)."""
    rows = []
    for key, b in base.items():
        n = new.get(key)
        if n is None:
            continue
        if is_skipped(b) or is_skipped(n):
            gain = None
        else:
            gain = gain_pct(b[stat], n[stat])
        rows.append((key, b, n, gain))
    only_base = [k for k in base if k not in new]
    only_new = [k for k in new if k not in base]
    return rows, only_base, only_new


def stat_cell(m, stat):
    return "skipped" if is_skipped(m) else str(m[stat])


def print_gain_table(out, title, names, matched, stat, label):
    """The kvm@vger style table: test, base, new, gain."""
    table = [("test",) + names + ("gain",)]
    for key, b, n, gain in matched:
        table.append((label(key), stat_cell(b, stat), stat_cell(n, stat), format_gain(gain)))
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    out.write(title + "\n")
    for row in table:
        out.write(f"{row[0]:<{widths[0]}}  " +
                  "  ".join(f"{cell:>{w}}" for cell, w in zip(row[1:], widths[1:])) + "\n")


def report_gains(out, title, names, maps, args, label):
    """Print the table and what is on one side only; the exit status."""
    matched, only_base, only_new = gain_rows(maps[0], maps[1], args.stat)
    print_gain_table(out, title, names, matched, args.stat, label)
    for side, keys in (("base", only_base), ("new", only_new)):
        for key in keys:
            out.write(f"{label(key)}: only in {side}\n")
    if args.threshold is None:
        return 0
    worse = [(key, g) for key, _, _, g in matched if g is not None and -g > args.threshold]
    for key, g in worse:
        print(f"report.py: regression: {label(key)} {format_gain(g)} "
              f"(threshold {float(args.threshold):g}%)", file=sys.stderr)
    return 1 if worse else 0


def cmd_compare(args, out):
    """Two logs, matched on (suite, test, config)."""
    base, new = load_log(args.base_log), load_log(args.new_log)
    maps = [{(m["suite"], m["test"], m["config"]): m for m in ms} for ms in (base, new)]
    names = (log_name(args.base_log), log_name(args.new_log))
    if names[0] == names[1]:
        names = ("base", "new")
    one_config = len(unique(k[2] for k in list(maps[0]) + list(maps[1]))) == 1
    one_suite = len(unique(k[0] for k in list(maps[0]) + list(maps[1]))) == 1

    def label(key):
        text = key[1] if one_suite else f"{key[0]}/{key[1]}"
        return text if one_config else f"{text} [{key[2]}]"

    about = [describe(base), describe(new)]
    title = f"{args.stat}: " + (about[0] if about[0] == about[1] else
                                f"base {about[0]}; new {about[1]}")
    return report_gains(out, title, names, maps, args, label)


def cmd_columns(args, out):
    """Two configs of one log, matched on (suite, test)."""
    found = load_log(args.log)
    maps = []
    for config in (args.base, args.new):
        picked = [m for m in found if m["config"] == config]
        if not picked:
            raise ReportError(args.log, 0, f"no measurements with config '{config}'")
        maps.append({(m["suite"], m["test"]): m for m in picked})
    one_suite = len(unique(m["suite"] for m in found)) == 1

    def label(key):
        return key[1] if one_suite else f"{key[0]}/{key[1]}"

    title = f"{args.stat}: {describe(found)}"
    return report_gains(out, title, (args.base, args.new), maps, args, label)


# ---- SVG plot ----

SVG_NS = "http://www.w3.org/2000/svg"
ROW_H, LABEL_W, CHART_W, VALUE_W, TOP = 26, 230, 480, 90, 40


def svg_el(parent, tag, text=None, **attrs):
    el = ET.SubElement(parent, tag, {k.replace("_", "-"): str(v) for k, v in attrs.items()})
    el.text = text
    return el


def plot_row(svg, y, m, scale, label):
    """One bar (median) with its min..p99 whisker, or a 'skipped' note."""
    mid = y + ROW_H / 2
    svg_el(svg, "text", label, x=LABEL_W - 8, y=mid + 4, text_anchor="end")
    if is_skipped(m):
        svg_el(svg, "text", f"skipped: {m['skipped']}", x=LABEL_W + 4, y=mid + 4,
               fill="#888")
        return

    def x(value):
        return LABEL_W + value * scale

    svg_el(svg, "rect", x=LABEL_W, y=y + 4, width=f"{m['median'] * scale:.1f}",
           height=ROW_H - 8, fill="#4a7ab5")
    svg_el(svg, "line", x1=f"{x(m['min']):.1f}", x2=f"{x(m['p99']):.1f}", y1=mid, y2=mid,
           stroke="#222")
    for v in (m["min"], m["p99"]):
        svg_el(svg, "line", x1=f"{x(v):.1f}", x2=f"{x(v):.1f}", y1=mid - 5, y2=mid + 5,
               stroke="#222")
    svg_el(svg, "text", str(m["median"]), x=f"{x(max(m['p99'], m['median'])) + 6:.1f}",
           y=mid + 4)


def build_svg(found, title):
    """An SVG bar chart element for a list of measurements."""
    top = max([m["p99"] for m in found if not is_skipped(m)] +
              [m["median"] for m in found if not is_skipped(m)] + [1])
    scale = CHART_W / top
    height = TOP + ROW_H * len(found) + 10
    svg = ET.Element("svg", {"xmlns": SVG_NS, "width": str(LABEL_W + CHART_W + VALUE_W),
                             "height": str(height), "font-family": "sans-serif",
                             "font-size": "12"})
    svg_el(svg, "text", title, x=10, y=22, font_size=14)
    configs = unique(m["config"] for m in found)
    for i, m in enumerate(found):
        label = f"{m['suite']}/{m['test']}"
        if len(configs) > 1:
            label += f" [{m['config']}]"
        plot_row(svg, TOP + i * ROW_H, m, scale, label)
    return svg


def cmd_plot(args, out):
    """Write the bar chart of one log's medians to --out."""
    found = load_log(args.log)
    title = f"{log_name(args.log)}: median (whiskers min..p99), {describe(found)}"
    tree = ET.ElementTree(build_svg(found, title))
    try:
        tree.write(args.out, encoding="utf-8", xml_declaration=True)
    except OSError as e:
        raise ReportError(args.out, 0, f"cannot write: {e.strerror}")
    out.write(f"wrote {args.out}\n")
    return 0


# ---- command line ----

def add_gain_options(p):
    p.add_argument("--stat", choices=GAIN_STATS, default="median")
    p.add_argument("--threshold", type=parse_threshold, metavar="PCT",
                   help="exit 1 if a test got slower by more than PCT percent")


def build_parser():
    parser = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("csv", help="one CSV row per measurement")
    p.add_argument("logs", nargs="+", metavar="LOG")
    p.set_defaults(run=cmd_csv)
    p = sub.add_parser("markdown", help="a median table per suite")
    p.add_argument("log", metavar="LOG")
    p.set_defaults(run=cmd_markdown)
    p = sub.add_parser("compare", help="gains from BASE_LOG to NEW_LOG")
    p.add_argument("base_log", metavar="BASE_LOG")
    p.add_argument("new_log", metavar="NEW_LOG")
    add_gain_options(p)
    p.set_defaults(run=cmd_compare)
    p = sub.add_parser("columns", help="gains between two configs of one log")
    p.add_argument("log", metavar="LOG")
    p.add_argument("--base", required=True, metavar="CONFIG")
    p.add_argument("--new", required=True, metavar="CONFIG")
    add_gain_options(p)
    p.set_defaults(run=cmd_columns)
    p = sub.add_parser("plot", help="SVG bar chart of medians")
    p.add_argument("log", metavar="LOG")
    p.add_argument("--out", required=True, metavar="FILE.svg")
    p.set_defaults(run=cmd_plot)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args, sys.stdout)
    except ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `report.py csv LOG | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
