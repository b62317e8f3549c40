#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Linux guest's "unchecked MSR access error" lines (docs/linux-guest.md).

    msr_errors.py [--reference FILE] LOG

A CPUID bit a guest sees promises MSRs: when mhv's guest CPUID shows a
feature whose MSR mhv refuses (#GP), Linux's unchecked RDMSR/WRMSR of it
prints "unchecked MSR access error: ..." (arch/x86/mm/extable.c).  Such a
line under mhv that the bare emulator's run of the same CPU model does not
have is a promise mhv does not keep.

A log holds one or more runs of the guest's /init
(scripts/linux-guest-init.sh): "mhv-linux: run NAME" starts one, each
"mhv-linux: msr-error TEXT" is one of the kernel's lines (from dmesg: it
prints them at KERN_WARNING, which a quiet console does not show; TEXT
without the " at rIP: ..." tail), and "mhv-linux: msr-errors N" ends the
list with their count.  mhv's logs prefix the guest's lines with
"[vmlinuz] ".

The kernel prints the first unchecked RDMSR error and the first unchecked
WRMSR error of a boot only (once each), so a run reports at most one of
each: an error that comes after the bare run's own can hide behind it.

Checks, per run: it reported its list (an initrd older than the list has
no "msr-errors" line) and every line was read (the count agrees); each
error is in the reference (FILE: the bare run's "mhv-linux: msr-error"
lines, or the bare TEXTs; '#' starts a comment).  Without --reference (QEMU:
there is no bare run) there must be none.  Reference lines no run had
are printed, not judged.  One line per run; status 1 when a check fails.
"""
import argparse
import re
import sys

RUN = re.compile(r"mhv-linux: run (\S+)")
ERROR = re.compile(r"mhv-linux: msr-error (.*?)\s*$")
COUNT = re.compile(r"mhv-linux: msr-errors ([0-9]+)")


class Run:
    def __init__(self, name):
        self.name = name
        self.errors = []
        self.count = None  # the kernel's count, None: the run printed none


def parse(text):
    runs = []
    for line in text.splitlines():
        m = RUN.search(line)
        if m:
            runs.append(Run(m.group(1)))
            continue
        if not runs:
            continue
        m = ERROR.search(line)
        if m:
            runs[-1].errors.append(m.group(1))
            continue
        m = COUNT.search(line)
        if m:
            runs[-1].count = int(m.group(1))
    return runs


def read_reference(text):
    ref = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = ERROR.search(line)
        ref.append(m.group(1) if m else line)
    return ref


def check(runs, reference, ref_name):
    """(lines to print, failures)"""
    lines, fails = [], []
    allowed = set(reference)
    seen = set()
    if not runs:
        fails.append("no run of /init in the log")
    for r in runs:
        if r.count is None:
            fails.append("run %s: no \"mhv-linux: msr-errors\" line (an older initrd? make linux-guest)"
                         % r.name)
            continue
        if r.count != len(r.errors):
            fails.append("run %s: the kernel has %d unchecked MSR access errors, %d read"
                         % (r.name, r.count, len(r.errors)))
        new = [e for e in r.errors if e not in allowed]
        seen.update(e for e in r.errors if e in allowed)
        for e in new:
            fails.append("run %s: unchecked MSR access error: %s (not in %s)" % (r.name, e, ref_name))
        lines.append("linux-msr: run %s: %d unchecked MSR access errors%s" %
                     (r.name, len(r.errors),
                      ", %d not in %s" % (len(new), ref_name) if new
                      else ", each in %s" % ref_name if r.errors else ""))
    for e in reference:
        if e not in seen:
            lines.append("linux-msr: note: %s has \"%s\", no run did" % (ref_name, e))
    return lines, fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", help="the bare run's MSR errors (tests/emu/linux-bare-MODEL.msr)")
    ap.add_argument("log")
    a = ap.parse_args(argv)
    with open(a.log, errors="replace") as f:
        runs = parse(f.read())
    reference, ref_name = [], "the allowed set (empty: no bare run)"
    if a.reference:
        with open(a.reference, errors="replace") as f:
            reference = read_reference(f.read())
        ref_name = a.reference
    lines, fails = check(runs, reference, ref_name)
    for line in lines:
        print(line)
    for f in fails:
        print("linux-msr: FAIL: %s" % f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
