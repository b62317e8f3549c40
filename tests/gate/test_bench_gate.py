# SPDX-License-Identifier: MIT
"""scripts/bench-gate.sh on made-up baselines and serial logs: add keeps
every line and puts each new test where write would; check names a test
missing from the baseline and the command that adds it."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GATE = os.path.join(HERE, "..", "..", "scripts", "bench-gate.sh")

HEADER = "# Exit-path baseline (made up)\n# case test median [classes]\n"


def row(test, median, config="default", classes=None):
    extra = ""
    if classes is not None:
        extra = ',"classes":{' + ",".join(f'"{k}":{v}' for k, v in classes.items()) + "}"
    return ('MHV-JSON {"suite":"vmexit","test":"%s","config":"%s","env":"bochs","backend":"svm",'
            '"unit":"tsc","iterations":500,"batches":10,"min":1,"median":%d,"p99":3,"mean":2,'
            '"stddev":0,"max":3%s}\n' % (test, config, median, extra))


class Gate(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def gate(self, *args):
        r = subprocess.run(["sh", GATE, *args], capture_output=True, text=True)
        return r.returncode, r.stdout, r.stderr

    def read(self, path):
        with open(path) as f:
            return f.read()

    def test_add_appends_new_tests_where_write_would(self):
        base = self.file("base.txt", HEADER +
                         "bochs-a null 59\nbochs-a cpuid 80 cpuid=1\nbochs-b null 70\n")
        # cpuid's median moved: add must not touch it; wbinvd is new after
        # cpuid, first_one new before null, pmu_x new in a configuration
        log = self.file("a.log", "noise\n" + row("first_one", 3) + row("null", 59) +
                        row("cpuid", 99, classes={"cpuid": 1, "wrmsr": 0}) +
                        row("wbinvd", 112, classes={"wbinvd": 1}) +
                        row("pmu_x", 7, config="sw-lazy") + row("null", 61))
        rc, out, err = self.gate("add", base, f"bochs-a={log}")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, f"bench-gate: bochs-a: added first_one wbinvd pmu_x@sw-lazy to {base}\n")
        self.assertEqual(self.read(base), HEADER +
                         "bochs-a first_one 3\nbochs-a null 59\nbochs-a cpuid 80 cpuid=1\n"
                         "bochs-a wbinvd 112 wbinvd=1\nbochs-a pmu_x@sw-lazy 7\nbochs-b null 70\n")
        # twice: nothing more
        rc, out, _ = self.gate("add", base, f"bochs-a={log}")
        self.assertEqual(out, f"bench-gate: bochs-a: nothing new for {base}\n")

    def test_add_a_new_case_goes_at_the_end(self):
        base = self.file("base.txt", HEADER + "bochs-a null 59\n")
        log = self.file("c.log", row("null", 40) + row("cpuid", 41))
        rc, out, _ = self.gate("add", base, f"bochs-c={log}")
        self.assertEqual(rc, 0)
        self.assertEqual(self.read(base), HEADER + "bochs-a null 59\nbochs-c null 40\nbochs-c cpuid 41\n")

    def test_add_without_measurements_fails_and_keeps_the_file(self):
        base = self.file("base.txt", HEADER + "bochs-a null 59\n")
        log = self.file("empty.log", "mhv: no benchmark ran\n")
        rc, out, _ = self.gate("add", base, f"bochs-a={log}")
        self.assertEqual(rc, 1)
        self.assertIn(f"FAIL gate/bochs-a: no measurements in {log}", out)
        self.assertEqual(self.read(base), HEADER + "bochs-a null 59\n")

    def test_check_names_a_missing_test_and_the_add_command(self):
        base = self.file("base.txt", HEADER + "bochs-a null 59\n")
        log = self.file("a.log", row("null", 59) + row("wbinvd", 112))
        rc, out, _ = self.gate("check", base, f"bochs-a={log}")
        self.assertIn("PASS gate/bochs-a/null (59 instructions, baseline 59)\n", out)
        self.assertIn(f"FAIL gate/bochs-a/wbinvd: 112 instructions, not in the baseline: "
                      f"run sh scripts/bench-gate.sh add {base} bochs-a={log}\n", out)
        # after the add it passes, and the old line is as it was
        self.gate("add", base, f"bochs-a={log}")
        rc, out, _ = self.gate("check", base, f"bochs-a={log}")
        self.assertNotIn("FAIL", out)
        self.assertEqual(self.read(base), HEADER + "bochs-a null 59\nbochs-a wbinvd 112\n")

    def test_bad_usage(self):
        self.assertEqual(self.gate("check")[0], 2)
        rc, _, err = self.gate("rewrite", "x", "a=b")
        self.assertEqual(rc, 2)
        self.assertIn("unknown mode 'rewrite'", err)
        rc, _, err = self.gate("add", os.path.join(self.dir, "none.txt"), "a=b")
        self.assertEqual(rc, 2)
        self.assertIn("no baseline", err)


if __name__ == "__main__":
    unittest.main()
