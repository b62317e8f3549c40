# SPDX-License-Identifier: MIT
"""mhv-report kvm: mhv's log and the KVM side's (scripts/kvm/mhv-kvm) in one
table.  Run with the other report tests (tests/report/run.sh)."""
import os
import subprocess
import sys
import unittest

from common import SCRIPT, TempLogs, record, run

KVM_FINISHED = "mhv-kvm: finished: status pass"
LABELS = {"hypervisor": "kvm", "kernel": "6.1.0-57-cloud-amd64", "kvm_module": "kvm_amd",
          "mitigations": "off", "cpu": "AMD Zen 5", "clock": "tsc",
          "kvm_params": {"enable_pmu": "Y", "nested": "1"}}


def kvm(test, median, config="kvm-mitigations-off", **extra):
    return record(test, median, config=config, env="bochs", **LABELS, **extra)


class KvmTableTest(TempLogs):
    def logs(self, mhv_lines, kvm_lines):
        mhv = self.write("mhv.log", mhv_lines)
        path = os.path.join(self.tmp.name, "kvm.log")
        with open(path, "w") as f:
            f.write("\n".join(["mhv-kvm: kernel 6.1"] + kvm_lines + [KVM_FINISHED]) + "\n")
        return mhv, path

    def rows(self, out):
        """{test: cells} of the first markdown table."""
        rows = {}
        for line in out.splitlines():
            if line.startswith("| ") and not line.startswith("| test") and "---" not in line:
                cells = [c.strip() for c in line.strip("|").split("|")]
                rows.setdefault(cells[0], cells[1:])
            if rows and not line.startswith("|"):
                break
        return rows

    def test_ratio_per_test_against_the_same_mitigations(self):
        # mhv's default column is mitigations off when it has a mitigations-auto one
        mhv, kv = self.logs(
            [record("cpuid", 80, env="bochs"), record("cpuid", 95, env="bochs",
                                                       config="mitigations-auto"),
             record("vmcall", 70, env="bochs"), record("inl_from_hv", 90, env="bochs")],
            [kvm("cpuid", 1300), kvm("vmcall", 1400),
             kvm("inl_from_hv", 3300, not_comparable="a round trip to user space")])
        st, out, err = run("kvm", mhv, kv)
        self.assertEqual(st, 0, err)
        rows = self.rows(out)
        self.assertEqual(rows["cpuid"], ["80", "95", "1300", "16.2x"])
        self.assertEqual(rows["vmcall"], ["70", "-", "1400", "20.0x"])
        # not comparable: measured, starred, no ratio, the reason below
        self.assertEqual(rows["inl_from_hv"], ["90", "-", "3300*", "-"])
        self.assertIn("\\* inl_from_hv: not comparable: a round trip to user space", out)
        self.assertIn("| test | mhv default | mhv mitigations-auto | KVM kvm-mitigations-off "
                      "| kvm-mitigations-off / mhv default |", out)
        self.assertIn("KVM: kernel 6.1.0-57-cloud-amd64, kvm_amd (enable_pmu=Y, nested=1)", out)

    def test_auto_mitigations_pair_with_mhvs_auto_column(self):
        mhv, kv = self.logs([record("cpuid", 80, env="bochs"),
                             record("cpuid", 100, env="bochs", config="mitigations-auto")],
                            [kvm("cpuid", 1500, config="kvm")])
        st, out, err = run("kvm", mhv, kv)
        self.assertEqual(st, 0, err)
        self.assertEqual(self.rows(out)["cpuid"], ["80", "100", "1500", "15.0x"])

    def test_seeds_layout_where_both_sides_have_a_pmu(self):
        mhv, kv = self.logs([record("cpuid", 80, env="bochs", config="pmu-sw"),
                             record("cpuid", 82, env="bochs", config="pmu-hw")],
                            [kvm("cpuid", 1300, config="kvm")])
        st, out, err = run("kvm", mhv, kv)
        self.assertEqual(st, 0, err)
        self.assertIn("| exit | mhv sw PMU | mhv hw PMU | KVM sw PMU |", out)
        self.assertIn("| cpuid | 80 | 82 | 1300 |", out)

    def test_skipped_rows_stay(self):
        mhv, kv = self.logs([record("ipi", 500, env="bochs")],
                            ['MHV-JSON {"suite":"vmexit","test":"ipi","config":"kvm",'
                             '"env":"bochs","backend":"svm","skipped":"needs two vCPUs",'
                             '"hypervisor":"kvm"}'])
        st, out, err = run("kvm", mhv, kv)
        self.assertEqual(st, 0, err)
        self.assertEqual(self.rows(out)["ipi"], ["500", "skipped", "-"])

    def test_one_side_missing_is_one_clear_line(self):
        mhv, kv = self.logs([record("cpuid", 80)], [kvm("cpuid", 1300)])
        st, out, err = run("kvm", mhv)
        self.assertEqual((st, out), (2, ""))
        self.assertIn("no KVM rows", err)
        st, out, err = run("kvm", kv)
        self.assertEqual((st, out), (2, ""))
        self.assertIn("no mhv rows", err)

    def test_kvm_log_without_its_finished_line_is_truncated(self):
        path = os.path.join(self.tmp.name, "cut.log")
        with open(path, "w") as f:
            f.write(kvm("cpuid", 1300) + "\n")
        st, out, err = run("kvm", path)
        self.assertEqual(st, 2)
        self.assertIn("log is truncated", err)

    def test_chart(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("no python3-matplotlib")
        mhv, kv = self.logs([record("cpuid", 80, env="bochs"), record("vmcall", 70, env="bochs")],
                            [kvm("cpuid", 1300), kvm("vmcall", 1400)])
        png = os.path.join(self.tmp.name, "side.png")
        # the interpreter that found matplotlib (a pyenv python3 on PATH may not)
        p = subprocess.run([sys.executable, SCRIPT, "kvm", mhv, kv, "--plot", png],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"wrote {png}", p.stdout)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
