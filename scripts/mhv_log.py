# SPDX-License-Identifier: MIT
"""Reading mhv console logs: the MHV-JSON measurement lines in them.

Used by mhv-report.  A log with MHV-JSON lines is complete when an
`mhv: finished:` line (hv_finish) follows the last of them; one without it,
or whose last line is a cut-off MHV-JSON line, is truncated.

Both are read only at the start of a line: there no guest can write them
(a guest's console lines start "[its name] ", and guest text inside mhv's
own lines cannot hold a line break), so a guest cannot forge a
measurement or finish a truncated log.
"""
import json
import sys

PROG = "mhv-report"
STDIN = "-"
FINISHED = "mhv: finished:"
# the KVM side's closing line (scripts/kvm/mhv-kvm.c)
FINISHED_KVM = "mhv-kvm: finished:"
PREFIX = "MHV-JSON "
KEYS = ("suite", "test", "config", "env", "backend")
STATS = ("iterations", "batches", "min", "median", "p99", "mean", "stddev", "max")


class ReportError(Exception):
    """A problem with an input file, located as PATH:LINE."""

    def __init__(self, path, line, what):
        super().__init__(f"{path}:{line}: {what}")


# ---- parsing ----

def parse_record(path, lineno, text):
    """One MHV-JSON payload -> measurement dict (with log and line)."""
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(path, lineno, f"malformed MHV-JSON: {e.msg} (JSON column {e.colno})")
    if not isinstance(rec, dict):
        raise ReportError(path, lineno, "malformed MHV-JSON: not an object")
    wanted = KEYS + (("skipped",) if "skipped" in rec else ("unit",))
    for key in wanted:
        if not isinstance(rec.get(key), str):
            raise ReportError(path, lineno, f"MHV-JSON record lacks string field '{key}'")
    if "skipped" not in rec:
        for key in STATS:
            value = rec.get(key)
            if type(value) is not int or value < 0:
                raise ReportError(path, lineno,
                                  f"MHV-JSON record lacks non-negative integer '{key}'")
    rec["log"], rec["line"] = path, lineno
    return rec


def warn(text):
    print(f"{PROG}: warning: {text}", file=sys.stderr)


def truncated(path, lineno, why, allow):
    """Raise the truncation error, or with allow just warn about it."""
    err = ReportError(path, lineno, f"log is truncated ({why})")
    if not allow:
        raise err
    warn(err)


def parse_log(path, text, allow_truncated=False):
    """All measurements in a console log's text, in order."""
    lines = text.split("\n")
    last = max([i for i, line in enumerate(lines, 1) if line.strip()] + [0])
    found, finished = [], 0
    for lineno, line in enumerate(lines, 1):
        line = line.lstrip("\r")
        if line.startswith(FINISHED) or line.startswith(FINISHED_KVM):
            finished = lineno
        if not line.startswith(PREFIX):
            continue
        payload = line[len(PREFIX):].strip()
        if lineno == last and not is_json(payload):
            truncated(path, lineno, "last MHV-JSON line is cut off", allow_truncated)
            return found
        found.append(parse_record(path, lineno, payload))
    if found and finished < found[-1]["line"]:
        truncated(path, last, f"no '{FINISHED}' line after the last MHV-JSON line",
                  allow_truncated)
    return found


def is_json(text):
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def read_input(path):
    """The bytes of a file, or of stdin for '-'; (name for messages, data)."""
    if path == STDIN:
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return path, f.read()
    except OSError as e:
        raise ReportError(path, 0, f"cannot read: {e.strerror}")


def load_log(path, allow_truncated=False):
    """Read a log; its measurements (at least one)."""
    name, data = read_input(path)
    found = parse_log(name, data.decode("utf-8", errors="replace"), allow_truncated)
    if not found:
        raise ReportError(name, 0, "no MHV-JSON lines found")
    return found
