# SPDX-License-Identifier: MIT
"""Unit tests of kernel_log.py (python3 -m unittest discover -s tests/linux-bare)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_log  # noqa: E402
from guest_log_fixture import mhv_log, run_start  # noqa: E402

# lines of the forms Linux 6.1 prints (kernel/panic.c, arch/x86/kernel/nmi.c,
# kernel/events/core.c, arch/x86/mm/extable.c)
WARN_A = "WARNING: CPU: 0 PID: 187 at arch/x86/events/core.c:1543 x86_pmu_start+0x8e/0xa0"
WARN_B = "WARNING: CPU: 0 PID: 92 at arch/x86/events/core.c:1543 x86_pmu_start+0x8e/0xa0"
NMI = "Uhhuh. NMI received for unknown reason 2d on CPU 0."
SLOW = ("perf: interrupt took too long (2530 > 2500), lowering "
        "kernel.perf_event_max_sample_rate to 79000")
NMI_SLOW = "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 3.112 msecs"
MSR = "unchecked MSR access error: WRMSR to 0xc0010200 (tried to write 0x0000000000430076) at rIP: 0xffffffff8100 (x)"


def run_lines(name, klog, count=None):
    lines = run_start(name)
    lines += ["mhv-linux: klog %s" % t for t in klog]
    if count is not False:
        n = len(klog) if count is None else count
        lines.append("mhv-linux: klog-lines %d of %d" % (n, n))
    return lines


def judge(text, reference=()):
    return kernel_log.check(kernel_log.parse(text), list(reference), "REF")


class ReduceTest(unittest.TestCase):
    def test_warning_is_its_site(self):
        self.assertEqual(kernel_log.reduce(WARN_A),
                         "WARNING: at arch/x86/events/core.c:1543 x86_pmu_start")
        self.assertEqual(kernel_log.reduce(WARN_A), kernel_log.reduce(WARN_B))

    def test_msr_error_keeps_msr_and_value(self):
        self.assertEqual(kernel_log.reduce(MSR), "unchecked MSR access error: WRMSR to 0xc0010200 "
                         "(tried to write 0x0000000000430076)")

    def test_numbers_of_other_lines(self):
        self.assertEqual(kernel_log.reduce(NMI), "Uhhuh. NMI received for unknown reason # on CPU #.")


class CheckTest(unittest.TestCase):
    def test_clean_runs_pass(self):
        lines, fails = judge(mhv_log(run_lines("sw", []), run_lines("hw", [])))
        self.assertEqual(fails, [])
        self.assertIn("linux-klog: run sw: 0 complaints; timing: perf interrupt took too long 0, "
                      "NMI handler took too long 0", lines)

    def test_new_warning_fails(self):
        _, fails = judge(mhv_log(run_lines("sw", [WARN_A])))
        self.assertEqual(len(fails), 1)
        self.assertIn("x86_pmu_start", fails[0])

    def test_warning_of_bare_passes_other_pid(self):
        ref = kernel_log.read_reference("# bare\nmhv-linux: klog %s\n" % WARN_B)
        _, fails = judge(mhv_log(run_lines("sw", [WARN_A])), ref)
        self.assertEqual(fails, [])

    def test_unknown_nmi_fails(self):
        _, fails = judge(mhv_log(run_lines("sw-lazy", [NMI])))
        self.assertEqual(len(fails), 1)

    def test_timing_lines_are_not_judged(self):
        lines, fails = judge(mhv_log(run_lines("sw", [SLOW, NMI_SLOW])))
        self.assertEqual(fails, [])
        self.assertIn("perf interrupt took too long 1, NMI handler took too long 1", lines[0])

    def test_timing_counts(self):
        timing = "mhv-linux: klog-timing perf interrupt took too long 7, NMI handler took too long 2"
        lines, fails = judge(mhv_log(run_lines("hw", []) + [timing]))
        self.assertEqual(fails, [])
        self.assertIn("perf interrupt took too long 7, NMI handler took too long 2", lines[0])

    def test_missing_list_fails(self):
        _, fails = judge(mhv_log(run_lines("sw", [], count=False)))
        self.assertIn("no \"mhv-linux: klog-lines\"", fails[0])

    def test_lines_lost_fail(self):
        _, fails = judge(mhv_log(run_lines("sw", [WARN_A], count=2)))
        self.assertTrue(any("printed 2" in f for f in fails))

    def test_no_run_fails(self):
        _, fails = judge("mhv: nothing\n")
        self.assertEqual(fails, ["no run of /init in the log"])

    def test_fuzzer_status(self):
        seed = "mhv-linux: perf-fuzz seed 0x0000000000000041 (given; ...), 15 s"
        ok = run_lines("sw", []) + [seed, "mhv-linux: perf-fuzz status 0"]
        _, fails = judge(mhv_log(ok))
        self.assertEqual(fails, [])
        _, fails = judge(mhv_log(run_lines("sw", []) + [seed, "mhv-linux: perf-fuzz status 3"]))
        self.assertEqual(fails, ["run sw: the perf_event fuzzer (seed 0x0000000000000041) "
                                 "ended with status 3"])
        _, fails = judge(mhv_log(run_lines("hw", []) + [seed]))
        self.assertIn("no status", fails[0])

    def test_reference_line_with_hash(self):
        oops = "Oops: 0000 [#1] PREEMPT SMP NOPTI"
        ref = kernel_log.read_reference("mhv-linux: klog %s\n%s  # bare text\n" % (oops, NMI))
        self.assertEqual(ref, [kernel_log.reduce(oops), kernel_log.reduce(NMI)])

    def test_reference_not_seen_is_a_note(self):
        lines, fails = judge(mhv_log(run_lines("sw", [])), [kernel_log.reduce(WARN_B)])
        self.assertEqual(fails, [])
        self.assertTrue(any("no run did" in line for line in lines))


if __name__ == "__main__":
    unittest.main()
