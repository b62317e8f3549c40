#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Names under hv/ that a reader can trust.

1. A function name is defined in one file only.  Two files with a static
   reg_read, or a static rdmsr beside arch/x86.h's, send a reader (and
   every tag, grep and debugger) to the wrong one.
2. A header's include guard is named after it: MHV_<NAME>_H, or with its
   folder, MHV_<FOLDER>_<NAME>_H (arch/ioapic.h beside vdev/ioapic.h).  A
   guard left from an old name hides the next header that takes it.

Function definitions are found by shape, in the kernel style that
clang-format keeps: at column 0, a declarator whose parameter list closes
on a line that ends in ")" or "{", followed by the body's "{".  Macros
and prototypes (ending in ";") are not definitions.

Usage: check-names.py [ROOT]   (exit 1 and one line per finding)
"""
import os
import re
import sys

ATTRS = re.compile(r"__attribute__\(\(.*?\)\)\s*|\b(__noreturn|__always_inline|__printf\(\d+,\s*\d+\))\s*")
DECL = re.compile(r"^(?!typedef\b|struct\s+\w+\s*\{|enum\b|union\b)[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(")


def function_definitions(text):
    """The names of the functions a C file defines."""
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


def guard_ok(path, text):
    m = re.search(r"^#ifndef\s+(\w+)\s*\n#define\s+\1\b", text, re.M)
    if not m:
        return True  # no guard of this shape: not this check's business
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]).upper()
    folder = os.path.basename(os.path.dirname(path)).upper()
    return m.group(1) in (f"MHV_{name}_H", f"MHV_{folder}_{name}_H")


def check(root):
    defs, findings = {}, []
    for d, _, files in sorted(os.walk(os.path.join(root, "hv"))):
        for f in sorted(files):
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            if not f.endswith((".c", ".h")):
                continue
            with open(path, errors="replace") as fh:
                text = fh.read()
            for name in set(function_definitions(text)):
                defs.setdefault(name, []).append(rel)
            if f.endswith(".h") and not guard_ok(rel, text):
                findings.append(f"{rel}: include guard not named after the file (MHV_..._H)")
    for name, files in sorted(defs.items()):
        if len(files) > 1:
            findings.append(f"{name}: defined in {' '.join(files)}")
    return findings


def main():
    findings = check(sys.argv[1] if len(sys.argv) > 1 else ".")
    for line in findings:
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
