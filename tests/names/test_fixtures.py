# SPDX-License-Identifier: MIT
"""scripts/check-names.py on the trees in tests/names/fixtures/: each is a
function defined in two files in a shape that the line regex the check
used before universal-ctags (REGEX_BEFORE below, kept only to show it)
passed.  The check must name the function and both files; the old regex
must find nothing, or the fixture no longer shows a shape it missed."""
import importlib.util
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
spec = importlib.util.spec_from_file_location(
    "check_names", os.path.join(HERE, "..", "..", "scripts", "check-names.py"))
cn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cn)

# fixture: the finding the check must print
WANT = {
    "copy-from-guest": "copy_from_guest: defined in hv/core/hypercall.c hv/core/vcpu.c",
    "return-type-above": "decode_exit: defined in hv/svm/exit.c hv/vmx/exit.c",
    "static-one-line": "msr_read: defined in hv/arch/msr.h hv/pmu/counters.c",
    "long-params": "port_write: defined in hv/platform/port.c hv/vdev/port.c",
    "enum-return": "next_state: defined in hv/core/state.c hv/lab/state.c",
}

# The check's function finder up to issue 42, verbatim: a definition
# found by the shape of its first line.
ATTRS = re.compile(r"__attribute__\(\(.*?\)\)\s*|\b(__noreturn|__always_inline|__printf\(\d+,\s*\d+\))\s*")
DECL = re.compile(r"^(?!typedef\b|struct\s+\w+\s*\{|enum\b|union\b)[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(")


def regex_before(text):
    lines = text.split("\n")
    names = []
    for i, raw in enumerate(lines):
        if not raw or raw[0] in " \t#/*}{":
            continue
        m = DECL.match(ATTRS.sub("", raw))
        if not m:
            continue
        j = i
        while j < len(lines) and j < i + 8:
            end = lines[j].rstrip()
            if end.endswith(";"):
                break
            if end.endswith("{") or (end.endswith(")") and j + 1 < len(lines) and lines[j + 1].startswith("{")):
                names.append(m.group(1))
                break
            j += 1
    return names


def regex_duplicates(root):
    defs = {}
    for d, _, files in os.walk(os.path.join(root, "hv")):
        for f in files:
            with open(os.path.join(d, f)) as fh:
                for name in set(regex_before(fh.read())):
                    defs.setdefault(name, []).append(f)
    return sorted(n for n, fs in defs.items() if len(fs) > 1)


class Fixtures(unittest.TestCase):
    def test_every_fixture_listed(self):
        have = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
        self.assertEqual(have, sorted(WANT))

    def test_check_finds_each(self):
        for name, want in WANT.items():
            with self.subTest(fixture=name):
                self.assertEqual(cn.check(os.path.join(FIXTURES, name)), [want])

    def test_regex_before_missed_each(self):
        for name in WANT:
            with self.subTest(fixture=name):
                self.assertEqual(regex_duplicates(os.path.join(FIXTURES, name)), [])


if __name__ == "__main__":
    unittest.main()
