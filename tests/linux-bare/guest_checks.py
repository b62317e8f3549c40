# SPDX-License-Identifier: MIT
"""What the checks of the Linux guest's log share (kernel_log.py, msr_errors.py,
perf_check.py): its runs, the judging of each against a reference, the
command line and the report.

A log holds one or more runs of the guest's /init
(scripts/linux-guest-init.sh): "mhv-linux: run NAME" starts one.
"""
import argparse
import re

RUN = re.compile(r"mhv-linux: run (\S+)")
NO_REFERENCE = "the allowed set (empty: no bare run)"


def parse_runs(text, new_run, feed):
    """The runs of a log: new_run(NAME) for each "mhv-linux: run NAME",
    feed(run, line) for each later line."""
    runs = []
    for line in text.splitlines():
        m = RUN.search(line)
        if m:
            runs.append(new_run(m.group(1)))
        elif runs:
            feed(runs[-1], line)
    return runs


def check_runs(runs, reference, ref_name, prefix, check_run):
    """(lines to print, failures): check_run(run, allowed, ref_name, lines, fails)
    judges one run and returns the reference entries it had; a reference
    entry no run had is a note."""
    lines, fails = [], []
    allowed = set(reference)
    seen = set()
    if not runs:
        fails.append("no run of /init in the log")
    for r in runs:
        seen.update(check_run(r, allowed, ref_name, lines, fails))
    for t in reference:
        if t not in seen:
            lines.append("%s: note: %s has \"%s\", no run did" % (prefix, ref_name, t))
    return lines, fails


def report(prefix, lines, fails):
    """Prints the lines, then the failures; the exit status."""
    for line in lines:
        print(line)
    for f in fails:
        print("%s: FAIL: %s" % (prefix, f))
    return 1 if fails else 0


def main(argv, doc, prefix, ref_help, parse, read_reference, check):
    """The command line of a check: [--reference FILE] LOG."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--reference", help=ref_help)
    ap.add_argument("log")
    a = ap.parse_args(argv)
    with open(a.log, errors="replace") as f:
        runs = parse(f.read())
    reference, ref_name = [], NO_REFERENCE
    if a.reference:
        with open(a.reference, errors="replace") as f:
            reference = read_reference(f.read())
        ref_name = a.reference
    return report(prefix, *check(runs, reference, ref_name))
