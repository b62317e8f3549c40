# SPDX-License-Identifier: MIT
"""scripts/check-nospec.py on small made-up sources: what it must find."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "check_nospec", os.path.join(HERE, "..", "..", "scripts", "check-nospec.py"))
cn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cn)


def run(source):
    """The findings for one file hv/x.c holding @source, array 'tab'."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "hv"))
        with open(os.path.join(root, "hv", "x.c"), "w") as f:
            f.write(source)
        saved = cn.ARRAYS
        cn.ARRAYS = {"hv/x.c": [("tab", "a test index")]}
        try:
            return cn.check(root)
        finally:
            cn.ARRAYS = saved


class CheckNospec(unittest.TestCase):
    def test_unclamped_index_found(self):
        bad = run("static int tab[4];\nint f(unsigned i)\n{\n"
                  "\tif (i >= 4)\n\t\treturn 0;\n\treturn tab[i];\n}\n")
        self.assertEqual(len(bad), 1)
        self.assertIn("hv/x.c:6: tab[i]", bad[0])

    def test_clamped_forms_pass(self):
        self.assertEqual(run(
            "static int tab[4];\nint f(unsigned i)\n{\n"
            "\treturn i < 4 ? tab[array_index_nospec(i, 4)] : tab[0];\n}\n"
            "int g(unsigned i)\n{\n\ti = array_index_nospec(i, 4);\n\treturn tab[i];\n}\n"
            "int h(void)\n{\n\tint s = 0;\n\tunsigned i;\n\n"
            "\tfor (i = 0; i < NR_TAB; i++)\n\t\ts += tab[i];\n\treturn s;\n}\n"), [])

    def test_loop_counter_reused_as_guest_index_found(self):
        bad = run("static int tab[4];\nint f(unsigned m)\n{\n\tunsigned i;\n\n"
                  "\tfor (i = 0; i < 4; i++)\n\t\t;\n\ti = m;\n\treturn tab[i];\n}\n")
        self.assertEqual(len(bad), 1)

    def test_comment_is_not_a_clamp(self):
        bad = run("static int tab[4];\nint f(unsigned i)\n{\n"
                  "\treturn tab[i /* array_index_nospec */];\n}\n")
        self.assertEqual(len(bad), 1)

    def test_array_gone_found(self):
        self.assertIn("no access to tab", run("int f(void)\n{\n\treturn 0;\n}\n")[0])


if __name__ == "__main__":
    unittest.main()
