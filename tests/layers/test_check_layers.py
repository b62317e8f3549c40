# SPDX-License-Identifier: MIT
"""scripts/check-layers.py on small trees written for each test."""
import importlib.util
import os
import re
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check-layers.py")
spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
check_layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layers)


class Tree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("hv/lib/types.h", "")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, *includes, asm=False):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("/* x */\n")
            for name in includes:
                f.write(f'%include "{name}"\n' if asm else f'#include "{name}"\n')

    def check(self, allow=frozenset()):
        return check_layers.check(self.root, allow=set(allow))


class RankTest(Tree):
    def test_down_and_same_rank_pass(self):
        self.write("hv/host/smp.h", "lib/types.h", "platform/timer.h")
        self.write("hv/platform/timer.h", "lib/types.h")
        self.write("hv/core/vm.c", "host/smp.h", "vm.h")
        self.write("hv/core/vm.h")
        self.write("hv/main.c", "core/vm.h")
        self.assertEqual(self.check()[0], [])

    def test_upward_include_is_one_line_with_both_layers(self):
        self.write("hv/core/vm.h")
        self.write("hv/platform/console.c", "lib/types.h", "core/vm.h")
        self.assertEqual(
            self.check()[0],
            ["hv/platform/console.c:3: includes hv/core/vm.h: platform (rank 2) "
             "may not include core (rank 3)"],
        )

    def test_same_folder_first_then_hv(self):
        # "vm.h" is core/vm.h from core/ and lab/vm.h from lab/
        self.write("hv/core/vm.h")
        self.write("hv/lab/vm.h")
        self.write("hv/lab/runner.h", "vm.h")
        self.write("hv/core/vcpu.h", "vm.h", "lab/vm.h")
        self.assertEqual(
            self.check()[0],
            ["hv/core/vcpu.h:3: includes hv/lab/vm.h: core (rank 3) may not include lab (rank 4)"],
        )

    def test_asm_include(self):
        self.write("hv/core/regs.inc")
        self.write("hv/arch/entry.asm", "core/regs.inc", asm=True)
        self.assertIn("arch (rank 1) may not include core (rank 3)", self.check()[0][0])

    def test_boot_includes_only_lib(self):
        self.write("hv/host/smp.h")
        self.write("boot/efi_main.c", "lib/types.h", "host/smp.h")
        self.assertEqual(
            self.check()[0],
            ["boot/efi_main.c:3: includes hv/host/smp.h: boot/ may include only hv/lib"],
        )

    def test_unresolved_include_fails_except_generated(self):
        self.write("hv/platform/machine.c", "version.h", "nowhere.h")
        self.assertEqual(
            self.check()[0], ['hv/platform/machine.c:3: #include "nowhere.h" resolves to no file']
        )

    def test_file_outside_the_layers(self):
        self.write("hv/stray.c", "lib/types.h")
        self.assertEqual(self.check()[0], ["hv/stray.c: in no layer (check-layers.py RANKS)"])


class AllowTest(Tree):
    def test_allowed_edge_passes_and_stale_entry_fails(self):
        self.write("hv/lab/runner.h")
        self.write("hv/core/hypercall.c", "lab/runner.h")
        allow = {("core/hypercall.c", "lab/runner.h"), ("core/vm.c", "lab/vm_run.h")}
        self.assertEqual(
            self.check(allow)[0],
            ["check-layers.py ALLOW: hv/core/vm.c no longer includes hv/lab/vm_run.h: "
             "remove the entry"],
        )


class CycleTest(Tree):
    def test_file_cycle_is_printed(self):
        self.write("hv/core/a.h", "b.h")
        self.write("hv/core/b.h", "c.h")
        self.write("hv/core/c.h", "a.h")
        self.write("hv/core/d.h", "a.h")
        self.assertEqual(
            self.check()[0],
            ["include cycle: hv/core/a.h -> hv/core/b.h -> hv/core/c.h -> hv/core/a.h"],
        )

    def test_self_include_is_a_cycle(self):
        self.write("hv/lib/x.h", "x.h")
        self.assertEqual(self.check()[0], ["include cycle: hv/lib/x.h -> hv/lib/x.h"])

    def test_folder_cycle_of_one_rank_is_info_only(self):
        self.write("hv/host/percpu.h", "platform/timer.h")
        self.write("hv/platform/timer.h")
        self.write("hv/platform/console.c", "host/percpu.h")
        errors, info = self.check()
        self.assertEqual(errors, [])
        self.assertEqual(
            info,
            [
                "info: folders host, platform include each other (same rank: allowed), "
                "e.g. host -> platform -> host",
                "info:   host -> platform: host/percpu.h -> platform/timer.h",
                "info:   platform -> host: platform/console.c -> host/percpu.h",
            ],
        )


# The line regex that read includes before universal-ctags (issue 42),
# kept to show the shape below is one it missed.
REGEX_BEFORE = re.compile(r'^\s*(?:#\s*include|%include)\s*"([^"]+)"')


class FrontEndTest(Tree):
    def raw(self, path, text):
        with open(os.path.join(self.root, path), "w") as f:
            f.write(text)

    def test_include_behind_a_comment_counts(self):
        line = '/* the console needs the VM */ #include "core/vm.h"'
        self.assertIsNone(REGEX_BEFORE.match(line))
        self.write("hv/core/vm.h")
        self.write("hv/platform/console.c")
        self.raw("hv/platform/console.c", line + "\n")
        self.assertEqual(
            self.check()[0],
            ["hv/platform/console.c:1: includes hv/core/vm.h: platform (rank 2) "
             "may not include core (rank 3)"],
        )

    def test_include_in_if_0_or_a_comment_does_not(self):
        self.write("hv/core/vm.h")
        self.write("hv/platform/console.c")
        self.raw("hv/platform/console.c",
                 '#if 0\n#include "core/vm.h"\n#endif\n/*\n#include "core/vm.h"\n */\n')
        self.assertEqual(self.check()[0], [])


if __name__ == "__main__":
    unittest.main()
