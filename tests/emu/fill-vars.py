#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill an OVMF variable store file so that a few KiB are left free.

  fill-vars.py IN OUT FREE      FREE: bytes the store keeps free (before OVMF's own)

The store (an EDK2 firmware volume holding a VARIABLE_STORE_HEADER, then
authenticated variables: EDK2 MdeModulePkg/Include/Guid/VariableFormat.h)
gets "MhvTestFillNN" variables of another vendor's GUID, each below the
firmware's largest variable, appended after the last one there.  For
tests/emu/keep-log-small.sh: a small variable store under QEMU.
"""
import struct
import sys

VAR_HEADER = 60  # AUTHENTICATED_VARIABLE_HEADER
STORE_HEADER = 28  # VARIABLE_STORE_HEADER
FILL_GUID = bytes.fromhex("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
CHUNK = 30000


def main():
    src, dst, free = sys.argv[1], sys.argv[2], int(sys.argv[3])
    d = bytearray(open(src, "rb").read())
    if d[0x28:0x2C] != b"_FVH":
        sys.exit(f"fill-vars: {src}: no firmware volume header")
    store = struct.unpack_from("<H", d, 0x30)[0]
    size = struct.unpack_from("<I", d, store + 16)[0]
    off = store + STORE_HEADER
    while struct.unpack_from("<H", d, off)[0] == 0x55AA:
        name_size, data_size = struct.unpack_from("<II", d, off + 36)
        off = (off + VAR_HEADER + name_size + data_size + 3) & ~3
    end = store + size
    n = 0
    while end - off > free + VAR_HEADER + 64:
        name = f"MhvTestFill{n:02d}\0".encode("utf-16le")
        data_size = min(CHUNK, end - off - free - VAR_HEADER - len(name))
        hdr = struct.pack("<HBBIQ16sIII16s", 0x55AA, 0x3F, 0, 0x7, 0, bytes(16), 0,
                          len(name), data_size, FILL_GUID)
        var = hdr + name + bytes(data_size)
        d[off:off + len(var)] = var
        off = (off + len(var) + 3) & ~3
        n += 1
    open(dst, "wb").write(d)
    print(f"fill-vars: {n} variables, {end - off} of {size - STORE_HEADER} bytes free")


main()
