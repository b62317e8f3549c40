#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read the emulator cases (tests/emu/cases.txt) for tests/run-all.sh.

    read-cases.py CASES_FILE

Prints one line per case, in file order, for `IFS='|' read`:

    name|emulator|cpu|cpus|config|status|options|expect

options space-separated, the expect patterns joined by US (0x1f).  Only
expect may hold '|' (an ERE alternation): it is the last field.  Any
mistake in the file prints `FILE:LINE: what is wrong` on stderr, one line
each, nothing on stdout, and exits 1."""
import os
import re
import sys

EMULATORS = ("qemu", "qemu-usb", "bochs", "bochs-pmu", "bochs-disk", "bochs-pmu-disk")
# the options each emulator takes (the usb-stick boots take none)
OPTIONS = {"qemu": ("nmi", "mce", "mce-logged", "fb", "mb", "linux", "gpu2", "many", "smm",
                    "snakeoil", "signed", "refused", "numa", "com2", "spcr", "noserial", "nohpet"),
           "bochs": ("mb",),
           "bochs-pmu": ("mb", "linux", "bare", "kvm", "nested", "perf", "perftest"), "qemu-usb": (),
           "bochs-disk": (), "bochs-pmu-disk": ()}
KEYS = ("emulator", "cpu", "cpus", "config", "status", "options", "expect", "reject")
SINGLE = ("emulator", "cpu", "cpus", "config", "status")  # required, once each
US = "\x1f"

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
SECTION = re.compile(r"\[\s*([^]]*?)\s*\]")
ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")
# a comment: '#' after a blank, except in an expect pattern
COMMENT = re.compile(r"\s#.*")
WORD = re.compile(r"[^\s|]+")


class Case:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.values = {}  # key -> (value, line)
        self.expect = []
        self.reject = []


def parse(path, text):
    """Cases of text, and the errors as 'path:line: what' strings."""
    cases, errors = [], []

    def error(line, what):
        errors.append((line, f"{path}:{line}: {what}"))

    case = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = ASSIGN.fullmatch(line)
        if not m or m.group(1) not in ("expect", "reject"):  # a pattern is the whole rest of its line
            line = COMMENT.sub("", line).rstrip()
        m = SECTION.fullmatch(line)
        if m:
            if not NAME.fullmatch(m.group(1)):
                error(number, f"bad case name '{m.group(1)}' "
                      "(letters, digits, '.', '_', '-'; a letter or digit first)")
            case = Case(m.group(1), number)
            cases.append(case)
            continue
        m = ASSIGN.fullmatch(line)
        if not m:
            error(number, f"neither '[name]' nor 'key = value': '{line}'")
            continue
        key, value = m.groups()
        if key not in KEYS:
            error(number, f"unknown key '{key}' (keys: {', '.join(KEYS)})")
        elif case is None:
            error(number, f"'{key}' before the first '[name]'")
        elif not value:
            error(number, f"'{key}' without a value")
        elif key in ("expect", "reject") and value.startswith("!"):
            error(number, f"'{key}' pattern starts with '!' (the mark of a reject pattern)")
        elif key == "expect":
            case.expect.append(value)
        elif key == "reject":
            case.reject.append(value)
        elif key in case.values:
            error(number, f"'{key}' given twice in [{case.name}] "
                  f"(first on line {case.values[key][1]})")
        else:
            case.values[key] = (value, number)

    seen = {}
    for case in cases:
        check(case, seen, os.path.dirname(path), error)
    if not cases and not errors:
        error(0, "no cases")
    return cases, [text for _, text in sorted(errors, key=lambda e: e[0])]


def check(case, seen, folder, error):
    """The values of one case, each against its key's rule."""
    if case.name in seen:
        error(case.line, f"[{case.name}] again (first on line {seen[case.name]})")
    seen.setdefault(case.name, case.line)
    missing = [k for k in SINGLE if k not in case.values] + ([] if case.expect else ["expect"])
    if missing:
        error(case.line, f"[{case.name}] lacks " + ", ".join(f"'{k} ='" for k in missing))
    value = {k: v for k, (v, _) in case.values.items()}
    at = {k: n for k, (_, n) in case.values.items()}
    emulator = value.get("emulator")
    if emulator is not None and emulator not in EMULATORS:
        error(at["emulator"], f"emulator '{emulator}' is none of {', '.join(EMULATORS)}")
        emulator = None
    for key in ("cpu", "config"):
        if key in value and not WORD.fullmatch(value[key]):
            error(at[key], f"{key} '{value[key]}' must be one word without '|'")
    if "config" in value and WORD.fullmatch(value["config"]) and \
            not os.path.isfile(os.path.join(folder, value["config"])):
        error(at["config"], f"config '{value['config']}' is not a file in {folder or '.'}/")
    if "cpus" in value:
        if not re.fullmatch(r"[1-9][0-9]*", value["cpus"]):
            error(at["cpus"], f"cpus '{value['cpus']}' is not a count of CPUs")
        elif emulator in ("qemu-usb", "bochs-disk") and value["cpus"] != "1":
            error(at["cpus"], f"{emulator} boots with 1 CPU")
    if "status" in value and not (re.fullmatch(r"[0-9]+", value["status"]) and
                                  int(value["status"]) <= 255):
        error(at["status"], f"status '{value['status']}' is not an exit status (0..255)")
    options = value.get("options", "").split()
    if emulator is not None:
        for option in options:
            if option not in OPTIONS[emulator]:
                takes = " ".join(OPTIONS[emulator]) or "none"
                error(at["options"], f"{emulator} has no option '{option}' (it takes: {takes})")
        monitor = [o for o in ("nmi", "mce", "mce-logged", "fb", "refused") if o in options]
        if len(monitor) > 1:
            error(at["options"], " and ".join(monitor)
                  + (" both" if len(monitor) == 2 else " all") + " drive the QEMU monitor: one of them")
    case.options = " ".join(options)


def main(argv):
    if len(argv) != 2:
        print("usage: read-cases.py CASES_FILE", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"{path}:0: cannot read: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 1
    cases, errors = parse(path, text)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    for case in cases:
        v = {k: val for k, (val, _) in case.values.items()}
        print("|".join([case.name, v["emulator"], v["cpu"], v["cpus"], v["config"],
                        str(int(v["status"])), case.options,
                        US.join(case.expect + ["!" + r for r in case.reject])]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
