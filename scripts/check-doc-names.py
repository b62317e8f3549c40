#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README and docs/ name real code: every `backticked` path or
identifier in README.md and docs/*.md that claims something of this tree
exists in it.

  check-doc-names.py [ROOT]      ROOT: the repository (default: this script's)

One line per finding, "FILE:LINE: `SPAN`: why"; exit 0 when there is
none, 1 otherwise.  Spans inside fenced code blocks (```) are examples,
not claims, and are not read.

What a span claims, the first rule that fits deciding:

 1. A reference to someone else's code, not checked.  Spans joined by
    "/", ",", "and" or "or" are one group, and a group is a reference when
    the words right before it name another project (Linux, KVM, QEMU,
    Bochs, OVMF, Debian, kvm-unit-tests or perf, with "'s", "'" or ":":
    "Linux's `rdmsr_safe`/`rdmsrl_safe`", "(Linux: `IBPB_ON_VMEXIT` ...",
    "QEMU `-kernel`") or when it is followed by "in `PATH`"
    with PATH in another project's tree (EXTERNAL below: "`kvm_post_set_cr0`
    and `kvm_post_set_cr4` in `arch/x86/kvm/x86.c`").  Such a PATH, a
    Linux configuration option (CONFIG_*) and a span in ALLOW below (each
    entry says why) are references too.  A path of this tree (its first
    word a top-level folder here) is checked even in a reference's group.
 2. A path: no blank, not starting with "." (`.ref`: a file type), and a "/" or a file name's extension (.c, .h, .asm,
    .inc, .py, .sh, .mk, .md, .txt, .cfg, .ref, .msr, .patch, .ld).  Not a
    claim when it starts with "/", "~", "\\", "<" or "../" (the guest's,
    the host's, the ESP's files, a system header) or with build/ (made by
    make).  Else it must name a file or folder of the tree, from the top
    or from hv/ (the code's own spelling: `core/vm.c`); a name without "/"
    may be any file's in the tree (`svm_entry.asm`).  "*" is a glob, and a
    word in capitals (MODEL, KEY, YYYYMMDD) a placeholder: at least one
    file must fit.  A trailing ":LINE" is dropped.  Words joined by "/"
    with no extension and no trailing "/" that are no file, and whose first
    word is no top-level folder of the tree, are a test's name as the
    results print it (`smoke/io_port_b`, `style/layers`,
    `kvm-side/*`): each word but "*" must be a word of the tree's source,
    configuration or test files.
 3. A command: "make T ..." claims the Makefile target T (words with "="
    or "-" are its variables and options); "sh P ...", "python3 P ..."
    and a first word that is a path of the tree ("scripts/mhv-report
    FILE") claim that path, by rule 2.
 4. "struct N", "union N", "enum N": a C type of the tree (the C front end,
    universal-ctags through scripts/cfront.py, over boot/, hv/,
    guest-tests/, tests/ and scripts/).
 5. "a->b" or "a.b" (a field): b is a member of some C struct or union.
 6. "name()": a C function, prototype or function-like macro.
 7. "name[]", "name[][]": a C variable, member or type of that name.
 8. "key =", "key = value" or "key=" (a configuration key, a make
    variable, a kernel command line's parameter): key is a word of the
    tree's source, configuration or test files (config.c's NUMBER_KEY(...)
    spells mhv.cfg's keys as C names, not strings).
 9. A name with a "<placeholder>" (`svm_loop_<kind>_<timed>_<set>`, a
    family of generated symbols): its fixed part before the first "<"
    is a word of the tree's sources (NASM's RUN_LOOPS takes "svm_loop_").
10. An identifier with "_" in it (`vm_vcpu_run`, `HC_NULL`, `wrmsr_spec`,
    `bochs-zen5-pmu` names of cases and benchmarks included, a "-" counting
    as "_" here): a C name the front end finds, or a word in one of the
    tree's source, configuration or test files (not its .md files):
    benchmark names, case names, NASM macros and Linux names mhv's own code
    uses are words of the tree.
11. Anything else is a value, a literal or prose, not a claim: one word
    without "_" (`off`, `pmu`, `vmexit`), a number, a flag (`-smp 2`), a
    JSON fragment, a register or instruction name, a log line.
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cfront  # noqa: E402

# Spans that look like claims about this tree and are not, each with why.
ALLOW = {
    "mhv.cfg": "the configuration file's name on the ESP (make run writes it from scripts/run.cfg)",
    "BOOTX64.EFI": "the image's name on the ESP, made by make all",
    "EFI/BOOT/BOOTX64.EFI": "the image's path on the ESP, made by make all",
    "EFI/": "the ESP's folder",
    "x86/unittests.cfg": "kvm-unit-tests' file, in its own tree (build/kut)",
    "shimx64.efi": "Debian's shim, not this tree's",
    "keep-log-plain": "tests/run-all.sh's keep-log-$fw case for fw plain",
    "keep-log-secboot": "tests/run-all.sh's keep-log-$fw case for fw secboot",
    "poll()": "the C library's, that perf calls (docs/linux-guest.md)",
}

# Other projects' trees, cited for facts: a path under one of these is
# theirs, and so is a name cited "in" such a path.
EXTERNAL = {
    "arch/x86/kvm/": "Linux's KVM",
    "x86/": "kvm-unit-tests' tests",
}

PROJECT = re.compile(r"\b(?:Linux|KVM|QEMU|Bochs|OVMF|Debian|kvm-unit-tests|perf)(?:'s|')?:?\s*$")
JOIN = re.compile(r"\s*(?:/|,|and|or|,\s*and|,\s*or)\s*")
CITED_IN = re.compile(r"\s*(?:in|of|from)\s+`([^`]+)`")
EXT = (".c", ".h", ".asm", ".inc", ".py", ".sh", ".mk", ".md", ".txt", ".cfg", ".ref", ".msr",
       ".patch", ".ld")
SPAN = re.compile(r"`([^`]+)`")  # within a paragraph, across its line breaks
TEST_NAME = re.compile(r"[\w*-]+(?:/[\w*-]+)+")
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b")


class Tree:
    """What the tree holds: its files, C names by kind, words, make targets."""

    def __init__(self, root):
        self.root = root
        try:
            out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                                 check=True).stdout.split("\n")
            self.files = [f for f in out if f]
        except (OSError, subprocess.CalledProcessError):
            self.files = []
            for d, dirs, files in os.walk(root):
                dirs[:] = [x for x in dirs if not x.startswith(".") and x != "build"]
                self.files += [os.path.relpath(os.path.join(d, f), root) for f in files]
        self.files = [f for f in self.files if os.path.exists(os.path.join(root, f))]
        self.basenames = {os.path.basename(f) for f in self.files}
        self.tops = {f.split("/")[0] for f in self.files}
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.dirs.add(d)
                d = os.path.dirname(d)
        tops = [t for t in ("boot", "hv", "guest-tests", "tests", "scripts")
                if os.path.isdir(os.path.join(root, t))]
        self.tags = cfront.tags(tops, cwd=root) if tops else []
        self.kinds = {}
        for t in self.tags:
            if "reference" in t.get("extras", "").split(","):
                continue
            self.kinds.setdefault(t["name"], set()).add(
                "fnmacro" if t["kind"] == "macro" and t.get("signature") else t["kind"])
        self.words, self.strings = set(), set()
        for f in self.files:
            if f.endswith(".md") or not os.path.isfile(os.path.join(root, f)):
                continue
            try:
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue
            self.words.update(re.findall(r"[A-Za-z_][\w-]*\w|[A-Za-z_]", text))
            if f.startswith(("hv/", "boot/")):
                self.strings.update(re.findall(r'"([^"\\\n]*)"', text))
        self.targets = set()
        mk = os.path.join(root, "Makefile")
        if os.path.isfile(mk):
            with open(mk, encoding="utf-8") as fh:
                for line in fh:
                    m = re.match(r"^([\w.\- ]+?)\s*::?(?!=)", line)
                    if m:
                        self.targets.update(m.group(1).split())
                    m = re.match(r"^\.PHONY\s*:(.*)", line)
                    if m:
                        self.targets.update(m.group(1).replace("\\", " ").split())

    def has_path(self, path):
        path = re.sub(r":\d+$", "", path).rstrip("/")
        if "/" not in path and "*" not in path and not PLACEHOLDER.search(path):
            return path in self.basenames or path in self.dirs
        pattern = PLACEHOLDER.sub("*", path)
        for base in ("", "hv/"):
            full = os.path.join(self.root, base + pattern)
            if glob.glob(full):
                return True
        return False

    def kind(self, name, *kinds):
        return bool(self.kinds.get(name, set()) & set(kinds))


def is_path(span):
    return " " not in span and ("/" in span or span.endswith(EXT) or re.search(r"\.(c|h|py|sh):\d+$", span))


def external_path(span):
    return span.startswith(("/", "~", "\\", "<", "../", "build/"))


def external(span):
    return span.startswith(tuple(EXTERNAL)) or re.fullmatch(r"CONFIG_\w+", span) or span in ALLOW


def verdict(tree, span):
    """None when @span is fine (or not a claim), else why it fails."""
    s = span.strip()
    if external(s) or s.startswith("."):
        return None
    if is_path(s):
        if external_path(s) or tree.has_path(s):
            return None
        if TEST_NAME.fullmatch(s) and not s.endswith(EXT) and s.split("/")[0] not in tree.tops:
            missing = [w for w in s.split("/") if w != "*" and w not in tree.words]
            return f"no {missing[0]} in the tree" if missing else None
        return "no such file or folder in the tree"
    words = s.split()
    if words[0] == "make" and len(words) > 1:
        for w in words[1:]:
            if "=" in w or w.startswith("-"):
                continue
            if w not in tree.targets:
                return f"no make target {w}"
        return None
    if words[0] in ("sh", "python3") and len(words) > 1:
        return None if tree.has_path(words[1]) else f"no such file {words[1]}"
    if len(words) > 1 and "/" in words[0] and not external_path(words[0]):
        return None if tree.has_path(words[0]) else f"no such file {words[0]}"
    m = re.fullmatch(rf"(struct|union|enum)\s+({IDENT})", s)
    if m:
        return None if tree.kind(m.group(2), m.group(1)) else f"no C {m.group(1)} {m.group(2)}"
    m = re.fullmatch(rf"{IDENT}(?:->|\.)({IDENT})(?:\[\])?", s)
    if m and ("_" in s or "->" in s):
        return None if tree.kind(m.group(1), "member") else f"no C struct member {m.group(1)}"
    m = re.fullmatch(rf"({IDENT})\(\)", s)
    if m:
        return None if tree.kind(m.group(1), "function", "prototype", "fnmacro") else \
            f"no C function {m.group(1)}()"
    m = re.fullmatch(rf"({IDENT})(\[\])+", s)
    if m:
        return None if m.group(1) in tree.kinds else f"no C name {m.group(1)}"
    m = re.fullmatch(rf"({IDENT})(?:\s*=\s.*|\s+=|=\S*)", s)
    if m:
        return None if m.group(1) in tree.words else f"no key {m.group(1)} in the tree"
    m = re.fullmatch(r"([A-Za-z_][\w-]*?)<[A-Za-z]+>[\w<>-]*", s)
    if m:
        return None if m.group(1) in tree.words else f"no name starting {m.group(1)} in the tree"
    if re.fullmatch(r"[A-Za-z_][\w-]*\w", s) and ("_" in s or "-" in s):
        if s not in tree.kinds and s not in tree.words:
            return f"no name {s} in the tree"
    return None


def paragraphs(path):
    """(first line number, text) of each paragraph outside code blocks."""
    code, start, lines = False, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                code = not code
                line = ""
            if code or not line.strip():
                if lines:
                    yield start, "".join(lines)
                lines = []
                continue
            if not lines:
                start = n
            lines.append(line)
    if lines:
        yield start, "".join(lines)


def groups(text):
    """Lists of span matches joined by "/", ",", "and" or "or"."""
    out = []
    for m in SPAN.finditer(text):
        if out and JOIN.fullmatch(text[out[-1][-1].end():m.start()]):
            out[-1].append(m)
        else:
            out.append([m])
    return out


def is_reference(text, group):
    if PROJECT.search(text[:group[0].start()]):
        return True
    m = CITED_IN.match(text[group[-1].end():])
    return bool(m and m.group(1).startswith(tuple(EXTERNAL)))


def check(root):
    tree = Tree(root)
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        pages += [os.path.join(docs, p) for p in sorted(os.listdir(docs)) if p.endswith(".md")]
    findings = []
    for page in pages:
        if not os.path.isfile(page):
            continue
        rel = os.path.relpath(page, root)
        for start, text in paragraphs(page):
            for group in groups(text):
                ref = is_reference(text, group)
                for m in group:
                    if ref and m.group(1).split("/")[0] not in tree.tops:
                        continue
                    span = " ".join(m.group(1).split())
                    why = verdict(tree, span)
                    if why:
                        n = start + text.count("\n", 0, m.start())
                        findings.append(f"{rel}:{n}: `{span}`: {why}")
    return findings


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    findings = check(root)
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
