#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every access to a guest-indexed array goes through array_index_nospec.

A bounds check alone does not stop the CPU from running ahead with an index
out of bounds (Spectre v1, hv/lib/nospec.h).  The arrays below are indexed
by what a guest chooses (an MSR number, a port, a register selector); in
their files each subscript of theirs must be one of

  - an expression holding array_index_nospec (or its _pow2 form),
  - an integer literal,
  - a variable the same function assigns from array_index_nospec, or
  - the counter of a for loop from 0 up to a constant (an upper-case name
    or a literal): the host's loop, not a guest's choice.

Why a list and a grep, not a compiler plugin: which index a guest chooses
is a fact about the data flow into a device model, which no type in mhv
says; the list names it once per array (with the guest's handle on it),
and the grep keeps every later access to those arrays honest at no build
cost.  A new guest-indexed table is added here with the code that makes it.

Usage: check-nospec.py [ROOT]   (exit 1 and one line per finding)
"""
import os
import re
import sys

# file -> [(array, what the guest chooses)]
ARRAYS = {
    "hv/vdev/vapic.c": [("x2apic_rules", "the x2APIC MSR number (RDMSR/WRMSR ECX)")],
    "hv/vdev/ioapic.c": [("redir", "IOREGSEL, and the line of port 0x2000 + n")],
    "hv/core/mtrr.c": [("fixed", "the fixed-range MTRR's MSR number"),
                       ("var", "the variable-range MTRR's MSR number")],
    "hv/vdev/pit.c": [("ch", "the port (0x40-0x42) or the control word's channel")],
    "hv/core/msr.c": [("bank", "the MCi_* MSR number")],
    "hv/vdev/fw_cfg.c": [('"QEMU"', "the signature item's read position")],
    "hv/core/hypercall.c": [("hypercalls", "the hypercall number (RAX)"),
                            ("exits", "HC_EXIT_COUNT's exit kind")],
}

NOSPEC = re.compile(r"\barray_index_nospec(_pow2)?\s*\(")


def strip_comments(text):
    """Comments blanked out, line breaks kept (so line numbers hold)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def functions(text):
    """(start, end) of each top-level brace block (a function body)."""
    out, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out.append((start, i + 1))
    return out


def subscript(text, open_at):
    """The expression between text[open_at] == '[' and its ']'."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i]
    return text[open_at + 1:]


def index_ok(expr, body):
    expr = expr.strip()
    if NOSPEC.search(expr) or re.fullmatch(r"[0-9]+[uUlL]*|0[xX][0-9a-fA-F]+[uUlL]*", expr):
        return True
    if not re.fullmatch(r"[A-Za-z_]\w*", expr):
        return False
    v = re.escape(expr)
    if re.search(rf"\b{v}\s*=\s*array_index_nospec(_pow2)?\s*\(", body):
        return True
    # a loop counter only: every assignment of it is a for's "= 0"
    loops = len(re.findall(rf"\bfor\s*\(\s*{v}\s*=\s*0\s*;\s*{v}\s*<\s*"
                           rf"([A-Z_][A-Z0-9_]*|[0-9]+)\s*;", body))
    return loops > 0 and loops == len(re.findall(rf"\b{v}\s*=(?!=)", body))


def check(root):
    bad = []
    for path, arrays in ARRAYS.items():
        full = os.path.join(root, path)
        try:
            text = strip_comments(open(full).read())
        except OSError as e:
            bad.append(f"{path}: cannot read: {e}")
            continue
        bodies = functions(text)
        for name, why in arrays:
            pat = re.escape(name) if name.startswith('"') else rf"\b{re.escape(name)}"
            found = 0
            for m in re.finditer(pat + r"\s*\[", text):
                open_at = m.end() - 1
                body = next((text[s:e] for s, e in bodies if s <= m.start() < e), None)
                if body is None:
                    continue  # a declaration or an initialiser, outside functions
                found += 1
                expr = subscript(text, open_at)
                if not index_ok(expr, body):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{path}:{line}: {name}[{' '.join(expr.split())}] "
                               f"without array_index_nospec (the guest chooses {why})")
            if not found:
                bad.append(f"{path}: no access to {name} found: update scripts/check-nospec.py")
    return bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = check(root)
    for b in bad:
        print(b)
    n = sum(len(a) for a in ARRAYS.values())
    if bad:
        print(f"check-nospec: {len(bad)} guest-indexed accesses without a clamp "
              f"({n} arrays checked)")
        return 1
    print(f"check-nospec: {n} guest-indexed arrays, every access clamped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
