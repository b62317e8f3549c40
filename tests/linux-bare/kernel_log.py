#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Linux guest's kernel complaints against the bare run's (docs/linux-guest.md).

    kernel_log.py [--reference FILE] LOG

After its work (the perf_event fuzzer of mhvperffuzz=, perf stat, perf
test) the guest's /init (scripts/linux-guest-init.sh) lists the kernel
log's complaints: "mhv-linux: klog TEXT" per distinct line (without its
timestamp) of a WARNING, BUG, oops, general protection fault, unchecked
MSR access error, unknown NMI ("Uhhuh. NMI received", "Dazed and
confused"), lockup, RCU stall or panic; then "mhv-linux: klog-lines N
of M" (N printed, M matched), and "mhv-linux: klog-timing perf interrupt
took too long N, NMI handler took too long M", the counts of the two
timing lines ("perf: interrupt took too long (...), lowering
kernel.perf_event_max_sample_rate to ...", "NMI handler (...) took too
long to run: ...", as many as the kernel lowers its rate).

Each line is reduced to what identifies the complaint: a WARNING to its
source line and function ("WARNING: at kernel/events/core.c:123 f"), an
MSR error to its text without " at rIP: ..." (the MSR and value stay),
any other to its text with numbers as "#".  The timing lines are
counted, not judged: Linux times its PMI handler in guest time, which
under mhv includes the exits the handler takes (each access to a PMU MSR
in the software modes), and the bare run on Bochs prints them too (a
PMI storm of the fuzzer's small sample periods).  Every other line of a run must be in the
reference (FILE: the bare run's "mhv-linux: klog" lines or the reduced
texts; '#' starts a comment); without --reference there must be none.
Each run must have printed its list (an older initrd has no klog-lines
line).  A run whose perf_event fuzzer printed its seed must show its
status, 0 (it faulted or a syscall hung otherwise).  One line per run;
status 1 when a check fails.
"""
import re
import sys

import guest_checks

KLOG = re.compile(r"mhv-linux: klog (.*?)\s*$")
COUNT = re.compile(r"mhv-linux: klog-lines ([0-9]+) of ([0-9]+)")
TIMING_COUNTS = re.compile(r"mhv-linux: klog-timing perf interrupt took too long ([0-9]+), "
                           r"NMI handler took too long ([0-9]+)")
FUZZ_SEED = re.compile(r"mhv-linux: perf-fuzz seed (\S+)")
FUZZ_STATUS = re.compile(r"mhv-linux: perf-fuzz status ([0-9]+)")
WARNING = re.compile(r"WARNING: (?:CPU: \d+ PID: \d+ )?at (\S+) ([A-Za-z0-9_.]+)")
MSR = re.compile(r"(unchecked MSR access error: .*?)(?: at rIP.*)?$")
NUMBER = re.compile(r"\b(?:0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*\b")
TIMING = ("perf: interrupt took too long", "took too long to run")


def reduce(text):
    """The part of a kernel line that identifies its complaint."""
    m = WARNING.search(text)
    if m:
        return "WARNING: at %s %s" % (m.group(1), m.group(2))
    m = MSR.search(text)
    if m:
        return m.group(1)
    return NUMBER.sub("#", text).strip()


def timing(text):
    return any(t in text for t in TIMING)


class Run:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.printed = None  # None: the run printed no klog-lines line
        self.matched = None
        self.timing = None  # (perf interrupt, NMI handler) too long: counts
        self.fuzz_seed = None  # the perf_event fuzzer's, where it ran
        self.fuzz_status = None


def feed(run, line):
    m = COUNT.search(line)
    if m:
        run.printed, run.matched = int(m.group(1)), int(m.group(2))
        return
    m = KLOG.search(line)
    if m:
        run.lines.append(m.group(1))
        return
    m = TIMING_COUNTS.search(line)
    if m:
        run.timing = (int(m.group(1)), int(m.group(2)))
        return
    m = FUZZ_SEED.search(line)
    if m:
        run.fuzz_seed = m.group(1)
        return
    m = FUZZ_STATUS.search(line)
    if m:
        run.fuzz_status = int(m.group(1))


def parse(text):
    return guest_checks.parse_runs(text, Run, feed)


def read_reference(text):
    ref = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = KLOG.search(line)
        # a kernel line may hold '#' ("Oops: 0000 [#1]"): a comment only
        # after a bare text
        ref.append(reduce(m.group(1) if m else line.split(" #", 1)[0].strip()))
    return ref


def check_run(r, allowed, ref_name, lines, fails):
    if r.fuzz_seed is not None and r.fuzz_status != 0:
        fails.append("run %s: the perf_event fuzzer (seed %s) ended with %s" %
                     (r.name, r.fuzz_seed, "status %d" % r.fuzz_status
                      if r.fuzz_status is not None else "no status"))
    if r.printed is None:
        fails.append("run %s: no \"mhv-linux: klog-lines\" line (an older initrd? make linux-guest)"
                     % r.name)
        return ()
    if r.printed != len(r.lines):
        fails.append("run %s: /init printed %d kernel log lines, %d read"
                     % (r.name, r.printed, len(r.lines)))
    judged = [reduce(t) for t in r.lines if not timing(t)]
    timed = [t for t in r.lines if timing(t)]
    new = [t for t in judged if t not in allowed]
    for t in new:
        fails.append("run %s: kernel log: %s (not in %s)" % (r.name, t, ref_name))
    perf_slow, nmi_slow = r.timing or (0, 0)
    perf_slow += sum(1 for t in timed if "perf: interrupt" in t)
    nmi_slow += sum(1 for t in timed if "perf: interrupt" not in t)
    lines.append("linux-klog: run %s: %d complaints%s; timing: perf interrupt took too long "
                 "%d, NMI handler took too long %d" %
                 (r.name, len(judged),
                  " (%d not in %s)" % (len(new), ref_name) if new
                  else " (each in %s)" % ref_name if judged else "",
                  perf_slow, nmi_slow))
    return [t for t in judged if t in allowed]


def check(runs, reference, ref_name):
    """(lines to print, failures)"""
    return guest_checks.check_runs(runs, reference, ref_name, "linux-klog", check_run)


def main(argv=None):
    return guest_checks.main(argv, __doc__, "linux-klog",
                             "the bare run's kernel log lines (tests/emu/linux-bare-MODEL.klog)",
                             parse, read_reference, check)


if __name__ == "__main__":
    sys.exit(main())
