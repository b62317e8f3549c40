#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which folder of hv/ calls (or reads data of) which: the edges the
include rule cannot see, read from the built objects' symbol tables.

For every object under build/hv/<folder>/, each undefined symbol is
matched to the object that defines it; an edge folder -> folder counts
the distinct symbols one takes from the other.  Symbols from outside hv/
(boot/, the compiler's runtime) are left out.

Usage: call-edges.py [BUILD_DIR]   (default build; run make first)
"""
import collections
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if len(line.split()) == 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True).stdout
    undefined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, undefined


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    root = os.path.join(build, "hv")
    owner, uses = {}, {}
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".o"):
                continue
            obj = os.path.join(d, f)
            rel = os.path.relpath(d, root)
            folder = "main" if rel == "." else rel.split(os.sep)[0]
            defined, undefined = symbols(obj)
            for s in defined:
                owner[s] = folder
            uses[obj] = (folder, undefined)
    edges = collections.defaultdict(set)
    for folder, undefined in uses.values():
        for s in undefined:
            if s in owner and owner[s] != folder:
                edges[(folder, owner[s])].add(s)
    for (a, b), syms in sorted(edges.items()):
        print(f"{a} -> {b}: {len(syms)}")
    print(f"total: {len(edges)} edges, {sum(len(s) for s in edges.values())} symbols")


if __name__ == "__main__":
    main()
