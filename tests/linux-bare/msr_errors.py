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
import re
import sys

import guest_checks

ERROR = re.compile(r"mhv-linux: msr-error (.*?)\s*$")
COUNT = re.compile(r"mhv-linux: msr-errors ([0-9]+)")


class Run:
    def __init__(self, name):
        self.name = name
        self.errors = []
        self.count = None  # the kernel's count, None: the run printed none


def feed(run, line):
    m = ERROR.search(line)
    if m:
        run.errors.append(m.group(1))
        return
    m = COUNT.search(line)
    if m:
        run.count = int(m.group(1))


def parse(text):
    return guest_checks.parse_runs(text, Run, feed)


def read_reference(text):
    ref = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = ERROR.search(line)
        ref.append(m.group(1) if m else line)
    return ref


def check_run(r, allowed, ref_name, lines, fails):
    if r.count is None:
        fails.append("run %s: no \"mhv-linux: msr-errors\" line (an older initrd? make linux-guest)"
                     % r.name)
        return ()
    if r.count != len(r.errors):
        fails.append("run %s: the kernel has %d unchecked MSR access errors, %d read"
                     % (r.name, r.count, len(r.errors)))
    new = [e for e in r.errors if e not in allowed]
    for e in new:
        fails.append("run %s: unchecked MSR access error: %s (not in %s)" % (r.name, e, ref_name))
    lines.append("linux-msr: run %s: %d unchecked MSR access errors%s" %
                 (r.name, len(r.errors),
                  ", %d not in %s" % (len(new), ref_name) if new
                  else ", each in %s" % ref_name if r.errors else ""))
    return [e for e in r.errors if e in allowed]


def check(runs, reference, ref_name):
    """(lines to print, failures)"""
    return guest_checks.check_runs(runs, reference, ref_name, "linux-msr", check_run)


def main(argv=None):
    return guest_checks.main(argv, __doc__, "linux-msr",
                             "the bare run's MSR errors (tests/emu/linux-bare-MODEL.msr)",
                             parse, read_reference, check)


if __name__ == "__main__":
    sys.exit(main())
