# SPDX-License-Identifier: MIT
"""scripts/check-doc-names.py on small made-up trees: a doc that names a
function, a path, a make target or a key the tree does not have fails, with
the page, the line and the span; references to other projects and code
blocks are not claims."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "check_doc_names", os.path.join(HERE, "..", "..", "scripts", "check-doc-names.py"))
cd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cd)

TREE = {
    "Makefile": ".PHONY: all test\nall:\n\t@true\ntest: all\n\t@true\n",
    "hv/svm/svm_fast.c": ("struct vcpu {\n\tint exits[4];\n};\n"
                          "static inline void svm_fast_done(struct vcpu *vcpu)\n{\n}\n"
                          "int svm_fast_exits[256];\n"),
    "hv/svm/svm_entry.asm": "RUN_LOOPS SVM_KIND_, svm_loop_, SVM_LOOP_KINDS, svm_run_loops\n",
    "hv/lab/config.c": "NUMBER_KEY(fb_pause, 0, 600, \"seconds\"),\nconst char *m = \"sw-lazy\";\n",
    "tests/emu/cases.txt": "[bochs-ryzen]\nrun vmexit\n",
}


def run(doc, readme="See [docs](docs/x.md).\n"):
    with tempfile.TemporaryDirectory() as root:
        for path, text in dict(TREE, **{"README.md": readme, "docs/x.md": doc}).items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return cd.check(root)


class DocNames(unittest.TestCase):
    def test_real_names_pass(self):
        doc = ("`svm_fast_done()` in `hv/svm/svm_fast.c` (`svm/svm_fast.c`, `svm_entry.asm`)\n"
               "counts in `vcpu->exits[]`, `struct vcpu`, `svm_fast_exits[]`; `make test`,\n"
               "`fb_pause = N`, case `bochs-ryzen`, mode `sw-lazy`, loops `svm_loop_<K>_<T>_<S>`.\n")
        self.assertEqual(run(doc), [])

    def test_nonexistent_function_fails(self):
        self.assertEqual(run("# Walk\n\nThen\n`fast_done()` clears it.\n"),
                         ["docs/x.md:4: `fast_done()`: no C function fast_done()"])

    def test_nonexistent_identifier_and_path_fail(self):
        doc = "The loop (`svm_run_loop`, `hv/svm/svm_loop.c`) and `make tests`.\n"
        self.assertEqual(run(doc), [
            "docs/x.md:1: `svm_run_loop`: no name svm_run_loop in the tree",
            "docs/x.md:1: `hv/svm/svm_loop.c`: no such file or folder in the tree",
            "docs/x.md:1: `make tests`: no make target tests",
        ])

    def test_readme_struct_member_and_key(self):
        readme = "See [docs](docs/x.md): `struct vm`, `vcpu->regs`, `fb_wait = 2`.\n"
        self.assertEqual(run("", readme=readme), [
            "README.md:1: `struct vm`: no C struct vm",
            "README.md:1: `vcpu->regs`: no C struct member regs",
            "README.md:1: `fb_wait = 2`: no key fb_wait in the tree",
        ])

    def test_references_code_blocks_and_values_are_not_claims(self):
        doc = ("Linux's `rdmsr_safe`/`rdmsrl_safe`, and `kvm_post_set_cr0` and\n"
               "`kvm_post_set_cr4` in `arch/x86/kvm/x86.c`, need `CONFIG_KVM_XEN`.\n\n"
               "```\nmake no_such_target; call_nothing()\n```\n\n"
               "Values: `off`, `zen5`, `0x60`, `-smp 2`, `/init`, `build/kvm/mhv-kvm`.\n")
        self.assertEqual(run(doc), [])

    def test_a_path_of_the_tree_is_checked_beside_a_reference(self):
        self.assertEqual(run("QEMU `-smp 3`, `tests/emu/linux-smp9.cfg`.\n"),
                         ["docs/x.md:1: `tests/emu/linux-smp9.cfg`: no such file or folder in the tree"])


if __name__ == "__main__":
    unittest.main()
