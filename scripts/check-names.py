#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Names under hv/ that a reader can trust.

1. A function name is defined in one file only.  Two files with a static
   reg_read, or a static rdmsr beside arch/x86.h's, send a reader (and
   every tag, grep and debugger) to the wrong one.
2. A header's include guard is named after it: MHV_<NAME>_H, or with its
   folder, MHV_<FOLDER>_<NAME>_H (arch/ioapic.h beside vdev/ioapic.h).  A
   guard left from an old name hides the next header that takes it.

Function definitions are read by a C front end, universal-ctags
(scripts/cfront.py), not by the shape of a line: a return type on the
line before the name, a parameter list over many lines, a one-line static
inline, an enum return type are all definitions.  Prototypes and macros
are not; both arms of an #ifdef are read (two definitions in one file
count once).

Usage: check-names.py [ROOT]   (exit 1 and one line per finding)
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cfront  # noqa: E402


def guard_ok(path, text):
    m = re.search(r"^#ifndef\s+(\w+)\s*\n#define\s+\1\b", text, re.M)
    if not m:
        return True  # no guard of this shape: not this check's business
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]).upper()
    folder = os.path.basename(os.path.dirname(path)).upper()
    return m.group(1) in (f"MHV_{name}_H", f"MHV_{folder}_{name}_H")


def check(root):
    defs, findings = {}, []
    for name, path, _ in cfront.definitions(cfront.tags(["hv"], cwd=root)):
        defs.setdefault(name, set()).add(path)
    for d, _, files in sorted(os.walk(os.path.join(root, "hv"))):
        for f in sorted(files):
            if not f.endswith(".h"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            with open(path, errors="replace") as fh:
                text = fh.read()
            if not guard_ok(rel, text):
                findings.append(f"{rel}: include guard not named after the file (MHV_..._H)")
    for name, files in sorted(defs.items()):
        if len(files) > 1:
            findings.append(f"{name}: defined in {' '.join(sorted(files))}")
    return findings


def main():
    findings = check(sys.argv[1] if len(sys.argv) > 1 else ".")
    for line in findings:
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
