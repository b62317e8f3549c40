#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Linux guest (docs/linux-guest.md): a Debian kernel and an initramfs.

    linux-guest.py [OUT [PERF_FUZZ]]   (default build/linux-guest)

Fetches Debian packages with `apt-get download` into a cache outside the
clone ($MHV_CACHE, else ~/.cache/mhv, folder linux-guest/), unpacks them
with `dpkg-deb -x` (never installs them) and writes OUT/vmlinuz (the
bzImage, unmodified) and OUT/initrd.cpio (newc): busybox-static, linux-perf
with the shared libraries its ELF NEEDED entries name (closure over the
unpacked libraries, found through the packages' Depends), coreutils'
dynamically linked sleep as /bin/sleep (perf test 8, "PERF_RECORD_* events
& perf_sample fields", runs `sleep 1` and wants PERF_RECORD_MMAPs of a file
named sleep, of libc and of ld: busybox's sleep is /bin/busybox, static,
and fails it), /init from scripts/linux-guest-init.sh, and PERF_FUZZ (make's static
build of tests/perf-fuzz, the perf_event fuzzer) as /bin/perf-fuzz.

LINUX_IMAGE=PKG picks the kernel package; by default the one the
linux-image-cloud-amd64 meta package depends on.  Without apt or network:
one line saying why and status 0 (a skip), as scripts/build-bochs.sh does.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(
    os.environ.get("MHV_CACHE")
    or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mhv"),
    "linux-guest")
LIB_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64", "lib", "usr/lib")
INTERP = "lib64/ld-linux-x86-64.so.2"


class Skip(Exception):
    pass


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        err = (r.stderr.strip().splitlines() or ["status %d" % r.returncode])[-1]
        raise Skip("%s: %s" % (" ".join(cmd[:3]), err))
    return r.stdout


def depends(pkg):
    """The package's Depends that are real packages (not <virtual> ones)."""
    out = run(["apt-cache", "depends", "--no-recommends", "--no-suggests", pkg])
    deps = []
    for line in out.splitlines():
        m = re.match(r"\s*\|?(Pre)?Depends: (\S+)", line)
        if m and not m.group(2).startswith("<"):
            deps.append(m.group(2).split(":")[0])
    return deps


def fetch(pkg):
    """The package unpacked in the cache: its folder."""
    debs = os.path.join(CACHE, "debs")
    os.makedirs(debs, exist_ok=True)
    found = [f for f in os.listdir(debs) if f.startswith(pkg + "_") and f.endswith(".deb")]
    if not found:
        print("linux-guest: apt-get download %s" % pkg, flush=True)
        run(["apt-get", "download", "-q", pkg], cwd=debs)
        found = [f for f in os.listdir(debs) if f.startswith(pkg + "_") and f.endswith(".deb")]
        if not found:
            raise Skip("apt-get download %s left no .deb" % pkg)
    deb = os.path.join(debs, sorted(found)[-1])
    root = os.path.join(CACHE, "root", os.path.basename(deb)[:-4])
    if not os.path.isdir(root):
        tmp = root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        run(["dpkg-deb", "-x", deb, tmp])
        os.rename(tmp, root)
    return root


def needed(path):
    out = run(["readelf", "-d", "-W", path])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def find_lib(roots, soname):
    for root in roots:
        for d in LIB_DIRS:
            p = os.path.join(root, d, soname)
            if os.path.exists(p):
                return os.path.realpath(p)
    return None


def perf_closure(perf_pkg, perf_root):
    """{soname: file} for every library perf needs, fetching packages on the way."""
    roots, seen, frontier = [], {perf_pkg}, [perf_pkg]
    libs, todo = {}, [os.path.join(perf_root, "usr/bin/perf")]
    while True:
        # one more level of the packages' library dependencies
        nxt = []
        for pkg in frontier:
            for dep in depends(pkg):
                if dep not in seen and (dep.startswith("lib") or dep == "zlib1g"):
                    seen.add(dep)
                    nxt.append(dep)
                    roots.append(fetch(dep))
        frontier = nxt
        missing = []
        while todo:
            for soname in needed(todo.pop()):
                if soname in libs:
                    continue
                path = find_lib(roots, soname)
                if path:
                    libs[soname] = path
                    todo.append(path)
                else:
                    missing.append(soname)
        if not missing:
            # the program interpreter (PT_INTERP) is no NEEDED entry
            interp = find_lib(roots, os.path.basename(INTERP))
            if not interp:
                raise Skip("no package of perf's holds %s" % os.path.basename(INTERP))
            libs[os.path.basename(INTERP)] = interp
            return libs
        if not frontier:
            raise Skip("no package found for %s" % ", ".join(sorted(set(missing))))
        # retry the missing ones against the next level
        todo = [os.path.join(perf_root, "usr/bin/perf")] + list(libs.values())
        libs = {}


class Cpio:
    """A newc archive (the kernel's Documentation/driver-api/early-userspace)."""

    def __init__(self):
        self.out, self.ino = bytearray(), 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(name) + 1, 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.out += hdr + name.encode() + b"\0"
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def dir(self, name):
        self._entry(name, 0o040755)

    def file(self, name, data, mode=0o755):
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name, target):
        self._entry(name, 0o120777, target.encode())

    def chardev(self, name, major, minor):
        self._entry(name, 0o020600, rdev=(major, minor))

    def copy(self, name, path, mode=0o755):
        """The file at path, as name."""
        with open(path, "rb") as f:
            self.file(name, f.read(), mode)

    def bytes(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.out) + b"\0" * (-len(self.out) % 512)


def kernel_root():
    """The kernel package unpacked: LINUX_IMAGE, else the cloud flavour's."""
    for tool in ("apt-get", "apt-cache", "dpkg-deb", "readelf"):
        if not shutil.which(tool):
            raise Skip("no %s (a Debian host with binutils builds it)" % tool)
    kpkg = os.environ.get("LINUX_IMAGE")
    if not kpkg:
        kpkg = next((d for d in depends("linux-image-cloud-amd64")
                     if d.startswith("linux-image-")), None)
        if not kpkg:
            raise Skip("apt-cache knows no linux-image-cloud-amd64 (apt-get update?)")
    return kpkg, fetch(kpkg)


def busybox_base(dirs):
    """A Cpio with dirs, /dev/console and busybox-static as /bin/sh."""
    bbroot = fetch("busybox-static")
    c = Cpio()
    for d in dirs:
        c.dir(d)
    # the kernel opens /dev/console for init's stdio before anything mounts /dev
    c.chardev("dev/console", 5, 1)
    c.copy("bin/busybox", os.path.join(bbroot, "bin/busybox"))
    c.symlink("bin/sh", "busybox")
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/linux-guest"
    fuzz = sys.argv[2] if len(sys.argv) > 2 else None
    if fuzz and not os.path.isfile(fuzz):
        sys.exit("linux-guest: %s: no such file (the perf_event fuzzer: make %s)" % (fuzz, fuzz))
    kpkg, kroot = kernel_root()
    vmlinuz = [f for f in os.listdir(os.path.join(kroot, "boot")) if f.startswith("vmlinuz-")]
    if len(vmlinuz) != 1:
        raise Skip("%s holds %d vmlinuz files" % (kpkg, len(vmlinuz)))
    perf_root = fetch("linux-perf")
    libs = perf_closure("linux-perf", perf_root)
    sleep = os.path.join(fetch("coreutils"), "bin/sleep")
    if not os.path.exists(sleep):
        raise Skip("coreutils holds no bin/sleep")
    missing = [so for so in needed(sleep) if so not in libs]
    if missing:
        raise Skip("coreutils' sleep needs %s, which perf does not" % ", ".join(missing))

    c = busybox_base(("bin", "sbin", "usr", "usr/bin", "usr/sbin", "lib", "lib64",
                      "lib/x86_64-linux-gnu", "dev", "proc", "sys", "tmp", "root"))
    # before init's busybox --install -s, which leaves an existing file be
    with open(sleep, "rb") as f:
        c.file("bin/sleep", f.read())
    with open(os.path.join(perf_root, "usr/bin/perf"), "rb") as f:
        c.file("usr/bin/perf", f.read())
    for soname, path in sorted(libs.items()):
        with open(path, "rb") as f:
            c.file("lib/x86_64-linux-gnu/" + soname, f.read())
    c.symlink(INTERP, "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
    with open(os.path.join(HERE, "linux-guest-init.sh"), "rb") as f:
        c.file("init", f.read())
    if fuzz:
        c.copy("bin/perf-fuzz", fuzz)

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "initrd.cpio.tmp"), "wb") as f:
        f.write(c.bytes())
    os.replace(os.path.join(out, "initrd.cpio.tmp"), os.path.join(out, "initrd.cpio"))
    shutil.copyfile(os.path.join(kroot, "boot", vmlinuz[0]), os.path.join(out, "vmlinuz"))
    print("linux-guest: %s/vmlinuz (%s), %s/initrd.cpio (%d KiB: busybox, perf, sleep, "
          "%d libraries%s)" %
          (out, vmlinuz[0], out, os.path.getsize(os.path.join(out, "initrd.cpio")) >> 10,
           len(libs), ", perf-fuzz" if fuzz else ""))


if __name__ == "__main__":
    try:
        main()
    except Skip as e:
        print("linux-guest: skipped: %s" % e)
