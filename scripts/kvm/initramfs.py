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


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    kvm_side, guests, out = sys.argv[1:]
    kpkg = os.environ.get("LINUX_IMAGE")
    if not kpkg:
        kpkg = next((d for d in lg.depends("linux-image-cloud-amd64")
                     if d.startswith("linux-image-")), None)
        if not kpkg:
            raise lg.Skip("apt-cache knows no linux-image-cloud-amd64 (apt-get update?)")
    kroot = lg.fetch(kpkg)
    mods = kernel_modules(kroot)
    bbroot = lg.fetch("busybox-static")
    c = lg.Cpio()
    for d in ("bin", "sbin", "dev", "proc", "sys", "tmp", "lib", "lib/modules", "guest"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    with open(os.path.join(bbroot, "bin/busybox"), "rb") as f:
        c.file("bin/busybox", f.read())
    c.symlink("bin/sh", "busybox")
    with open(kvm_side, "rb") as f:
        c.file("bin/mhv-kvm", f.read())
    for suite in SUITES:
        with open(os.path.join(guests, suite + ".bin"), "rb") as f:
            c.file("guest/%s.bin" % suite, f.read(), 0o644)
    for name, path in sorted(mods.items()):
        with open(path, "rb") as f:
            c.file("lib/modules/%s.ko" % name, f.read(), 0o644)
    with open(os.path.join(HERE, "init.sh"), "rb") as f:
        c.file("init", f.read())
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, "initrd.cpio.tmp")
    with open(tmp, "wb") as f:
        f.write(c.bytes())
    os.replace(tmp, os.path.join(out, "initrd.cpio"))
    print("kvm-guest: %s/initrd.cpio (%d KiB: busybox, mhv-kvm, %s)" %
          (out, os.path.getsize(os.path.join(out, "initrd.cpio")) >> 10,
           ", ".join(sorted(mods))))


if __name__ == "__main__":
    try:
        main()
    except lg.Skip as e:
        print("kvm-guest: skipped: %s" % e)
