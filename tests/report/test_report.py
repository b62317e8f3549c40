# SPDX-License-Identifier: MIT
"""Tests of scripts/mhv-report: run from the repo root with
python3 -m unittest discover -s tests/report -v"""
import csv
import io
import os
import re
import unittest
import xml.etree.ElementTree as ET
from fractions import Fraction

from common import FINISHED, SVG, TempLogs, fixture, record, report, run

class ParsingTest(TempLogs):
    def test_fixture_with_junk_crlf_and_invalid_utf8(self):
        found = report.load_log(fixture("qemu-tcg.log"))
        self.assertEqual([m["test"] for m in found], ["loop_overhead", "null", "cpuid", "vmcall"])
        self.assertEqual(found[2]["median"], 25451)
        self.assertEqual(found[2]["line"], 20)
        self.assertEqual(found[2]["env"], "qemu-tcg")

    def test_prefix_after_junk_lines_and_cr(self):
        text = ("junk\r\n[vm0] guest says hi \x00\r\n" + record("cpuid", 7) +
                "\r\r\nmhv: PASS smoke/x\r\n" + FINISHED)
        found = report.parse_log("x.log", text)
        self.assertEqual(len(found), 1)
        self.assertEqual((found[0]["test"], found[0]["median"], found[0]["line"]), ("cpuid", 7, 3))

    def test_guest_lines_cannot_forge_records(self):
        """A guest's console line starts "[its name] " (after "[cpuN] " when
        CPUs run at once), and guest text inside mhv's own lines cannot
        start a line: a measurement is only a line that starts MHV-JSON."""
        forged = record("null", 1)
        text = ("[forged_results] " + forged + "\r\n"
                "[cpu1] [forged_results] " + forged + "\r\n"
                "mhv: PASS hostile/f?mhv: PASS forged?[2K: ?" + forged + "\r\n"
                + record("cpuid", 7) + "\r\n" + FINISHED)
        found = report.parse_log("x.log", text)
        self.assertEqual([(m["test"], m["median"], m["line"]) for m in found], [("cpuid", 7, 4)])

    def test_guest_finished_line_does_not_complete_a_log(self):
        text = record("cpuid", 7) + "\r\n[forged_results] " + FINISHED + "\r\n"
        with self.assertRaisesRegex(report.ReportError, "log is truncated"):
            report.parse_log("x.log", text)

    def test_skipped_record(self):
        found = report.load_log(fixture("bochs.log"))
        self.assertEqual(found[-1]["skipped"], "no hypercall page")
        self.assertNotIn("median", found[-1])

    def test_binary_junk_lines_are_ignored(self):
        path = self.write("b.log", [b"\xff\xfe\x80 MHV\x00", record("null", 5).encode(), b"\x9b"],
                          newline=b"\n")
        self.assertEqual([m["median"] for m in report.load_log(path)], [5])


class CsvTest(TempLogs):
    def test_rows_from_two_logs(self):
        status, out, err = run("csv", fixture("qemu-tcg.log"), fixture("bochs.log"))
        self.assertEqual((status, err), (0, ""))
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(tuple(rows[0]), report.CSV_COLUMNS)
        self.assertEqual(rows[0], "log,suite,test,config,env,backend,unit,iterations,batches,"
                                  "min,median,p99,mean,stddev,max,skipped".split(","))
        self.assertEqual(len(rows), 1 + 4 + 4)
        cpuid = dict(zip(rows[0], rows[3]))
        self.assertEqual(cpuid["log"], fixture("qemu-tcg.log"))
        self.assertEqual((cpuid["test"], cpuid["median"], cpuid["p99"]), ("cpuid", "25451", "27263"))
        self.assertEqual(cpuid["skipped"], "")

    def test_skipped_row_has_empty_numbers(self):
        status, out, _ = run("csv", fixture("bochs.log"))
        rows = list(csv.DictReader(io.StringIO(out)))
        vmcall = rows[-1]
        self.assertEqual(vmcall["skipped"], "no hypercall page")
        self.assertEqual([vmcall[k] for k in ("unit", "median", "max")], ["", "", ""])


class MarkdownTest(TempLogs):
    def test_table_per_suite_in_first_seen_order(self):
        status, out, err = run("markdown", fixture("pmu.log"))
        self.assertEqual((status, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "### vmexit: median, env qemu-tcg, backend svm, unit tsc")
        self.assertEqual(lines[2], "| test | pmu-sw | pmu-hw |")
        self.assertEqual(lines[4], "| loop_overhead | 845 | 850 |")
        self.assertEqual(lines[5], "| null | 31000 | 24800 |")
        self.assertEqual(lines[6], "| cpuid | 32000 | skipped (no PMU in this CPU model) |")
        self.assertIn("### pmu: median, env qemu-tcg, backend svm, unit tsc", lines)
        self.assertEqual(lines[-1], "| wrmsr_pmc | 27000 |")

    def test_missing_cell_and_header(self):
        path = self.write("m.log", [record("b", 2, config="y"), record("a", 1, config="x")])
        _, out, _ = run("markdown", path)
        self.assertIn("| test | y | x |", out)
        self.assertIn("| b | 2 |  |", out)
        self.assertIn("| a |  | 1 |", out)


class BareTest(TempLogs):
    """`mhv-report LOG...` without a command: the markdown tables."""

    def test_one_log_is_the_markdown_table(self):
        expected = run("markdown", fixture("pmu.log"))
        self.assertEqual(expected[0], 0)
        self.assertEqual(run(fixture("pmu.log")), expected)
        self.assertEqual(run("--allow-truncated", fixture("pmu.log")), expected)
        with open(fixture("pmu.log"), "rb") as f:
            self.assertEqual(run("-", stdin=f.read()), expected)

    def test_several_logs_each_under_its_name(self):
        first, second = fixture("qemu-tcg.log"), fixture("bochs.log")
        status, out, err = run(first, second)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, f"## {first}\n\n" + run("markdown", first)[1] +
                         f"\n## {second}\n\n" + run("markdown", second)[1])
        self.assertEqual(run("markdown", first, second)[1], out)

    def test_bad_log_prints_nothing(self):
        status, out, err = run(fixture("qemu-tcg.log"), fixture("no-such.log"))
        self.assertEqual((status, out), (2, ""))
        self.assertRegex(err, "^mhv-report: .*no-such.log:0: cannot read")

    def test_usage_lists_the_commands(self):
        status, out, err = run()
        self.assertEqual((status, out), (2, ""))
        status, help_text, _ = run("--help")
        self.assertEqual(status, 0)
        self.assertEqual(err, help_text)
        self.assertIn("usage: mhv-report LOG [LOG...]", help_text)
        for command in ("markdown", "csv", "compare", "columns", "plot"):
            self.assertRegex(help_text, f"\n +{command} ")


class GainTest(unittest.TestCase):
    def test_sign_and_rounding(self):
        cases = [((25451, 14100), "+44.6%"), ((100, 150), "-50.0%"), ((3, 2), "+33.3%"),
                 ((2000, 1999), "+0.1%"), ((2000, 2001), "-0.1%"), ((1000, 1000), "+0.0%"),
                 ((100000, 100001), "+0.0%"), ((3, 4), "-33.3%"), ((2000, 1997), "+0.2%")]
        for (base, new), want in cases:
            with self.subTest(base=base, new=new):
                self.assertEqual(report.format_gain(report.gain_pct(base, new)), want)

    def test_zero_base(self):
        self.assertIsNone(report.gain_pct(0, 5))
        self.assertEqual(report.format_gain(None), "n/a")

    def test_gain_is_exact(self):
        self.assertEqual(report.gain_pct(3, 2), Fraction(100, 3))


class CompareTest(TempLogs):
    def compare(self, *extra):
        return run("compare", fixture("qemu-tcg.log"), fixture("qemu-tcg-new.log"), *extra)

    def test_table(self):
        status, out, err = self.compare()
        self.assertEqual((status, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "median: env qemu-tcg, backend svm, unit tsc")
        self.assertEqual(lines[1].split(), ["test", "qemu-tcg", "qemu-tcg-new", "gain"])
        rows = self.table(out)
        self.assertEqual(rows["cpuid"], ["25451", "14100", "+44.6%"])
        self.assertEqual(rows["null"], ["24410", "25190", "-3.2%"])
        self.assertEqual(rows["loop_overhead"], ["845", "840", "+0.6%"])

    def test_only_in_one_log(self):
        _, out, _ = self.compare()
        self.assertIn("vmcall: only in base", out.splitlines())
        self.assertIn("mov_from_cr8: only in new", out.splitlines())
        self.assertNotIn("vmcall", self.table(out))

    def test_threshold_exit_status(self):
        status, out, err = self.compare("--threshold", "3")
        self.assertEqual(status, 1)
        self.assertIn("cpuid", out)
        self.assertEqual(err, "mhv-report: regression: null -3.2% (threshold 3%)\n")
        self.assertEqual(self.compare("--threshold", "3.3")[0], 0)
        self.assertEqual(self.compare("--threshold", "5")[0], 0)
        self.assertEqual(self.compare()[0], 0)

    def test_threshold_is_strictly_more_than(self):
        base = self.write("a.log", [record("null", 100)])
        new = self.write("b.log", [record("null", 110)])
        self.assertEqual(run("compare", base, new, "--threshold", "10")[0], 0)
        self.assertEqual(run("compare", base, new, "--threshold", "9.99")[0], 1)
        self.assertEqual(run("compare", new, base, "--threshold", "0")[0], 0)

    def test_bad_threshold_is_usage_error(self):
        self.assertEqual(self.compare("--threshold", "-1")[0], 2)
        self.assertEqual(self.compare("--threshold", "lots")[0], 2)

    def test_stat_min_and_skipped(self):
        status, out, _ = run("compare", fixture("qemu-tcg.log"), fixture("bochs.log"),
                             "--stat", "min")
        self.assertEqual(status, 0)
        self.assertTrue(out.startswith("min: base env qemu-tcg, backend svm, unit tsc; "
                                       "new env bochs, backend svm, unit tsc\n"))
        rows = self.table(out)
        self.assertEqual(rows["cpuid"], ["24983", "256", "+99.0%"])
        self.assertEqual(rows["vmcall"], ["24100", "skipped", "n/a"])

    def test_matched_on_config_and_same_names(self):
        os.mkdir(os.path.join(self.tmp.name, "new"))
        base = self.write("run.log", [record("cpuid", 200, config="a"),
                                      record("cpuid", 100, config="b")])
        new = self.write("new/run.log", [record("cpuid", 150, config="a")])
        status, out, _ = run("compare", base, new)
        self.assertEqual(out.splitlines()[1].split(), ["test", "base", "new", "gain"])
        self.assertEqual(self.table(out)["cpuid"], ["[a]", "200", "150", "+25.0%"])
        self.assertIn("cpuid [b]: only in base", out)

    def test_last_duplicate_wins(self):
        base = self.write("a.log", [record("null", 100), record("null", 200)])
        new = self.write("b.log", [record("null", 100)])
        self.assertEqual(self.table(run("compare", base, new)[1])["null"][-1], "+50.0%")


class ColumnsTest(TempLogs):
    def test_two_configs_of_one_log(self):
        status, out, err = run("columns", fixture("pmu.log"), "--base", "pmu-sw", "--new", "pmu-hw")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[1].split(), ["test", "pmu-sw", "pmu-hw", "gain"])
        rows = self.table(out)
        self.assertEqual(rows["vmexit/null"], ["31000", "24800", "+20.0%"])
        self.assertEqual(rows["vmexit/loop_overhead"], ["845", "850", "-0.6%"])
        self.assertEqual(rows["vmexit/cpuid"], ["32000", "skipped", "n/a"])
        self.assertIn("pmu/wrmsr_pmc: only in base", out)

    def test_threshold_and_stat(self):
        args = ("columns", fixture("pmu.log"), "--base", "pmu-hw", "--new", "pmu-sw")
        self.assertEqual(run(*args, "--threshold", "20")[0], 1)
        self.assertEqual(run(*args, "--threshold", "30")[0], 0)
        _, out, _ = run(*args, "--stat", "mean")
        self.assertEqual(self.table(out)["vmexit/null"], ["24900", "31200", "-25.3%"])


class ErrorTest(TempLogs):
    def assertError(self, args, where, what):
        """Exit status 2 and exactly one line: mhv-report: FILE:LINE: ..."""
        status, out, err = run(*args)
        self.assertEqual(status, 2)
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertRegex(err, "^mhv-report: " + re.escape(where) + ": " + what)

    def test_missing_file(self):
        path = fixture("no-such.log")
        for cmd in (["csv", fixture("bochs.log"), path], ["markdown", path],
                    ["compare", path, fixture("bochs.log")], ["plot", path, "--out", "x.svg"],
                    ["columns", path, "--base", "a", "--new", "b"]):
            with self.subTest(cmd=cmd[0]):
                self.assertError(cmd, path + ":0", "cannot read: No such file")

    def test_no_measurements(self):
        path = fixture("no-json.log")
        for cmd in (["csv", path], ["markdown", path], ["compare", fixture("bochs.log"), path],
                    ["compare", path, fixture("bochs.log")], ["plot", path, "--out", "x.svg"]):
            with self.subTest(cmd=cmd):
                self.assertError(cmd, path + ":0", "no MHV-JSON lines found")

    def test_empty_file(self):
        path = self.write("empty.log", [], newline="", complete=False)
        self.assertError(["csv", path], path + ":0", "no MHV-JSON lines found")

    def test_malformed_json(self):
        path = fixture("malformed.log")
        self.assertError(["csv", path], path + ":3", "malformed MHV-JSON: Expecting ','")
        self.assertError(["compare", fixture("bochs.log"), path], path + ":3", "malformed")

    def test_trailing_garbage_and_not_object(self):
        path = self.write("t.log", ["x", record("null") + " junk", "[1]"])
        self.assertError(["csv", path], path + ":2", "malformed MHV-JSON: Extra data")
        path = self.write("u.log", ["MHV-JSON [1, 2]"])
        self.assertError(["markdown", path], path + ":1", "malformed MHV-JSON: not an object")

    def test_missing_or_bad_fields(self):
        path = fixture("missing-field.log")
        self.assertError(["csv", path], path + ":3", "MHV-JSON record lacks .*'median'")
        path = self.write("f.log", [record("null", min="7")])
        self.assertError(["csv", path], path + ":1", "MHV-JSON record lacks .*'min'")
        path = self.write("g.log", ['MHV-JSON {"suite":"vmexit","test":"x","skipped":"y"}'])
        self.assertError(["csv", path], path + ":1", "MHV-JSON record lacks .*'config'")

    def test_unknown_config_for_columns(self):
        path = fixture("pmu.log")
        self.assertError(["columns", path, "--base", "pmu-sw", "--new", "nope"], path + ":0",
                         "no measurements with config 'nope'")


class PlotTest(TempLogs):
    def plot(self, log):
        out = os.path.join(self.tmp.name, "chart.svg")
        status, stdout, err = run("plot", log, "--out", out)
        self.assertEqual((status, err), (0, ""))
        return ET.parse(out).getroot()

    def test_well_formed_svg_with_bars_and_whiskers(self):
        root = self.plot(fixture("bochs.log"))
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(len(root.findall(SVG + "rect")), 3)
        self.assertEqual(len(root.findall(SVG + "line")), 3 * 3)
        texts = [t.text for t in root.iter(SVG + "text")]
        self.assertIn("vmexit/cpuid", texts)
        self.assertIn("256", texts)
        self.assertIn("skipped: no hypercall page", texts)

    def test_bar_widths_follow_medians(self):
        root = self.plot(fixture("qemu-tcg.log"))
        widths = [float(r.get("width")) for r in root.findall(SVG + "rect")]
        self.assertEqual(len(widths), 4)
        self.assertLess(widths[0], widths[1])
        self.assertLess(widths[1], widths[2])

    def test_markup_in_names_is_escaped(self):
        path = self.write("x.log", [record("a<b>&c", 5, config="p&q"), record("d", 6)])
        texts = [t.text for t in self.plot(path).iter(SVG + "text")]
        self.assertIn("vmexit/a<b>&c [p&q]", texts)


if __name__ == "__main__":
    unittest.main()
