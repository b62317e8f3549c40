# SPDX-License-Identifier: MIT
"""Unit tests of msr_errors.py (python3 -m unittest discover -s tests/linux-bare)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msr_errors  # noqa: E402
from guest_log_fixture import run_start  # noqa: E402
import guest_log_fixture  # noqa: E402

# as Linux 6.1 printed them on the pinned Bochs (issue 30)
THERM_RD = "RDMSR from 0x19b"
THERM_WR = "WRMSR to 0x19b (tried to write 0x0000000000000003)"
AMD_RESET = "WRMSR to 0xc0000302 (tried to write 0x040000000000003f)"


def run_lines(name, errors, count=None):
    lines = run_start(name)
    lines += ["mhv-linux: msr-error %s" % e for e in errors]
    if count is not False:
        lines.append("mhv-linux: msr-errors %d" % (len(errors) if count is None else count))
    lines.append("mhv-linux: done at 27.00 s")
    return lines


def mhv_log(*runs):
    return guest_log_fixture.mhv_log(*runs, mode="vmx")


def bare_log(errors):
    # COM1 as the bare run writes it: CRLF, the kernel's own lines too
    return "\r\n".join(["[    1.0] Linux version 6.1"] + run_lines("bare", errors)) + "\r\n"


class ParseTest(unittest.TestCase):
    def test_mhv_log_runs(self):
        runs = msr_errors.parse(mhv_log(run_lines("off", []), run_lines("sw", [THERM_RD, THERM_WR])))
        self.assertEqual([r.name for r in runs], ["off", "sw"])
        self.assertEqual(runs[0].errors, [])
        self.assertEqual(runs[0].count, 0)
        self.assertEqual(runs[1].errors, [THERM_RD, THERM_WR])
        self.assertEqual(runs[1].count, 2)

    def test_bare_crlf(self):
        runs = msr_errors.parse(bare_log([AMD_RESET]))
        self.assertEqual(runs[0].errors, [AMD_RESET])

    def test_console_copy_is_not_counted(self):
        # a console without quiet prints the kernel's own line too: only
        # init's list counts
        text = mhv_log(["mhv-linux: run sw",
                        "[    0.35] unchecked MSR access error: " + THERM_RD + " at rIP: 0x1 (x)",
                        "mhv-linux: msr-error " + THERM_RD, "mhv-linux: msr-errors 1"])
        self.assertEqual(msr_errors.parse(text)[0].errors, [THERM_RD])

    def test_reference_forms(self):
        ref = msr_errors.read_reference("# the bare run\nmhv-linux: msr-error %s\n\n%s  # bare text\n"
                                        % (AMD_RESET, THERM_RD))
        self.assertEqual(ref, [AMD_RESET, THERM_RD])


class CheckTest(unittest.TestCase):
    def check(self, text, reference=()):
        return msr_errors.check(msr_errors.parse(text), list(reference), "ref")

    def test_none_passes(self):
        lines, fails = self.check(mhv_log(run_lines("off", []), run_lines("sw", [])))
        self.assertEqual(fails, [])
        self.assertEqual(len(lines), 2)

    def test_one_bare_does_not_have_fails(self):
        # skylake_pmu under mhv sw before the leaf 6 thermal bits were hidden
        _, fails = self.check(mhv_log(run_lines("off", []), run_lines("sw", [THERM_RD, THERM_WR])))
        self.assertEqual(len(fails), 2)
        self.assertIn("run sw", fails[0])
        self.assertIn("0x19b", fails[0])

    def test_the_bare_runs_own_passes(self):
        # zen5_pmu: the same WRMSR bare and under mhv
        lines, fails = self.check(mhv_log(run_lines("sw", [AMD_RESET]), run_lines("hw", [AMD_RESET])),
                                  [AMD_RESET])
        self.assertEqual(fails, [])
        self.assertIn("each in ref", lines[0])

    def test_extra_beside_the_bare_runs_own_fails(self):
        _, fails = self.check(mhv_log(run_lines("sw", [AMD_RESET, THERM_RD])), [AMD_RESET])
        self.assertEqual(len(fails), 1)
        self.assertIn(THERM_RD, fails[0])

    def test_same_msr_other_value_fails(self):
        _, fails = self.check(mhv_log(run_lines("sw", ["WRMSR to 0xc0000302 (tried to write 0x1)"])),
                              [AMD_RESET])
        self.assertEqual(len(fails), 1)

    def test_no_list_fails(self):
        # an initrd from before the list: nothing was checked
        _, fails = self.check(mhv_log(run_lines("sw", [], count=False)))
        self.assertEqual(len(fails), 1)
        self.assertIn("no \"mhv-linux: msr-errors\"", fails[0])

    def test_count_disagrees_fails(self):
        # a kernel line the sed in /init did not read
        _, fails = self.check(mhv_log(run_lines("sw", [], count=1)))
        self.assertEqual(len(fails), 1)

    def test_no_run_fails(self):
        _, fails = self.check("mhv: nothing\n")
        self.assertEqual(len(fails), 1)

    def test_reference_line_no_run_had_is_a_note(self):
        lines, fails = self.check(bare_log([]), [AMD_RESET])
        self.assertEqual(fails, [])
        self.assertTrue(any("note" in line and AMD_RESET in line for line in lines))


class MainTest(unittest.TestCase):
    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            log, ref = os.path.join(d, "log"), os.path.join(d, "ref")
            with open(log, "w") as f:
                f.write(mhv_log(run_lines("sw", [AMD_RESET])))
            with open(ref, "w") as f:
                f.write("mhv-linux: msr-error %s\n" % AMD_RESET)
            self.assertEqual(msr_errors.main(["--reference", ref, log]), 0)
            # QEMU: no bare run, none allowed
            self.assertEqual(msr_errors.main([log]), 1)


if __name__ == "__main__":
    unittest.main()
