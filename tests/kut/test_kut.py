# SPDX-License-Identifier: MIT
"""The kvm-unit-tests harness: the expectations file and the log reading."""
import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import expect  # noqa: E402

spec = importlib.util.spec_from_file_location("kut_run", os.path.join(HERE, "run.py"))
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

SAMPLE = """# header
# more

qemu smptest pass 1 pass
qemu x2apic  pass 33 fail 30: two FAILs
qemu svm     pass 40 skip: kvm: nested SVM
bochs-vmx memory pass 6 pass
"""


class File(unittest.TestCase):
    def test_parse_and_format_round_trip(self):
        exp = expect.parse(SAMPLE)
        self.assertEqual(exp.header, ["# header", "# more"])
        self.assertEqual(len(exp.entries), 4)
        e = exp.get("qemu", "x2apic")
        self.assertEqual((e.bare, e.bare_count, e.mhv, e.mhv_count, e.reason),
                         ("pass", 33, "fail", 30, "two FAILs"))
        again = expect.parse(expect.format_file(exp))
        self.assertEqual([(x.key(), x.mhv_text()) for x in again.entries],
                         [(x.key(), x.mhv_text()) for x in exp.entries])

    def test_environment_labels_are_not_header(self):
        """A written file reads back with the header it had: the label
        before each environment's rows is not taken into it."""
        text = expect.format_file(expect.parse(SAMPLE))
        self.assertEqual(expect.parse(text).header, ["# header", "# more"])
        self.assertEqual(expect.format_file(expect.parse(text)), text)

    def test_bad_lines_name_the_line(self):
        for text, what in (("qemu a pass 1\n", ":1: not"),
                           ("qemu a pass 1 fail\n", "needs a reason"),
                           ("qemu a pass 1 pass: why\n", "pass takes no"),
                           ("kvm a pass 1 pass\n", "unknown environment"),
                           ("qemu a pass 1 pass\nqemu a pass 1 pass\n", "twice")):
            with self.assertRaises(expect.ExpectError) as cm:
                expect.parse(text, "f")
            self.assertIn(what, str(cm.exception))

    def test_gaps(self):
        exp = expect.parse(SAMPLE)
        self.assertIsNone(exp.get("qemu", "smptest").gap())
        self.assertEqual(exp.get("qemu", "x2apic").gap(), "open")
        self.assertEqual(exp.get("qemu", "svm").gap(), "accepted")

    def test_judge(self):
        exp = expect.parse(SAMPLE)
        smp, x2 = exp.get("qemu", "smptest"), exp.get("qemu", "x2apic")
        self.assertIsNone(smp.judge("pass", 1))
        self.assertIn("bare run has 1", smp.judge("pass", 0))
        self.assertIn("expected pass, got fail", smp.judge("fail", 5))
        self.assertIsNone(x2.judge("fail", 31))
        self.assertIn("at least 30", x2.judge("fail", 29))
        self.assertIn("now passes", x2.judge("pass", 33))

    def test_table_block(self):
        exp = expect.parse(SAMPLE)
        text = "a\n%s\nold\n%s\nb\n" % (expect.BEGIN, expect.END)
        new = expect.update_table(text, exp)
        self.assertTrue(new.startswith("a\n" + expect.BEGIN))
        self.assertTrue(new.endswith(expect.END + "\nb\n"))
        self.assertIn("| x2apic | pass 33 / fail 30 | — |", new)
        self.assertEqual(expect.update_table(new, exp), new)
        with self.assertRaises(expect.ExpectError):
            expect.update_table("no markers", exp)


LOG = """mhv: config: \\mhv.cfg, 100 bytes
mhv: guest vmexit.flat: start (svm, 128 MiB, 1 vCPU on cpu 0, cmdline "vmexit.flat cpuid")
[vmexit.flat] cpuid 80455
[vmexit.flat] PASS: one
mhv: guest vmexit.flat: exit code 0 (guest wrote 0 to the exit port 0xf4), 1162 ms
mhv: guest \\big.flat refused: no 128 MiB of contiguous host memory for its RAM
mhv: guest vmexit.flat: start (svm, 128 MiB, 1 vCPU on cpu 0, cmdline "vmexit.flat vmcall")
[vmexit.flat] FAIL: two
mhv: guest vmexit.flat: stopped: time-limit: still running after its time limit of 90000 ms \
(rip 0x4), 90021 ms
mhv: guest tsc_adjust.flat: start (svm, 128 MiB, 1 vCPU on cpu 0, cmdline "tsc_adjust.flat")
[tsc_adjust.flat] SKIP: no TSC_ADJUST
mhv: guest tsc_adjust.flat: exit code 38 (guest wrote 38 to the exit port 0xf4), 20 ms
mhv: guest x.flat: start (svm, 128 MiB, 1 vCPU on cpu 0, cmdline "x.flat")
[x.flat] PASS: a
""".replace("\\\n", "")


def test(name, file):
    t = run.Test(name)
    t.file = file
    return t


class Log(unittest.TestCase):
    def test_split_and_judge_a_boot_of_several_guests(self):
        lines = LOG.split("\n")
        parts = run.split_guests(lines, 6)
        self.assertEqual([len(p) for p in parts], [4, 1, 3, 3, 3, 0])
        tests = [test("vmexit_cpuid", "vmexit.flat"), test("big", "big.flat"),
                 test("vmexit_vmcall", "vmexit.flat"), test("tsc_adjust", "tsc_adjust.flat"),
                 test("x", "x.flat")]
        r = [run.judge_mhv(t, p, 90) for t, p in zip(tests, parts)]
        self.assertEqual((r[0].verdict, r[0].counts.get("PASS")), ("pass", 1))
        self.assertEqual((r[1].verdict, r[1].why), ("fail", "refused"))
        self.assertEqual((r[2].verdict, r[2].why, r[2].first), ("fail", "timeout 90s", "FAIL: two"))
        self.assertEqual((r[3].verdict, r[3].first), ("skip", "SKIP: no TSC_ADJUST"))
        self.assertIsNone(r[4])  # the boot ended before it did

    def test_batches(self):
        tests = [test("t%d" % i, "f") for i in range(11)]
        tests[1].smp = 2
        b = run.batches(tests, 2, 0)
        self.assertEqual([len(x) for x in b], [6, 5])
        self.assertIs(b[1][-1], tests[1])  # the two-CPU test with the others' last
        self.assertEqual([len(x) for x in run.batches(tests * 2, 2, 0)], [8, 7, 7])
        self.assertEqual([len(x) for x in run.batches(tests, 2, 1)], [1] * 11)

    def test_emulator_death_before_mhv_is_retried_only_then(self):
        self.assertTrue(run.emulator_died_early(139, ["Segmentation fault"]))
        self.assertTrue(run.emulator_died_early(134, []))
        self.assertFalse(run.emulator_died_early(139, ["mhv: config: \\mhv.cfg"]))
        self.assertFalse(run.emulator_died_early(124, []))  # a timeout is a verdict
        self.assertFalse(run.emulator_died_early(137, []))  # so is timeout's KILL
        self.assertFalse(run.emulator_died_early(1, []))


ZEN5 = """bochs-zen5 pmu:off pass 99 fail 5: kvm: off
bochs-zen5 pmu:sw pass 99 pass
bochs-zen5 pmu:hw pass 99 fail 36: cpu: VNMI
"""


class Modes(unittest.TestCase):
    def test_each_test_once_per_mode(self):
        ts = run.with_modes([test("smptest", "smptest.flat"), test("pmu", "pmu.flat")],
                            "bochs-zen5")
        modes = expect.ENV_MODES["bochs-zen5"]
        self.assertEqual([t.name for t in ts], ["pmu:%s" % m for m in modes])
        self.assertEqual([t.pmu for t in ts], list(modes))
        self.assertEqual({t.base for t in ts}, {"pmu"})
        self.assertEqual(len({run.boot_key(t, "bochs") for t in ts}), len(modes))
        self.assertEqual(len(run.select(ts, "pmu")), len(modes))
        self.assertEqual([t.name for t in run.select(ts, "pmu:sw")], ["pmu:sw"])
        plain = [test("pmu", "pmu.flat")]
        self.assertIs(run.with_modes(plain, "bochs-svm"), plain)
        self.assertIsNone(plain[0].pmu)

    def test_mode_rows_gaps_and_table(self):
        exp = expect.parse(SAMPLE + ZEN5)
        self.assertEqual(exp.get("bochs-zen5", "pmu:off").gap(), "accepted")
        self.assertEqual(exp.get("bochs-zen5", "pmu:hw").gap(), "accepted")
        again = expect.parse(expect.format_file(exp))
        self.assertEqual([x.key() for x in again.entries], [x.key() for x in exp.entries])
        block = expect.table_block(exp)
        self.assertIn("| pmu | pass 99 | fail 5 | **pass** | — | — | fail 36 |", block)
        self.assertNotIn("| pmu:sw |", block)  # not a row of the main table
        self.assertIn("| x2apic | pass 33 / fail 30 | — |", block)


if __name__ == "__main__":
    unittest.main()
