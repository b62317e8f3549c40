#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The KVM side inside an emulator: an initramfs for the Linux guest's kernel.

    initramfs.py KVM_SIDE GUEST_DIR OUT      (make kvm-guest)

Debian's kernel of `make linux-guest` (the same package, from the same
cache, fetched with apt-get download as scripts/linux-guest.py does, never
installed) with its own KVM modules (irqbypass, kvm, kvm-amd, kvm-intel,
and ccp where kvm-amd depends on it), busybox-static, the static mhv-kvm
program and mhv's guest images; /init is scripts/kvm/init.sh.  Writes
OUT/initrd.cpio; the kernel stays build/linux-guest/vmlinuz.  Without apt
or network: one line saying why and status 0 (a skip), as linux-guest.py.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("linux_guest",
                                              os.path.join(HERE, "..", "linux-guest.py"))
lg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lg)

MODULES = ("irqbypass", "kvm", "ccp", "kvm-amd", "kvm-intel")
SUITES = ("vmexit", "xstate", "pmu")


def module_depends(path):
    """The depends= of a .ko's modinfo section."""
    with open(path, "rb") as f:
        m = re.search(rb"\0depends=([^\0]*)\0", b"\0" + f.read())
    return [d for d in (m.group(1).decode().split(",") if m else []) if d]


def kernel_modules(kroot):
    """{name: path} of the KVM modules and what they depend on."""
    found = {}
    for dirpath, _, files in os.walk(os.path.join(kroot, "lib", "modules")):
        for f in files:
            name = f[:-3] if f.endswith(".ko") else None
            if name in MODULES:
                found[name] = os.path.join(dirpath, f)
    for need in ("kvm", "kvm-amd", "kvm-intel"):
        if need not in found:
            raise lg.Skip("the kernel package has no %s.ko" % need)
    wanted = {}
    todo = ["kvm-amd", "kvm-intel"]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        if name.replace("_", "-") not in found and name not in found:
            raise lg.Skip("%s.ko needed but not in the kernel package" % name)
        key = name if name in found else name.replace("_", "-")
        wanted[key] = found[key]
        todo += module_depends(found[key])
    return wanted


def write_initrd(c, init, out):
    """Ends archive c with /init (scripts/kvm/INIT) and the functions it
    sources, and writes it whole as OUT/initrd.cpio; its size in KiB."""
    c.copy("bin/init-lib.sh", os.path.join(HERE, "init-lib.sh"), 0o644)
    c.copy("init", os.path.join(HERE, init))
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, "initrd.cpio.tmp")
    with open(tmp, "wb") as f:
        f.write(c.bytes())
    os.replace(tmp, os.path.join(out, "initrd.cpio"))
    return os.path.getsize(os.path.join(out, "initrd.cpio")) >> 10


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    kvm_side, guests, out = sys.argv[1:]
    _, kroot = lg.kernel_root()
    mods = kernel_modules(kroot)
    c = lg.busybox_base(("bin", "sbin", "dev", "proc", "sys", "tmp", "lib", "lib/modules",
                         "guest"))
    c.copy("bin/mhv-kvm", kvm_side)
    for suite in SUITES:
        c.copy("guest/%s.bin" % suite, os.path.join(guests, suite + ".bin"), 0o644)
    for name, path in sorted(mods.items()):
        c.copy("lib/modules/%s.ko" % name, path, 0o644)
    kib = write_initrd(c, "init.sh", out)
    print("kvm-guest: %s/initrd.cpio (%d KiB: busybox, mhv-kvm, %s)" %
          (out, kib, ", ".join(sorted(mods))))


if __name__ == "__main__":
    try:
        main()
    except lg.Skip as e:
        print("kvm-guest: skipped: %s" % e)
