#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the fuzz guest's differential run bare and under mhv.

Usage: compare.py [--known FILE] BARE_LOG MHV_LOG

Both logs hold the guest's "fz N OP ..." lines (guest-tests/fuzz/ops*.c:
one per architectural outcome of the same seeded program); under mhv they
come after the VM's "[fuzz_diff] " tag.  Each pair of lines with the same
N that differs is a difference, described as "OP OPERAND: bare ... / mhv
...".  Every difference must match a line of the known-differences file
(tests/fuzz-bare/known.txt: an extended regular expression, a tab, the
reason; docs/fuzz.md's table), else it is reported and the exit status is
1.  CPUID feature leaves are compared bit by bit: a bit mhv sets that the
bare CPU lacks is a difference of its own ("cpuid L.S REG bit B: mhv
adds"), one mhv clears is "hides"."""

import re
import sys

LINE_RE = re.compile(r"(?:^|\] )fz (\d+) (.*?)\s*$")


def read_ops(path):
    ops = {}
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace")
            m = LINE_RE.search(line)
            if m:
                ops[int(m.group(1))] = m.group(2)
    return ops


def read_known(path):
    known = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if "\t" not in line:
                sys.exit("%s:%d: want REGEX<TAB>REASON" % (path, n))
            pat, reason = line.split("\t", 1)
            known.append((re.compile(pat), reason.strip(), [0]))
    return known


LIMIT = int(__import__("os").environ.get("COMPARE_LIMIT", "40"))
REGS = ("eax", "ebx", "ecx", "edx")


def describe(bare, mhv):
    """The differences of one pair of lines, as strings to match."""
    b, m = bare.split(), mhv.split()
    if b[0] == "cpuid" and m[0] == "cpuid" and b[1:3] == m[1:3]:
        leaf, sub = b[1], b[2]
        out = []
        for i, reg in enumerate(REGS):
            bv, mv = int(b[4 + i], 16), int(m[4 + i], 16)
            for bit in range(32):
                if (bv ^ mv) >> bit & 1:
                    out.append("cpuid %s.%s %s bit %d: mhv %s" %
                               (leaf, sub, reg, bit, "adds" if mv >> bit & 1 else "hides"))
        return out
    return ["%s / mhv: %s" % (bare, " ".join(m[1:]) if m[:2] == b[:2] else mhv)]


def main(argv):
    known_path = "tests/fuzz-bare/known.txt"
    if len(argv) > 2 and argv[0] == "--known":
        known_path, argv = argv[1], argv[2:]
    if len(argv) != 2:
        sys.exit(__doc__)
    bare, mhv = read_ops(argv[0]), read_ops(argv[1])
    if not bare or not mhv:
        sys.exit("compare: no 'fz' lines in %s" % (argv[0] if not bare else argv[1]))
    known = read_known(known_path)
    unknown, matched = [], 0
    for n in sorted(set(bare) | set(mhv)):
        b, m = bare.get(n), mhv.get(n)
        if b == m:
            continue
        if b is None or m is None:
            diffs = ["%s only: %s" % ("mhv" if b is None else "bare", m or b)]
        else:
            diffs = describe(b, m)
        for d in diffs:
            for pat, _, count in known:
                if pat.search(d):
                    count[0] += 1
                    matched += 1
                    break
            else:
                unknown.append("fz %d: %s" % (n, d))
    same = len(set(bare) & set(mhv)) - len([n for n in bare if n in mhv and bare[n] != mhv[n]])
    print("compare: %d operations bare, %d under mhv, %d alike; %d differences known, %d not"
          % (len(bare), len(mhv), same, matched, len(unknown)))
    for pat, reason, count in known:
        if count[0]:
            print("  known x%d: %s (%s)" % (count[0], pat.pattern, reason))
    for u in unknown[:LIMIT]:
        print("  UNKNOWN " + u)
    if len(unknown) > LIMIT:
        print("  ... %d more" % (len(unknown) - LIMIT))
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
