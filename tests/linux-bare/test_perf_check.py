# SPDX-License-Identifier: MIT
"""Unit tests of perf_check.py (python3 -m unittest discover -s tests/linux-bare)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_check  # noqa: E402


def run_lines(name, insn, br, init="26.20"):
    lines = ["mhv-linux: run %s" % name, "mhv-linux: init reached at %s s" % init]
    if insn is None:
        for ev in ("instructions:u", "branches:u", "instructions", "cycles", "branches"):
            lines.append("mhv-linux: perf <not supported>,,%s,0,100.00,," % ev)
    else:
        lines += ["mhv-linux: perf %d,,instructions:u,541458691,100.00,," % insn,
                  "mhv-linux: perf %d,,branches:u,541458691,100.00,," % br,
                  "mhv-linux: perf 25861072,,instructions,541458691,100.00,1.00,insn per cycle"]
    return lines


def mhv_log(*runs):
    """As mhv prints a guest's lines: its name as prefix."""
    out = ["mhv: guest vmlinuz: start (svm, 512 MiB, 1 vCPU on cpu 0)"]
    for r in runs:
        out += ["[vmlinuz] " + line for line in r]
    return "\n".join(out) + "\n"


BARE = "\r\n".join(["[    1.0] Linux version 6.1"] + run_lines("bare", 25124050, 6520986)) + "\r\n"


class ParseTest(unittest.TestCase):
    def test_mhv_log(self):
        runs = perf_check.parse(mhv_log(run_lines("off", None, None),
                                        run_lines("sw", 25124095, 6521030, "27.11")), "x")
        self.assertEqual([r.name for r in runs], ["off", "sw"])
        self.assertEqual(runs[0].counts["instructions:u"], None)
        self.assertEqual(runs[1].counts["instructions:u"], 25124095)
        self.assertEqual(runs[1].counts["branches:u"], 6521030)
        self.assertEqual(runs[1].init_s, 27.11)

    def test_bare_com1_crlf(self):
        runs = perf_check.parse(BARE, "bare")
        self.assertEqual(len(runs), 1)
        self.assertEqual(runs[0].counts["instructions:u"], 25124050)

    def test_lines_before_a_run_are_ignored(self):
        runs = perf_check.parse("mhv-linux: perf 5,,instructions:u,1,100.00,,\n", "x")
        self.assertEqual(runs, [])


class CheckTest(unittest.TestCase):
    def runs(self, *rs):
        return perf_check.parse(mhv_log(*rs), "x")

    def test_modes_agree(self):
        runs = self.runs(run_lines("off", None, None), run_lines("sw", 25124095, 6521030),
                         run_lines("hw", 25124093, 6521028))
        lines, fails = perf_check.check(runs, want_runs=("off", "sw", "hw"))
        self.assertEqual(fails, [])
        self.assertEqual(len(lines), 3)
        self.assertIn("no PMU", lines[0])
        self.assertIn("(-2, 0.08 ppm)", lines[2])

    def test_disagreement_beyond_tolerance_fails(self):
        runs = self.runs(run_lines("sw", 25124095, 6521030), run_lines("hw", 25134095, 6521030))
        _, fails = perf_check.check(runs, tolerance_ppm=20)
        self.assertEqual(len(fails), 1)
        self.assertIn("run hw: instructions:u", fails[0])

    def test_off_counting_fails(self):
        _, fails = perf_check.check(self.runs(run_lines("off", 5, 6)))
        self.assertIn("run off: a guest without a PMU counted", fails[0])

    def test_counting_mode_without_pmu_fails(self):
        _, fails = perf_check.check(self.runs(run_lines("sw", None, None)))
        self.assertIn("run sw: instructions:u not supported", fails[0])

    def test_missing_run_fails(self):
        _, fails = perf_check.check(self.runs(run_lines("sw", 1, 1)), want_runs=("sw", "hw"))
        self.assertEqual(fails, ["no run hw in the logs (runs: sw)"])

    def test_reference_is_the_bare_run(self):
        ref = perf_check.parse(BARE, "bare")[0]
        runs = [ref] + self.runs(run_lines("sw", 25124095, 6521030))
        lines, fails = perf_check.check(runs, ref, tolerance_ppm=20)
        self.assertEqual(fails, [])
        self.assertIn("instructions:u 25124095 (+45, 1.79 ppm)", lines[1])
        _, fails = perf_check.check(runs, ref, tolerance_ppm=1)
        self.assertEqual(len(fails), 2)

    def test_main_status(self):
        with tempfile.TemporaryDirectory() as d:
            bare, log = os.path.join(d, "bare.log"), os.path.join(d, "mhv.log")
            with open(bare, "w") as f:
                f.write(BARE)
            with open(log, "w") as f:
                f.write(mhv_log(run_lines("off", None, None), run_lines("sw", 25124095, 6521030)))
            with open(os.devnull, "w") as null:
                out, sys.stdout = sys.stdout, null
                try:
                    self.assertEqual(perf_check.main(["--reference", bare, log]), 0)
                    self.assertEqual(perf_check.main(["--reference", bare, "--tolerance-ppm",
                                                      "1", log]), 1)
                    self.assertEqual(perf_check.main(["--runs", "hw", log]), 1)
                finally:
                    sys.stdout = out


if __name__ == "__main__":
    unittest.main()
