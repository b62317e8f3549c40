#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the body of an ACPI SPCR table for QEMU's -acpitable.

    spcr.py OUT PORT CLOCK_HZ

QEMU adds the 36-byte header itself (-acpitable sig=SPCR,rev=3,data=OUT);
OUT holds the rest of a revision 3 table (Microsoft's "Serial Port Console
Redirection Table" specification): a full 16550 (interface type 0) at I/O
port PORT, 115200 8N1, no flow control, its UART clock CLOCK_HZ at offset
76 (revision 3's field)."""
import struct
import sys


def body(port, clock_hz):
    gas = struct.pack("<BBBBQ", 1, 8, 0, 1, port)  # system I/O, 8-bit, byte access
    b = struct.pack("<B3x", 0) + gas                # interface type 0: full 16550
    b += struct.pack("<BBIBBBBBB", 1, 3, 0,         # 8259 interrupt, IRQ 3, GSI 0
                     7, 0, 1, 0, 0, 0)              # 115200, no parity, 1 stop, VT100
    b += struct.pack("<HHBBBIB", 0xffff, 0xffff, 0, 0, 0, 0, 0)  # not a PCI device
    b += struct.pack("<I", clock_hz)
    assert len(b) == 80 - 36
    return b


if __name__ == "__main__":
    out, port, clock = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
    with open(out, "wb") as f:
        f.write(body(port, clock))
