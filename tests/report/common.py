# SPDX-License-Identifier: MIT
"""Shared helpers of the scripts/mhv-report tests (tests/report/test_*.py)."""
import importlib.machinery
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "mhv-report")
FINISHED = "mhv: finished: status pass (0x10), exit action qemu-exit"

sys.dont_write_bytecode = True
_loader = importlib.machinery.SourceFileLoader("mhv_report", SCRIPT)
report = importlib.util.module_from_spec(importlib.util.spec_from_loader("mhv_report", _loader))
_loader.exec_module(report)

SVG = "{http://www.w3.org/2000/svg}"


def fixture(name):
    return os.path.join(FIXTURES, name)


def run(*args, stdin=None):
    """Run mhv-report (stdin: bytes or None); (exit status, stdout, stderr)."""
    p = subprocess.run([SCRIPT, *args], input=stdin, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def record(test, median=100, config="default", suite="vmexit", env="qemu-tcg", **extra):
    """A measurement line as mhv prints it."""
    rec = {"suite": suite, "test": test, "config": config, "env": env, "backend": "svm",
           "unit": "tsc", "iterations": 10, "batches": 2, "min": median - 1,
           "median": median, "p99": median + 1, "mean": median, "stddev": 1,
           "max": median + 1}
    rec.update(extra)
    return "MHV-JSON " + json.dumps(rec, separators=(",", ":"))


class TempLogs(unittest.TestCase):
    """A test case with a scratch directory for synthesized logs."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, lines, newline="\n", complete=True):
        """A log of lines, by default ending like a finished run."""
        path = os.path.join(self.tmp.name, name)
        if complete:
            lines = list(lines) + [FINISHED.encode() if isinstance(newline, bytes) else FINISHED]
        data = newline.join(lines) + newline
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    def table(self, out):
        """Gain table rows (after the title) split into cells, by test."""
        rows = [line.split() for line in out.splitlines()[2:] if "only in" not in line]
        return {row[0]: row[1:] for row in rows}


def read_png(path):
    """(width, height, RGB rows as bytes) of a PNG as mhv_png writes it."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    chunks, at = {}, 8
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        assert struct.unpack(">I", data[at + 8 + size:at + 12 + size])[0] == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + size
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, color) == (8, 2)
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = 1 + width * 3
    assert len(raw) == stride * height
    rows = [raw[y * stride:(y + 1) * stride] for y in range(height)]
    assert all(row[0] == 0 for row in rows)  # filter type None
    return width, height, [row[1:] for row in rows]


def pixel(rows, x, y):
    return tuple(rows[y][x * 3:x * 3 + 3])
