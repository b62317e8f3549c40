# SPDX-License-Identifier: MIT
"""scripts/check-names.py on small made-up trees: what it must find."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "check_names", os.path.join(HERE, "..", "..", "scripts", "check-names.py"))
cn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cn)


def run(files):
    """The findings for a tree of {path under hv/: text}."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, "hv", path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return cn.check(root)


READ = "static u32 reg_read(struct dev *d, u8 reg)\n{\n\treturn 0;\n}\n"


class CheckNames(unittest.TestCase):
    def test_same_static_name_in_two_files(self):
        bad = run({"vdev/a.c": READ, "platform/b.c": READ})
        self.assertEqual(bad, ["reg_read: defined in hv/platform/b.c hv/vdev/a.c"])

    def test_one_file_and_prototypes_pass(self):
        self.assertEqual(run({"vdev/a.c": READ, "vdev/a.h": "u32 reg_read(struct dev *d, u8 reg);\n",
                              "vdev/c.c": "static u32 other(void)\n{\n\treturn reg_read(0, 1);\n}\n"}), [])

    def test_attributes_and_wrapped_parameters(self):
        a = ("static inline __attribute__((always_inline)) int handle(struct vcpu *v,\n"
             "\t\t\t\t\t\t     bool x)\n{\n\treturn 0;\n}\n")
        b = "static __noreturn void handle(void)\n{\n\tfor (;;)\n\t\t;\n}\n"
        self.assertEqual(run({"svm/a.c": a, "vmx/b.c": b}),
                         ["handle: defined in hv/svm/a.c hv/vmx/b.c"])

    def test_header_inline_against_a_file(self):
        h = "#ifndef MHV_X86_H\n#define MHV_X86_H\nstatic inline u64 rdmsr(u32 m)\n{\n\treturn 0;\n}\n#endif\n"
        c = "static u64 rdmsr(struct pmu_hw *hw, u32 m)\n{\n\treturn 0;\n}\n"
        self.assertEqual(run({"arch/x86.h": h, "pmu/s.c": c}),
                         ["rdmsr: defined in hv/arch/x86.h hv/pmu/s.c"])

    def test_stale_guard_found(self):
        bad = run({"host/finish.h": "#ifndef MHV_STATUS_H\n#define MHV_STATUS_H\n#endif\n"})
        self.assertEqual(len(bad), 1)
        self.assertIn("hv/host/finish.h: include guard", bad[0])

    def test_guards_with_and_without_folder_pass(self):
        self.assertEqual(run({"arch/ioapic.h": "#ifndef MHV_ARCH_IOAPIC_H\n#define MHV_ARCH_IOAPIC_H\n#endif\n",
                              "vdev/ioapic.h": "#ifndef MHV_IOAPIC_H\n#define MHV_IOAPIC_H\n#endif\n"}), [])


if __name__ == "__main__":
    unittest.main()
