#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README and docs/ hold together: every page in docs/ is linked from
README.md, and every relative link to a .md file in README.md and docs/
names a file that exists, and a heading of it where the link has an
#anchor (GitHub's: the heading in lower case, punctuation dropped, blanks
as '-').

  check-docs.py [ROOT]     ROOT: the repository (default: this script's)

One line per problem; exit status 0 when there is none, 1 otherwise.
"""
import os
import re
import sys

# [text](target) where target is a relative path to a .md file, with an
# optional #anchor, or an #anchor of the same page: links to web pages are
# not checked.
LINK = re.compile(r"\]\(([^)#:\s]+\.md)?(#[^)\s]*)?\)")


HEADING = re.compile(r"^#+\s+(.*?)\s*$")


def links(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for m in LINK.finditer(line):
                if m.group(1) or m.group(2):  # a page, or an anchor of this one
                    yield n, m.group(1) or os.path.basename(path), (m.group(2) or "")[1:]


def anchors(path):
    """The anchors of @path's headings (outside code blocks)."""
    out, code = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                code = not code
            m = None if code else HEADING.match(line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
                out.add(slug)
    return out


def check(root):
    problems = []
    readme = os.path.join(root, "README.md")
    docs = os.path.join(root, "docs")
    pages = sorted(f for f in os.listdir(docs) if f.endswith(".md")) if os.path.isdir(docs) else []
    files = [readme] + [os.path.join(docs, p) for p in pages]
    linked = set()
    for path in files:
        rel = os.path.relpath(path, root)
        for n, target, anchor in links(path):
            full = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if not os.path.isfile(full):
                problems.append("%s:%d: link to %s: no such file" % (rel, n, target))
                continue
            if anchor and anchor not in anchors(full):
                problems.append("%s:%d: link to %s#%s: no such heading" % (rel, n, target, anchor))
            if path == readme:
                linked.add(os.path.relpath(full, root))
    for p in pages:
        if os.path.join("docs", p) not in linked:
            problems.append("docs/%s: not linked from README.md" % p)
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
