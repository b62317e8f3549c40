# SPDX-License-Identifier: MIT
"""mhv-report input handling: stdin, truncated logs, a real QEMU log."""
import csv
import io
import os
import re
import unittest

from common import FINISHED, TempLogs, fixture, record, run

class StdinTest(TempLogs):
    def test_csv_reads_stdin_without_log_or_with_dash(self):
        data = open(fixture("bochs.log"), "rb").read()
        status, out, err = run("csv", stdin=data)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(run("csv", "-", stdin=data)[1], out)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual([r["test"] for r in rows], ["loop_overhead", "null", "cpuid", "vmcall"])
        self.assertEqual(rows[0]["log"], "<stdin>")

    def test_markdown_and_columns_from_stdin(self):
        data = open(fixture("pmu.log"), "rb").read()
        _, want, _ = run("markdown", fixture("pmu.log"))
        self.assertEqual(run("markdown", stdin=data), (0, want, ""))
        self.assertEqual(run("markdown", "-", stdin=data), (0, want, ""))
        status, out, _ = run("columns", "--base", "pmu-sw", "--new", "pmu-hw", stdin=data)
        self.assertEqual(self.table(out)["vmexit/null"], ["31000", "24800", "+20.0%"])

    def test_compare_stdin_with_file(self):
        data = open(fixture("qemu-tcg-new.log"), "rb").read()
        status, out, _ = run("compare", fixture("qemu-tcg.log"), "-", stdin=data)
        self.assertEqual(out.splitlines()[1].split(), ["test", "qemu-tcg", "stdin", "gain"])
        self.assertEqual(self.table(out)["cpuid"], ["25451", "14100", "+44.6%"])

    def test_errors_name_stdin(self):
        self.assertEqual(run("csv", stdin=b""),
                         (2, "", "mhv-report: <stdin>:0: no MHV-JSON lines found\n"))
        status, _, err = run("markdown", stdin=record("x").encode() + b"\n")
        self.assertEqual((status, err.split(": log is")[0]), (2, "mhv-report: <stdin>:1"))


class TruncationTest(TempLogs):
    NO_FINISH = "log is truncated (no 'mhv: finished:' line after the last MHV-JSON line)"
    CUT = "log is truncated (last MHV-JSON line is cut off)"

    def cut_log(self, newline="\n"):
        """Two records, the second cut off mid-line; no finished line."""
        return self.write("cut.log", ["mhv: suite vmexit", record("null", 5),
                                      record("cpuid", 7)[:60]], newline, complete=False)

    def test_no_finished_line(self):
        path = self.write("t.log", ["mhv: suite vmexit", record("null"), "mhv: summary: 1 passed",
                                    ""], complete=False)
        for cmd in (["csv", path], ["markdown", path], ["compare", path, fixture("bochs.log")],
                    ["columns", path, "--base", "default", "--new", "default"],
                    ["plot", path, "--out", os.path.join(self.tmp.name, "x.svg")]):
            with self.subTest(cmd=cmd[0]):
                self.assertEqual(run(*cmd), (2, "", f"mhv-report: {path}:3: {self.NO_FINISH}\n"))

    def test_finished_must_follow_the_last_record(self):
        path = self.write("t.log", [FINISHED, record("null")], complete=False)
        self.assertEqual(run("csv", path), (2, "", f"mhv-report: {path}:2: {self.NO_FINISH}\n"))

    def test_junk_after_finished_line_is_fine(self):
        path = self.write("t.log", [record("null"), FINISHED, "bochs: shutdown", ""],
                          complete=False)
        self.assertEqual(run("csv", path)[0], 0)

    def test_cut_off_last_line(self):
        for newline, name in (("\n", "newline"), ("\r\n", "crlf"), ("", "no newline")):
            with self.subTest(end=name):
                path = self.cut_log(newline or "\n")
                if not newline:
                    with open(path, "rb+") as f:
                        f.truncate(os.path.getsize(path) - 1)
                self.assertEqual(run("csv", path), (2, "", f"mhv-report: {path}:3: {self.CUT}\n"))

    def test_cut_off_real_log(self):
        with open(fixture("qemu-real.log"), "rb") as f:
            data = f.read()
        data = data[:data.rindex(b"MHV-JSON") + 50]
        status, out, err = run("markdown", stdin=data)
        lineno = data.count(b"\n") + 1
        self.assertEqual((status, out, err), (2, "", f"mhv-report: <stdin>:{lineno}: {self.CUT}\n"))

    def test_allow_truncated_warns_and_drops_the_cut_record(self):
        path = self.cut_log()
        status, out, err = run("csv", path, "--allow-truncated")
        self.assertEqual((status, err), (0, f"mhv-report: warning: {path}:3: {self.CUT}\n"))
        self.assertEqual([r["test"] for r in csv.DictReader(io.StringIO(out))], ["null"])

    def test_allow_truncated_without_finished_line(self):
        path = self.write("t.log", [record("null"), record("cpuid")], complete=False)
        status, out, err = run("markdown", "--allow-truncated", path)
        self.assertEqual((status, err), (0, f"mhv-report: warning: {path}:2: {self.NO_FINISH}\n"))
        self.assertIn("| cpuid | 100 |", out)
        status, out, err = run("compare", path, path, "--allow-truncated")
        self.assertEqual((status, err.count("warning")), (0, 2))

    def test_allow_truncated_with_nothing_left(self):
        path = self.write("t.log", [record("null")[:30]], complete=False)
        status, _, err = run("csv", "--allow-truncated", path)
        self.assertEqual(status, 2)
        self.assertEqual(err.splitlines(), [f"mhv-report: warning: {path}:1: {self.CUT}",
                                            f"mhv-report: {path}:0: no MHV-JSON lines found"])

    def test_complete_fixtures_are_not_truncated(self):
        for name in ("bochs.log", "pmu.log", "qemu-tcg.log", "qemu-tcg-new.log",
                     "qemu-real.log"):
            with self.subTest(log=name):
                self.assertEqual(run("csv", fixture(name))[::2], (0, ""))


class RealLogTest(unittest.TestCase):
    """A serial log captured from a real QEMU run of tests/emu/full.cfg."""

    def vmexit_table_names(self, text):
        """Test names in the human-readable vmexit table of the log."""
        names, inside = [], False
        for line in text.splitlines():
            if line.startswith("mhv: test ") and "median" in line:
                inside = True
            elif inside and re.match(r"mhv: \w+ +(\d|\(skipped)", line):
                names.append(line.split()[1])
            else:
                inside = False
        return names

    def test_csv_yields_every_vmexit_test(self):
        with open(fixture("qemu-real.log"), "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        table = self.vmexit_table_names(text)
        in_json = re.findall(r'"suite":"vmexit","test":"(\w+)"', text)
        self.assertGreater(len(table), 20)
        self.assertEqual(table, in_json)
        status, out, err = run("csv", fixture("qemu-real.log"))
        self.assertEqual((status, err), (0, ""))
        rows = [r for r in csv.DictReader(io.StringIO(out)) if r["suite"] == "vmexit"]
        self.assertEqual([r["test"] for r in rows], table)
        self.assertTrue(all(r["env"] == "qemu-tcg" for r in rows))
        self.assertEqual(sum(1 for r in rows if r["skipped"]), text.count("(skipped:"))


if __name__ == "__main__":
    unittest.main()
