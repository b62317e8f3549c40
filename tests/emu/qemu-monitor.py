#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive a running QEMU through its HMP monitor socket once its serial log
shows a line: inject an NMI, take a screendump, ...

    qemu-monitor.py SOCKET SERIAL_LOG REGEX COMMAND [COMMAND ...]

Waits (up to 150 s) for REGEX in SERIAL_LOG, then sends each COMMAND.
"screendump PATH" waits until PATH is complete.  Exit status 0 when every
command was sent, 1 with a one-line reason otherwise."""
import os
import re
import socket
import sys
import time


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.2)
    sys.exit(f"qemu-monitor: timed out waiting for {what}")


def log_has(path, regex):
    try:
        with open(path, "rb") as f:
            return re.search(regex.encode(), f.read()) is not None
    except FileNotFoundError:
        return False


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sock_path, log, regex, commands = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    wait_for(lambda: log_has(log, regex), 150, f"/{regex}/ in {log}")
    wait_for(lambda: os.path.exists(sock_path), 10, f"monitor socket {sock_path}")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    s.settimeout(5)
    for cmd in commands:
        s.sendall(cmd.encode() + b"\n")
        time.sleep(0.5)
        if cmd.startswith("screendump "):
            path = cmd.split()[1]
            wait_for(lambda: os.path.exists(path) and os.path.getsize(path) > 15, 20,
                     f"screendump {path}")
            time.sleep(0.5)
    s.close()


if __name__ == "__main__":
    main()
