#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run kvm-unit-tests' x86_64 tests on a bare emulator and as mhv guests.

    run.py --env qemu|bochs-vmx|bochs-svm [--kut DIR] [--efi BOOTX64.EFI]
           [--bochs PATH] [--tests PATTERNS] [--jobs N] [--max-time S]
           [--only bare|mhv] [--out DIR]

Reads KUT's own x86/unittests.cfg from its build (DIR, default
build/kut/obj) and, for each x86_64 test KUT would run by default, boots

  bare  the .flat without mhv: QEMU -kernel as KUT's x86/run does (with
        -cpu max), Bochs through a GRUB rescue CD (`multiboot` + `boot`);
  mhv   BOOTX64.EFI with an mhv.cfg naming the .flat as its one guest
        (its test_args as cmdline, its smp as cpus), on the same emulator.

Tests that reduce to the same boot (e.g. KUT's x2apic and xapic differ only
in -cpu, which -cpu max replaces) run once.  A test's verdict: QEMU's exit
status from KUT's exit port (0 pass, 77 >> 1 skip, else fail); on bare Bochs,
which has no exit port, its SUMMARY line; under mhv, mhv's "exit code" line
(38 = 77 >> 1 is a skip).  Logs and the table (results-ENV.md) go to
OUT/ENV/ and OUT/; the table is printed too.  Exits 0 whatever the tests
do: this is a report, not a gate (README: kvm-unit-tests)."""
import argparse
import concurrent.futures
import fnmatch
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ENVS = {
    "qemu": {"emu": "qemu", "cpu": "max", "label": "QEMU TCG -cpu max (SVM)"},
    "bochs-vmx": {"emu": "bochs", "cpu": "corei7_skylake_x", "label": "Bochs corei7_skylake_x (VMX)"},
    "bochs-svm": {"emu": "bochs", "cpu": "ryzen", "label": "Bochs ryzen (SVM)"},
}
# Seconds from power-on to the guest's first instruction under mhv (OVMF,
# mhv's own start-up) and to the kernel on bare Bochs (BIOS, GRUB): added to
# the emulator's timeout on top of the test's own limit.
BOOT_SLACK = {"qemu": {"bare": 10, "mhv": 60}, "bochs": {"bare": 120, "mhv": 300}}
# Bochs' clock follows its instruction count (ips=50000000, sync=none), so a
# guest second costs more or less than one on the wall depending on the load.
WALL_PER_GUEST_SECOND = {"qemu": 1, "bochs": 3}
DEFAULT_MEM = 128  # MiB: QEMU's default, which KUT runs with
MAX_MHV_MEM = 1024  # MiB: what fits an emulated host beside mhv's own pool
REPORT_RE = re.compile(r"^(PASS|FAIL|SKIP|XFAIL|XPASS|KFAIL): ")
SUMMARY_RE = re.compile(r"^SUMMARY: (\d+) tests(?:, (\d+) unexpected failures)?.*?(?:, (\d+) skipped)?$")


class Test:
    def __init__(self, name):
        self.name = name
        self.file = ""
        self.smp = 1
        self.args = []
        self.qemu_params = ""
        self.arch = ""
        self.groups = []
        self.accel = ""
        self.timeout = 90
        self.same_as = None  # the test whose boot this one shares


def shell_words(text):
    """The words sh makes of @text (KUT evals test_args: quotes, backticks)."""
    out = subprocess.run(["sh", "-c", 'for w in ' + text + '; do printf "%s\\0" "$w"; done'],
                         capture_output=True, text=True, check=True).stdout
    return [w for w in out.split("\0") if w]


def seconds(text):
    m = re.fullmatch(r"(\d+)([smh]?)", text.strip())
    if not m:
        return 90
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def read_unittests(path):
    tests, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r"\[(.+)\]", line)
            if m:
                cur = Test(m.group(1))
                tests.append(cur)
                continue
            m = re.fullmatch(r"(\w+)\s*=\s*(.*)", line)
            if not m or cur is None:
                continue
            key, val = m.group(1), m.group(2).strip()
            if key == "file":
                cur.file = val
            elif key == "smp":
                cur.smp = int(val)
            elif key in ("test_args", "extra_params"):
                words = shell_words(val)
                if key == "extra_params" and words[:1] == ["-append"]:
                    words = words[1:]
                cur.args = words
            elif key == "qemu_params":
                cur.qemu_params = val
            elif key == "arch":
                cur.arch = val
            elif key == "groups":
                cur.groups = val.split()
            elif key == "accel":
                cur.accel = val
            elif key == "timeout":
                cur.timeout = seconds(val)
    return tests


def not_run_reason(t, env):
    """Why KUT's default run would not boot @t here, or None."""
    if "nodefault" in t.groups:
        return "nodefault (KUT runs it only when asked)"
    for needs in ("-cpu host", "hv_passthrough", "-enable-kvm"):
        if needs in t.qemu_params:
            return "needs KVM (%s)" % needs
    if ENVS[env]["emu"] == "qemu" and t.accel == "kvm":
        return "accel = kvm (KUT skips it under TCG)"
    return None


def qemu_params_bare(t):
    """The test's qemu_params without -cpu (-cpu max replaces it)."""
    words, out, i = shlex.split(t.qemu_params), [], 0
    while i < len(words):
        if words[i] == "-cpu":
            i += 2
            continue
        out.append(words[i])
        i += 1
    return out


def mem_mib(t):
    words = shlex.split(t.qemu_params)
    for i, w in enumerate(words[:-1]):
        if w == "-m":
            m = re.fullmatch(r"(\d+)([MmGg]?)", words[i + 1])
            if m:
                return int(m.group(1)) * (1024 if m.group(2).lower() == "g" else 1)
    return DEFAULT_MEM


class Result:
    def __init__(self, verdict, why="", counts=None, secs=0.0, first=""):
        self.verdict = verdict  # pass, skip, fail
        self.why = why  # exit code, stop reason
        self.counts = counts or {}
        self.secs = secs
        self.first = first  # the first FAIL line, or where it stopped

    def cell(self):
        if self.verdict == "not run":
            return "—"
        s = "%s %d" % (self.verdict, self.counts.get("PASS", 0))
        if self.counts.get("FAIL"):
            s += " (%d FAIL)" % self.counts["FAIL"]
        if self.verdict == "fail" and self.why and not self.counts.get("FAIL"):
            s += " (%s)" % self.why
        return s


def count_reports(lines):
    counts = {}
    for line in lines:
        m = REPORT_RE.match(line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


def first_failure(lines):
    for line in lines:
        if line.startswith(("FAIL:", "ABORT:", "Unhandled ")) or "assert failed" in line:
            # an assert names its source file by the build's absolute path
            return re.sub(r"/\S*/((?:x86|lib)/)", r"\1", line)
    return ""


def last_line(lines):
    """The guest's last words (not the emulator's own complaint)."""
    for line in reversed(lines):
        if line.strip() and not line.startswith("qemu-system-"):
            return line.strip()
    return ""


def run_cmd(cmd, log, timeout, cwd=None):
    """Run @cmd niced, stdout+stderr to @log; (status, seconds)."""
    start = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.run(["nice", "timeout", "-k", "5", str(timeout)] + cmd, stdout=out,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)
    return p.returncode, time.monotonic() - start


def read_lines(log):
    with open(log, errors="replace") as f:
        return [line.rstrip("\r\n") for line in f]


class Runner:
    def __init__(self, args):
        self.a = args
        self.env = ENVS[args.env]
        self.emu = self.env["emu"]
        self.logs = os.path.join(args.out, args.env)
        os.makedirs(self.logs, exist_ok=True)

    # ---- bare emulator ----
    def bare(self, t):
        limit = min(t.timeout, self.a.max_time)
        log = os.path.join(self.logs, t.name + ".bare.log")
        flat = os.path.join(self.a.kut, "x86", t.file)
        if self.emu == "qemu":
            # x86/run: -nodefaults, its test devices, the exit port, -kernel.
            cmd = ["qemu-system-x86_64", "--no-reboot", "-nodefaults", "-display", "none",
                   "-serial", "stdio", "-device", "pc-testdev",
                   "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4", "-device", "pci-testdev",
                   "-machine", "accel=tcg", "-kernel", flat, "-smp", str(t.smp), "-cpu", "max"]
            cmd += qemu_params_bare(t)
            if t.args:
                cmd += ["-append", " ".join(t.args)]
            st, secs = run_cmd(cmd, log, limit + BOOT_SLACK["qemu"]["bare"])
            lines = read_lines(log)
            return self.judge_qemu_exit(st, lines, secs, limit, kut=True)
        mem = min(mem_mib(t), MAX_MHV_MEM)
        with tempfile.TemporaryDirectory() as work:
            iso = self.grub_iso(work, flat, t.args, t.smp, mem)
            com1 = os.path.join(work, "com1.txt")
            outer = WALL_PER_GUEST_SECOND["bochs"] * limit + BOOT_SLACK["bochs"]["bare"]
            cmd = ["sh", "scripts/run-bochs.sh", "--bochs", self.a.bochs, "--cpu", self.env["cpu"],
                   "--cpus", str(t.smp), "--megs", str(mem), "--com1", com1, "--exit-port",
                   "--timeout", str(outer), "--cdrom", iso]
            st, secs = run_cmd(cmd, log + ".bochs", outer + 30)
            shutil.copy(com1, log) if os.path.exists(com1) else open(log, "w").close()
        lines = read_lines(log)
        counts = count_reports(lines)
        first = first_failure(lines)
        if st == 124:
            return Result("fail", "timeout %ds" % limit, counts, secs, first or last_line(lines))
        for line in read_lines(log + ".bochs"):
            m = re.match(r"run-bochs: exit port 0xf4: (0x[0-9a-f]+)", line)
            if m:
                code = int(m.group(1), 16)
                if code == 0:
                    return Result("pass", "", counts, secs, first)
                if code == 77 >> 1:
                    return Result("skip", "", counts, secs, first)
                return Result("fail", "exit code %d" % code, counts, secs,
                              first or last_line(lines))
        for line in reversed(lines):
            m = SUMMARY_RE.match(line)
            if m:
                tests, fails, skipped = (int(g or 0) for g in m.groups())
                if fails:
                    return Result("fail", "%d failures" % fails, counts, secs, first)
                if tests == skipped:
                    return Result("skip", "", counts, secs, first)
                return Result("pass", "", counts, secs, first)
        return Result("fail", "no SUMMARY (Bochs status %d)" % st, counts, secs,
                      first or last_line(lines))

    def grub_iso(self, work, flat, args, smp, mem):
        root = os.path.join(work, "iso")
        os.makedirs(os.path.join(root, "boot", "grub"))
        shutil.copy(flat, root)
        name = os.path.basename(flat)
        # Bochs' fw_cfg cannot run beside its legacy BIOS (it locks
        # IA32_FEATURE_CONTROL, which the BIOS then writes): the CPU count
        # and RAM size come from KUT's environment instead, a multiboot
        # module as KUT's own scripts pass it where there is no fw_cfg.
        with open(os.path.join(root, "environ"), "w") as f:
            f.write("NR_CPUS=%d\nMEMSIZE=%d\n" % (smp, mem))
        with open(os.path.join(root, "boot", "grub", "grub.cfg"), "w") as f:
            # KUT takes the first word of its command line as the program
            # name, as QEMU -kernel and mhv pass it; GRUB passes only the
            # words after the file.
            f.write("multiboot /%s %s\nmodule /environ\nboot\n" % (name, " ".join([name] + args)))
        iso = os.path.join(work, "kut.iso")
        subprocess.run(["grub-mkrescue", "-o", iso, root], check=True, capture_output=True)
        return iso

    def judge_qemu_exit(self, st, lines, secs, limit, kut):
        counts, first = count_reports(lines), first_failure(lines)
        if st == 124:
            return Result("fail", "timeout %ds" % limit, counts, secs, first or last_line(lines))
        if st == 0:
            return Result("fail", "reset or triple fault", counts, secs, first or last_line(lines))
        if st & 1 == 0:
            return Result("fail", "QEMU status %d" % st, counts, secs, first or last_line(lines))
        code = st >> 1
        if code == 0:
            return Result("pass", "", counts, secs, first)
        if code == 77 >> 1:
            return Result("skip", "", counts, secs, first)
        return Result("fail", "exit code %d" % code, counts, secs, first or last_line(lines))

    # ---- mhv ----
    def mhv(self, t, bare):
        # Stop a guest well after the time the same binary took bare, not
        # after KUT's generous default.
        limit = min(t.timeout, self.a.max_time)
        if bare and bare.verdict != "not run" and not bare.why.startswith("timeout"):
            limit = min(limit, max(20, math.ceil(3 * bare.secs) + 15))
        log = os.path.join(self.logs, t.name + ".mhv.log")
        cfg = os.path.join(self.logs, t.name + ".mhv.cfg")
        flat = os.path.join(self.a.kut, "x86", t.file)
        mem = min(mem_mib(t), MAX_MHV_MEM)
        with open(cfg, "w") as f:
            f.write("# kvm-unit-tests %s (tests/kut/run.py)\n" % t.name)
            f.write("exit_action = qemu-exit\n")
            if self.emu == "bochs":
                f.write("debugcon = on\n")
            f.write("suites = none\n")
            f.write("guest = \\%s\n" % t.file)
            f.write('cmdline = "%s"\n' % " ".join([t.file] + t.args))
            f.write("cpus = %d\nmem = %d\ntime_limit = %d\n" % (t.smp, mem, limit))
        outer = WALL_PER_GUEST_SECOND[self.emu] * limit + BOOT_SLACK[self.emu]["mhv"]
        # The emulated host: the guest's CPUs plus the one mhv keeps; its
        # RAM: the guest's beside mhv's own.
        if self.emu == "qemu":
            cmd = ["sh", "scripts/run-qemu.sh", "--cpu", self.env["cpu"], "--smp", str(t.smp),
                   "--config", cfg, "--esp-file", flat, "--timeout", str(outer),
                   "--extra", "-m %dM" % (mem + 256), self.a.efi]
        else:
            cmd = ["sh", "scripts/run-bochs.sh", "--bochs", self.a.bochs, "--cpu", self.env["cpu"],
                   "--cpus", str(t.smp), "--megs", str(mem + 256), "--config", cfg,
                   "--esp-file", flat, "--timeout", str(outer), self.a.efi]
        st, secs = run_cmd(cmd, log, outer + 30)
        lines = read_lines(log)
        prefix = "[%s] " % t.file
        guest = [line[len(prefix):] for line in lines if line.startswith(prefix)]
        counts, first = count_reports(guest), first_failure(guest)
        for line in lines:
            m = re.search(r"mhv: guest %s: exit code (-?\d+)" % re.escape(t.file), line)
            if m:
                code = int(m.group(1))
                if code == 0:
                    return Result("pass", "", counts, secs, first)
                if code == 77 >> 1:
                    return Result("skip", "", counts, secs, first)
                return Result("fail", "exit code %d" % code, counts, secs,
                              first or last_line(guest))
            m = re.search(r"mhv: guest \S+: stopped: (.*?)(, [0-9]+ (ms|TSC ticks))?$", line)
            if m:
                why = m.group(1)
                after = last_line(guest)
                return Result("fail", "stopped", counts, secs,
                              first or ("stopped: %s" % why + ("; last: %s" % after if after else "")))
            m = re.search(r"mhv: guest \S+ refused: (.*)", line)
            if m:
                return Result("fail", "refused", counts, secs, "refused: " + m.group(1))
            m = re.search(r"mhv: (mhv\.cfg:\d+: .*)", line)
            if m:
                return Result("fail", "config refused", counts, secs, m.group(1))
        if st == 124:
            return Result("fail", "emulator timeout %ds" % outer, counts, secs,
                          "mhv did not stop it; last: " + last_line(guest or lines))
        return Result("fail", "no result line (status %d)" % st, counts, secs,
                      first or last_line(lines))

    def one(self, t):
        bare = mhv = None
        if self.a.only != "mhv":
            bare = self.bare(t)
        if self.a.only != "bare":
            mhv = self.mhv(t, bare)
        return bare, mhv


def select(tests, patterns):
    if not patterns:
        return tests
    pats = [p for p in re.split(r"[,\s]+", patterns) if p]

    def hit(t):
        stem = t.file.rsplit(".", 1)[0]
        return any(fnmatch.fnmatchcase(t.name, p) or fnmatch.fnmatchcase(stem, p) for p in pats)
    return [t for t in tests if hit(t)]


def boot_key(t, emu):
    if emu == "qemu":
        return (t.file, t.smp, tuple(t.args), tuple(qemu_params_bare(t)))
    return (t.file, t.smp, tuple(t.args), mem_mib(t))


def shorten(text, n=110):
    text = text.replace("|", "\\|")
    return text if len(text) <= n else text[:n - 1] + "…"


def table(runner, rows, wall):
    a = runner.a
    out = ["# kvm-unit-tests under %s" % runner.env["label"], ""]
    out.append("KUT tree: `%s`; BOOTX64.EFI: `%s`%s." % (a.kut, a.efi,
               "; Bochs: `%s`" % a.bochs if runner.emu == "bochs" else ""))
    out.append("Cells: verdict and the number of KUT `PASS:` lines (and `FAIL:` lines). "
               "Bare: the .flat without mhv; mhv: the same .flat as mhv's guest.")
    out.append("")
    out.append("| test | smp | args | bare | mhv | first FAIL / where it stopped |")
    out.append("|---|---|---|---|---|---|")
    tot = {"bare": {}, "mhv": {}}
    for t, bare, mhv, why in rows:
        args = shorten(" ".join(t.args), 40)
        if why:
            out.append("| %s | %d | %s | — | — | not run: %s |" % (t.name, t.smp, args, why))
            continue
        if t.same_as:
            out.append("| %s | %d | %s | = %s | = %s | same boot as %s |" %
                       (t.name, t.smp, args, t.same_as, t.same_as, t.same_as))
            continue
        note = []
        if mhv and mhv.verdict != "pass" and mhv.first:
            note.append("mhv: " + mhv.first)
        if bare and bare.verdict == "fail" and bare.first:
            note.append("bare: " + bare.first)
        for side, r in (("bare", bare), ("mhv", mhv)):
            if r:
                d = tot[side]
                d[r.verdict] = d.get(r.verdict, 0) + 1
                d["PASS"] = d.get("PASS", 0) + r.counts.get("PASS", 0)
                d["secs"] = d.get("secs", 0) + r.secs
        out.append("| %s | %d | %s | %s | %s | %s |" % (
            t.name, t.smp, args, bare.cell() if bare else "", mhv.cell() if mhv else "",
            shorten("; ".join(note), 160)))
    out.append("")
    for side in ("bare", "mhv"):
        d = tot[side]
        if d:
            out.append("- %s: %d pass, %d skip, %d fail; %d PASS lines; %.0f s of boots" % (
                side, d.get("pass", 0), d.get("skip", 0), d.get("fail", 0), d.get("PASS", 0),
                d.get("secs", 0)))
    out.append("- wall time: %.0f s with %d boots at a time" % (wall, a.jobs))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", required=True, choices=sorted(ENVS))
    ap.add_argument("--kut", default="build/kut/obj")
    ap.add_argument("--efi", default="build/esp/EFI/BOOT/BOOTX64.EFI")
    ap.add_argument("--bochs", default="")
    ap.add_argument("--tests", default="", help="names or patterns (test name or file stem)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-time", type=int, default=180,
                    help="cap on a test's own time limit (s; KUT's default is 90)")
    ap.add_argument("--only", choices=("bare", "mhv"))
    ap.add_argument("--out", default="build/kut")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    cfg = os.path.join(a.kut, "x86", "unittests.cfg")
    if not os.path.exists(cfg):
        print("kut-test: skipped: no kvm-unit-tests build in %s (make kut says why)" % a.kut)
        return 0
    if ENVS[a.env]["emu"] == "bochs":
        if not a.bochs:
            a.bochs = subprocess.run(["sh", "scripts/build-bochs.sh", "--path"], capture_output=True,
                                     text=True).stdout.strip()
        if not os.access(a.bochs, os.X_OK):
            print("kut-test: skipped: no pinned Bochs at %s (make bochs builds it)" % a.bochs)
            return 0
    a.kut, a.efi, a.out = (os.path.abspath(p) for p in (a.kut, a.efi, a.out))
    if a.bochs:
        a.bochs = os.path.abspath(a.bochs)
    tests = [t for t in read_unittests(cfg) if t.arch in ("", "x86_64")]
    tests = select(tests, a.tests)
    runner = Runner(a)
    first_of, jobs = {}, []
    for t in tests:
        why = not_run_reason(t, a.env)
        if why:
            continue
        k = boot_key(t, runner.emu)
        if k in first_of:
            t.same_as = first_of[k].name
        else:
            first_of[k] = t
            jobs.append(t)
    print("kut-test: %s: %d tests, %d boots each bare and under mhv, %d at a time" %
          (a.env, len(tests), len(jobs), a.jobs), flush=True)
    start = time.monotonic()
    done = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(runner.one, t): t for t in jobs}
        for fut in concurrent.futures.as_completed(futs):
            t = futs[fut]
            done[t.name] = fut.result()
            bare, mhv = done[t.name]
            print("kut-test: %-28s bare %-22s mhv %s" % (t.name, bare.cell() if bare else "-",
                                                          mhv.cell() if mhv else "-"), flush=True)
    wall = time.monotonic() - start
    rows = []
    for t in tests:
        why = not_run_reason(t, a.env)
        bare, mhv = done.get(t.name, (None, None))
        rows.append((t, bare, mhv, why))
    text = table(runner, rows, wall)
    path = os.path.join(a.out, "results-%s.md" % a.env)
    with open(path, "w") as f:
        f.write(text)
    print()
    print(text, end="")
    print("kut-test: table in %s, logs in %s/" % (os.path.relpath(path), os.path.relpath(runner.logs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
