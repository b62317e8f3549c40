# SPDX-License-Identifier: MIT
"""Logs of the Linux guest for the unit tests of its checks (test_*.py)."""


def run_start(name, init="26.20"):
    """The first lines of a run of the guest's /init."""
    return ["mhv-linux: run %s" % name, "mhv-linux: init reached at %s s" % init]


def mhv_log(*runs, mode="svm", mib=256):
    """As mhv prints a guest's lines: its name as prefix."""
    out = ["mhv: guest vmlinuz: start (%s, %d MiB, 1 vCPU on cpu 0)" % (mode, mib)]
    for r in runs:
        out += ["[vmlinuz] " + line for line in r]
    return "\n".join(out) + "\n"
