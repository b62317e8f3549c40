#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Dependencies point down (docs/architecture.md, "The layers"): check every #include "..." and
%include in hv/ and boot/.

  check-layers.py [ROOT]     ROOT: the repository (default: this script's)

An include resolves in the including file's folder first, then in hv/
(the compiler's -Ihv).  It fails, one line per violation, when
  - a file includes a file of a higher layer (RANKS below; boot/ may
    include only hv/lib and BOOT_ALSO), or
  - includes form a cycle (the cycle is printed), or
  - an include resolves to nothing (GENERATED names the build's own), or
  - an ALLOW entry no longer matches an include.
Cycles between folders of the same rank (host and platform, core and
pmu) are not failures: they are printed as "info:" lines.
Exit status 0 when clean, 1 on violations.

The C files' #include "..." lines are read by a C front end,
universal-ctags (scripts/cfront.py): an include behind a comment on its
line (/* why */ #include "core/vm.h") counts, one in #if 0 or in a
comment block does not.  NASM's %include (.asm, .inc) is read by line:
NASM is not C.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cfront  # noqa: E402

# Lower may never include higher; equal ranks may include each other.
RANKS = {
    "lib": 0,
    "arch": 1,
    "host": 2,
    "platform": 2,
    "core": 3,
    "vdev": 3,
    "loader": 3,
    "svm": 3,
    "vmx": 3,
    "pmu": 3,
    "xstate": 3,
    "lab": 4,
    "main.c": 5,
}

# Known upward includes, (including file, included file) relative to hv/,
# each with a comment saying why.  None today; an entry that no longer
# matches an include fails the check, so the list only shrinks.
ALLOW = set()

# boot/ may include hv/lib, and this: the UEFI loader reads the kernels
# that mhv.cfg names before ExitBootServices, with the lab's own parser.
BOOT_ALSO = {"lab/config.h"}

# Made by the build, not in the tree (Makefile: build/version.h, and
# build/hv/core/asm_offsets.inc from core/asm_offsets.c).
GENERATED = {"version.h", "asm_offsets.inc"}

NASM_INCLUDE = re.compile(r'^\s*%include\s*"([^"]+)"')
SOURCES = (".c", ".h", ".asm", ".inc")


def sources(root):
    for top in ("hv", "boot"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(d, f), root)


def layer(path):
    """(folder, rank) of a repository-relative path; rank None: no layer."""
    parts = path.split(os.sep)
    if parts[0] == "boot":
        return "boot", None
    name = parts[1] if len(parts) > 1 else ""
    return name, RANKS.get(name)


def hv_rel(path):
    return path[3:] if path.startswith("hv" + os.sep) else path


def c_includes(root):
    """{path: [(line, name)]}: the #include "..." of every C file in hv/ and boot/."""
    out = {}
    tops = [t for t in ("hv", "boot") if os.path.isdir(os.path.join(root, t))]
    for path, n, name in cfront.includes(cfront.tags(tops, cwd=root)) if tops else ():
        out.setdefault(os.path.normpath(path), []).append((n, name))
    for v in out.values():
        v.sort()
    return out


def includes(root, path, c_incs):
    if path.endswith((".c", ".h")):
        yield from c_incs.get(path, ())
        return
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = NASM_INCLUDE.match(line)
            if m:
                yield n, m.group(1)


def resolve(root, path, name):
    for base in (os.path.dirname(path), "hv"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def graph(root, errors):
    """{file: [(line, included file)]} over hv/ and boot/."""
    edges = {}
    c_incs = c_includes(root)
    for path in sources(root):
        out = edges.setdefault(path, [])
        for n, name in includes(root, path, c_incs):
            target = resolve(root, path, name)
            if target:
                out.append((n, target))
            elif os.path.basename(name) not in GENERATED:
                errors.append(f'{path}:{n}: #include "{name}" resolves to no file')
    return edges


def check_ranks(edges, errors, allow):
    used = set()
    for path, out in edges.items():
        folder, rank = layer(path)
        if folder != "boot" and rank is None:
            errors.append(f"{path}: in no layer (check-layers.py RANKS)")
            continue
        for n, target in out:
            tfolder, trank = layer(target)
            key = (hv_rel(path), hv_rel(target))
            if key in allow:
                used.add(key)
                continue
            if folder == "boot":
                if tfolder in ("boot", "lib") or hv_rel(target) in BOOT_ALSO:
                    continue
                errors.append(f"{path}:{n}: includes {target}: boot/ may include only hv/lib")
            elif trank is not None and trank > rank:
                errors.append(
                    f"{path}:{n}: includes {target}: {folder} (rank {rank}) "
                    f"may not include {tfolder} (rank {trank})"
                )
    for src, dst in sorted(allow - used):
        errors.append(f"check-layers.py ALLOW: hv/{src} no longer includes hv/{dst}: remove the entry")


def strongly_connected(nodes, succ):
    """Tarjan's algorithm, iterative; components in a stable order."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(succ(start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    return comps


def cycle_in(comp, succ):
    """One cycle through comp[0] inside the component, as a node list."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    for v in queue:
        for w in succ(v):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def check_cycles(edges, errors):
    def succ(v):
        return sorted({t for _, t in edges.get(v, ())})

    for comp in strongly_connected(sorted(edges), succ):
        if len(comp) > 1 or comp[0] in succ(comp[0]):
            errors.append("include cycle: " + " -> ".join(cycle_in(comp, succ)))


def folder_cycles(edges):
    """info lines: cycles among folders of one rank, with the edges that make them."""
    why = {}
    for path, out in edges.items():
        folder, rank = layer(path)
        for _, target in out:
            tfolder, trank = layer(target)
            if folder != tfolder and rank is not None and rank == trank:
                why.setdefault((folder, tfolder), []).append(f"{hv_rel(path)} -> {hv_rel(target)}")

    def succ(v):
        return sorted({b for a, b in why if a == v})

    lines = []
    for comp in strongly_connected(sorted({a for a, _ in why}), succ):
        if len(comp) < 2:
            continue
        lines.append(
            f"info: folders {', '.join(comp)} include each other (same rank: allowed), "
            "e.g. " + " -> ".join(cycle_in(comp, succ))
        )
        for a in comp:
            for b in succ(a):
                if b in comp:
                    e = why[(a, b)]
                    more = f" (+{len(e) - 2} more)" if len(e) > 2 else ""
                    lines.append(f"info:   {a} -> {b}: " + ", ".join(e[:2]) + more)
    return lines


def check(root, allow=ALLOW):
    """(violations, info lines) for the tree at root."""
    errors = []
    edges = graph(root, errors)
    check_ranks(edges, errors, allow)
    check_cycles(edges, errors)
    return errors, folder_cycles(edges)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    errors, info = check(root)
    for line in errors + info:
        print(line)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
