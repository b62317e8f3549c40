#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the Linux guest's perf stat counts between runs (docs/linux-guest.md).

    perf_check.py [--reference BARE_LOG] [--tolerance-ppm N] [--runs A,B,..] LOG...

A log holds one or more runs of the guest's /init (scripts/linux-guest-init.sh):
"mhv-linux: run NAME" starts one (NAME is its command line's mhvrun=, the
PMU mode under mhv, "bare" without mhv), "mhv-linux: init reached at S s"
is its uptime at /init, "mhv-linux: perf VALUE,UNIT,EVENT,..." its perf
stat -x lines.  mhv's logs prefix the guest's lines with "[vmlinuz] ".

Checks: the run named off has no PMU (every hardware event "<not
supported>"); every other run counts each user-mode event (EVENT:u) and
agrees with the reference within the tolerance: the --reference log's
(the bare emulator's) run, else the first counting run of the LOGs.
--runs names the runs the LOGs must hold.  The unfiltered counts (kernel
included: interrupts and exits differ) are printed, not judged.
Prints one line per run; status 1 when a check fails.
"""
import argparse
import re
import sys

USER_EVENTS = ("instructions:u", "branches:u")
RUN = re.compile(r"mhv-linux: run (\S+)")
INIT = re.compile(r"mhv-linux: init reached at ([0-9.]+) s")
PERF = re.compile(r"mhv-linux: perf ([^,]*),[^,]*,([^,]+),")


class Run:
    def __init__(self, name, where):
        self.name, self.where = name, where
        self.init_s = None
        self.counts = {}  # event: int, or None for "<not supported>"


def parse(text, where):
    runs = []
    for line in text.splitlines():
        # anywhere in the line: after mhv's "[vmlinuz] " or a timestamp
        m = RUN.search(line)
        if m:
            runs.append(Run(m.group(1), where))
            continue
        m = INIT.search(line)
        if m:
            if not runs:  # an /init without the run line: its name unknown
                runs.append(Run("?", where))
            runs[-1].init_s = float(m.group(1))
            continue
        m = PERF.search(line)
        if m and runs:
            value, event = m.group(1), m.group(2)
            runs[-1].counts[event] = int(value) if value.isdigit() else None
    return runs


def check(runs, reference=None, tolerance_ppm=20, want_runs=()):
    """(lines to print, failures)"""
    lines, fails = [], []
    names = [r.name for r in runs]
    for w in want_runs:
        if w not in names:
            fails.append("no run %s in the logs (runs: %s)" % (w, ", ".join(names) or "none"))
    if reference is None:
        reference = next((r for r in runs if r.name != "off" and r.counts), None)
    for r in runs:
        what = []
        if r.name == "off":
            counted = [e for e, v in r.counts.items() if v is not None]
            if not r.counts:
                fails.append("run off: no perf lines")
            elif counted:
                fails.append("run off: a guest without a PMU counted %s" % ", ".join(counted))
            else:
                what.append("no PMU: every event <not supported>")
        else:
            for ev in USER_EVENTS:
                v = r.counts.get(ev)
                if v is None:
                    fails.append("run %s: %s %s" % (r.name, ev, "not supported"
                                                     if ev in r.counts else "missing"))
                    continue
                ref = reference.counts.get(ev) if reference else None
                if r is reference or not ref:
                    what.append("%s %d (reference)" % (ev, v))
                    continue
                ppm = abs(v - ref) * 1e6 / ref
                what.append("%s %d (%+d, %.2f ppm)" % (ev, v, v - ref, ppm))
                if ppm > tolerance_ppm:
                    fails.append("run %s: %s %d differs from %s's %d by %.2f ppm (tolerance %g)"
                                 % (r.name, ev, v, reference.name, ref, ppm, tolerance_ppm))
            other = ["%s %d" % (e, v) for e, v in r.counts.items()
                     if e not in USER_EVENTS and v is not None]
            if other:
                what.append("unfiltered: " + ", ".join(other))
        init = "%.2f s" % r.init_s if r.init_s is not None else "?"
        lines.append("linux-perf: %-8s init at %s; %s" % (r.name, init, "; ".join(what)))
    return lines, fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="the bare emulator's log: its first run is the reference")
    ap.add_argument("--tolerance-ppm", type=float, default=20.0)
    ap.add_argument("--runs", default="", help="comma-separated run names the logs must hold")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args(argv)
    runs = []
    for path in a.logs:
        with open(path, errors="replace") as f:
            runs += parse(f.read(), path)
    reference = None
    if a.reference:
        with open(a.reference, errors="replace") as f:
            ref_runs = [r for r in parse(f.read(), a.reference) if r.counts]
        if not ref_runs:
            print("linux-perf: FAIL: no counting run in the reference %s" % a.reference)
            return 1
        reference = ref_runs[0]
        runs = [reference] + runs
    lines, fails = check(runs, reference, a.tolerance_ppm,
                         [w for w in a.runs.split(",") if w])
    for line in lines:
        print(line)
    for f in fails:
        print("linux-perf: FAIL: %s" % f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
