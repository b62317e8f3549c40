#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kvm-unit-tests' vmexit.flat beside mhv's own vmexit suite, one table.

    vmexit-table.py [--env LABEL] --mhv MHV_SUITE_LOG [--mhv ...] KUT_LOG...

KUT_LOG: serial logs of vmexit.flat run as mhv's guest (tests/kut/run.py,
e.g. build/kut/qemu/vmexit_*.mhv.log); its lines `[vmexit.flat] NAME N` are
TSC ticks per iteration of its loop (mean, loop included).  MHV_SUITE_LOG:
an mhv run with the vmexit suite (make test's build/test-logs/qemu-max.log,
and qemu-smp2.log for the IPI tests); its MHV-JSON median and min per test,
TSC ticks per exit (the first log that has a test gives it).  Both ran on the
same emulator: emulator numbers, not a statement about hardware.  Prints a
markdown table; a test only one side has is shown with a dash."""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from mhv_log import ReportError, load_log  # noqa: E402

KUT_LINE = re.compile(r"^\[vmexit\.flat\] (\w+) (\d+)$")
KUT_SKIP = re.compile(r"^\[vmexit\.flat\] (\w+) \(skipped\)$")


def kut_numbers(paths):
    """{test: ticks or 'skipped'} in the order the logs print them."""
    out = {}
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n")
                m = KUT_LINE.match(line)
                if m:
                    out[m.group(1)] = int(m.group(2))
                    continue
                m = KUT_SKIP.match(line)
                if m:
                    out.setdefault(m.group(1), "skipped")
    return out


def mhv_numbers(paths):
    """{test: record} of the vmexit suite, config default."""
    out = {}
    for path in paths:
        this = {}
        for rec in load_log(path, allow_truncated=True):
            if rec.get("suite") == "vmexit" and rec.get("config") == "default":
                this[rec["test"]] = rec
        for test, rec in this.items():
            out.setdefault(test, rec)
    return out


def table(label, kut, mhv):
    rows = ["### vmexit.flat under mhv vs mhv's vmexit suite, %s (emulator numbers)" % label, "",
            "TSC ticks. KUT: mean per iteration of vmexit.flat's loop (loop included), "
            "run as mhv's guest; mhv: median (min) per exit of its own suite. "
            "An emulator's TSC is not a hardware cycle.", "",
            "| test | KUT vmexit.flat | mhv vmexit median | mhv min |",
            "|---|---:|---:|---:|"]
    names = [t for t in COMMON if t in kut or t in mhv] + [t for t in kut if t not in COMMON]
    for t in names:
        k = kut.get(t, "—")
        r = mhv.get(t)
        if r is None:
            med = mn = "—"
        elif "skipped" in r:
            med, mn = "skipped", ""
        else:
            med, mn = r.get("median", "—"), r.get("min", "—")
        rows.append("| %s | %s | %s | %s |" % (t, k, med, mn))
    return "\n".join(rows) + "\n"


# mhv's tests that KUT's vmexit.flat also has (its x86/unittests.cfg)
COMMON = ("cpuid", "vmcall", "mov_from_cr8", "mov_to_cr8", "inl_from_pmtimer", "ipi",
          "ipi_halt", "ple_round_robin", "tscdeadline", "tscdeadline_immed", "toggle_cr0_wp",
          "toggle_cr4_pge")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", default="QEMU TCG -cpu max (SVM)")
    ap.add_argument("--mhv", action="append", required=True, metavar="LOG")
    ap.add_argument("kut_logs", nargs="+")
    a = ap.parse_args()
    try:
        mhv = mhv_numbers(a.mhv)
    except (OSError, ReportError) as e:
        print("vmexit-table: %s" % e, file=sys.stderr)
        return 2
    try:
        kut = kut_numbers(a.kut_logs)
    except OSError as e:
        print("vmexit-table: %s" % e, file=sys.stderr)
        return 2
    if not kut:
        print("vmexit-table: no vmexit.flat numbers in %s" % " ".join(a.kut_logs), file=sys.stderr)
        return 2
    sys.stdout.write(table(a.env, kut, mhv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
