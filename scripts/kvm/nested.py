#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mhv under nested KVM inside an emulator: the L0 host's initramfs.

    nested.py EFI CONFIG OUT [ESP_FILE...]      (make kvm-nested)

Debian's kernel of `make linux-guest` (L0) with its own KVM modules, as
scripts/kvm/initramfs.py packs them; this machine's Debian
qemu-system-x86_64 with every shared library its ELF NEEDED entries name
(closed over, found where the dynamic loader finds them here) and the two
files it opens besides (kvmvapic.bin, the VGA BIOS); Debian's OVMF
(OVMF_CODE_4M.fd, OVMF_VARS_4M.fd); scripts/run-qemu.sh, the script `make
run ACCEL=kvm` runs, unchanged; mhv's BOOTX64.EFI (L1), its CONFIG as
/mhv/mhv.cfg and every ESP_FILE (a kvm-unit-tests binary mhv runs as L2)
under /mhv.  /init is scripts/kvm/nested-init.sh.  Writes
OUT/initrd.cpio; the kernel stays build/linux-guest/vmlinuz.  Without apt,
network or QEMU: one line saying why and status 0 (a skip), as
linux-guest.py.
"""
import os
import shutil
import sys

from initramfs import kernel_modules, lg, write_initrd

HERE = os.path.dirname(os.path.abspath(__file__))
QEMU = "qemu-system-x86_64"
OVMF = ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd")
# what QEMU opens besides its libraries with run-qemu.sh's q35 machine
# (strace -e openat of that command line): the VGA device's BIOS and the
# KVM TPR-patching option ROM, both looked up relative to the binary
QEMU_DATA = ("usr/share/qemu/kvmvapic.bin", "usr/share/seabios/vgabios-stdvga.bin")


def qemu_closure(qemu):
    """{path in the archive: host file} for QEMU's libraries."""
    files, todo, seen = {}, [qemu], set()
    while todo:
        for soname in lg.needed(todo.pop()):
            if soname in seen:
                continue
            seen.add(soname)
            path = lg.find_lib(["/"], soname)
            if not path:
                raise lg.Skip("%s needs %s, not found on this machine" % (QEMU, soname))
            files["lib/x86_64-linux-gnu/" + soname] = path
            todo.append(path)
    interp = "/" + lg.INTERP
    if not os.path.exists(interp):
        raise lg.Skip("no %s on this machine" % interp)
    files[lg.INTERP] = os.path.realpath(interp)
    return files


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    efi, config, out = sys.argv[1:4]
    extra = sys.argv[4:]
    for f in extra:
        if not os.path.exists(f):
            raise lg.Skip("no %s (make kut)" % f)
    qemu = shutil.which(QEMU)
    if not qemu:
        raise lg.Skip("no %s here (apt-get install qemu-system-x86)" % QEMU)
    for f in OVMF + tuple("/" + d for d in QEMU_DATA):
        if not os.path.exists(f):
            raise lg.Skip("no %s here (apt-get install ovmf qemu-system-x86)" % f)
    _, kroot = lg.kernel_root()
    mods = kernel_modules(kroot)
    c = lg.busybox_base(("bin", "sbin", "dev", "proc", "sys", "tmp", "var", "var/tmp", "lib",
                         "lib/modules", "lib64", "lib/x86_64-linux-gnu", "usr", "usr/bin",
                         "usr/share", "usr/share/qemu", "usr/share/seabios", "usr/share/OVMF",
                         "mhv"))
    for name, path in sorted(mods.items()):
        c.copy("lib/modules/%s.ko" % name, path, 0o644)
    c.copy("usr/bin/" + QEMU, qemu)
    for name, path in sorted(qemu_closure(qemu).items()):
        c.copy(name, path)
    for d in QEMU_DATA:
        c.copy(d, "/" + d, 0o644)
    for f in OVMF:
        c.copy(f.lstrip("/"), f, 0o644)
    c.copy("bin/run-qemu.sh", os.path.join(HERE, "..", "run-qemu.sh"))
    c.copy("mhv/BOOTX64.EFI", efi, 0o644)
    c.copy("mhv/mhv.cfg", config, 0o644)
    for f in extra:
        c.copy("mhv/" + os.path.basename(f), f, 0o644)
    kib = write_initrd(c, "nested-init.sh", out)
    print("kvm-nested: %s/initrd.cpio (%d KiB: busybox, %s, QEMU and its libraries, OVMF, mhv)" %
          (out, kib, ", ".join(sorted(mods))))


if __name__ == "__main__":
    try:
        main()
    except lg.Skip as e:
        print("kvm-nested: skipped: %s" % e)
