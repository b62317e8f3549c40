# SPDX-License-Identifier: MIT
"""Unit tests of perf_check.py (python3 -m unittest discover -s tests/linux-bare)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_check  # noqa: E402
from guest_log_fixture import run_start  # noqa: E402
import guest_log_fixture  # noqa: E402


def run_lines(name, insn, br, init="26.20"):
    lines = run_start(name, init)
    if insn is None:
        for ev in ("instructions:u", "branches:u", "instructions", "cycles", "branches"):
            lines.append("mhv-linux: perf <not supported>,,%s,0,100.00,," % ev)
    else:
        lines += ["mhv-linux: perf %d,,instructions:u,541458691,100.00,," % insn,
                  "mhv-linux: perf %d,,branches:u,541458691,100.00,," % br,
                  "mhv-linux: perf 25861072,,instructions,541458691,100.00,1.00,insn per cycle"]
    return lines


def mhv_log(*runs):
    return guest_log_fixture.mhv_log(*runs, mib=512)


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


PERF_TESTS = [
    "mhv-linux: perf-test start at 29.32 s",
    "mhv-linux: perf-test 2: Detect openat syscall event                : Ok",
    "mhv-linux: perf-test 4: mmap interface tests                       :",
    "mhv-linux: perf-test 4.1: Read samples using the mmap interface     : Ok",
    "mhv-linux: perf-test 23.1: Read Only Watchpoint                     : Skip (missing hardware support)",
    "mhv-linux: perf-test 35: Track with sched_switch                    : Ok",
    "mhv-linux: perf-test 71.2: Perf time to TSC                         : Ok",
    "mhv-linux: perf-record cycles:u period 100000 samples 251",
    "mhv-linux: perf-record instructions:u period 100000 samples 251",
    "mhv-linux: perf-test dmesg: [    2.6] unchecked MSR access error: WRMSR to 0xc0000302",
    "mhv-linux: perf-test done at 69.00 s",
]


def with_tests(lines, replace=None, samples=None):
    out = []
    for line in PERF_TESTS:
        if replace and line.startswith("mhv-linux: perf-test %s:" % replace[0]):
            line = line.rsplit(":", 1)[0] + ": " + replace[1]
        if samples is not None and "perf-record cycles:u" in line:
            line = "mhv-linux: perf-record cycles:u period 100000 samples %s" % samples
        out.append(line)
    return lines + out


class PerfTestTest(unittest.TestCase):
    def runs(self, *rs):
        return perf_check.parse(mhv_log(*rs), "x")

    def test_parse_verdicts_and_samples(self):
        r = self.runs(with_tests(run_lines("sw", 25124095, 6521030)))[0]
        self.assertEqual(r.tests["2"], ("Detect openat syscall event", "Ok"))
        self.assertEqual(r.tests["23.1"][1], "Skip (missing hardware support)")
        self.assertNotIn("4", r.tests)  # a parent of subtests: no verdict of its own
        self.assertEqual(r.tests["4.1"][1], "Ok")
        self.assertEqual(len(r.tests), 5)
        self.assertEqual(r.records, {"cycles:u": 251, "instructions:u": 251})

    def test_same_verdicts_pass(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         run_lines("off", None, None),
                         with_tests(run_lines("sw", 25124095, 6521030), samples=252))
        lines, fails = perf_check.check(runs, reference=runs[0])
        self.assertEqual(fails, [])
        self.assertIn("perf test: 5 verdicts as bare's", lines[2])
        self.assertIn("perf record cycles:u: 252 samples (+1)", lines[2])

    def test_a_failed_test_fails_the_run(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         with_tests(run_lines("sw-lazy", 25124095, 6521030),
                                    replace=("35", "FAILED!")))
        _, fails = perf_check.check(runs, reference=runs[0])
        self.assertEqual(len(fails), 1)
        self.assertIn("run sw-lazy: perf test verdicts differ", fails[0])
        self.assertIn("35 Track with sched_switch: FAILED!, bare Ok", fails[0])

    def test_skip_reason_is_not_the_verdict(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         with_tests(run_lines("hw", 25124095, 6521030),
                                    replace=("23.1", "Skip (other reason)")))
        _, fails = perf_check.check(runs, reference=runs[0])
        self.assertEqual(fails, [])

    def test_missing_verdicts_fail(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         run_lines("sw", 25124095, 6521030))
        _, fails = perf_check.check(runs, reference=runs[0])
        self.assertIn("run sw: no perf test verdicts", fails[0])
        self.assertIn("run sw: perf record cycles:u: no sample count", fails[1])

    def test_sample_counts_beyond_tolerance_fail(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         with_tests(run_lines("sw", 25124095, 6521030), samples=240))
        _, fails = perf_check.check(runs, reference=runs[0], sample_pct=1.0, sample_min=2)
        self.assertEqual(len(fails), 1)
        self.assertIn("perf record cycles:u: 240 samples, bare's 251: more than 2.51 apart",
                      fails[0])
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         with_tests(run_lines("sw", 25124095, 6521030), samples=249))
        _, fails = perf_check.check(runs, reference=runs[0], sample_pct=1.0, sample_min=2)
        self.assertEqual(fails, [])

    def test_unjudged_test_is_printed_not_judged(self):
        bare = with_tests(run_lines("bare", 25124050, 6520986))
        bare.append("mhv-linux: perf-test 24: Number of exit events of a simple workload : FAILED!")
        sw = with_tests(run_lines("sw", 25124095, 6521030))
        sw.append("mhv-linux: perf-test 24: Number of exit events of a simple workload : Ok")
        runs = self.runs(bare, sw)
        lines, fails = perf_check.check(runs, reference=runs[0])
        self.assertEqual(fails, [])
        self.assertIn("perf test: 5 verdicts as bare's", lines[1])
        self.assertIn("24 Ok (bare: FAILED!; not judged: a race", lines[1])

    def test_no_samples_counted(self):
        runs = self.runs(with_tests(run_lines("bare", 25124050, 6520986)),
                         with_tests(run_lines("sw", 25124095, 6521030), samples=""))
        _, fails = perf_check.check(runs, reference=runs[0])
        self.assertIn("run sw: perf record cycles:u: no sample count", fails[0])
