#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run kvm-unit-tests' x86_64 tests on a bare emulator and as mhv guests.

    run.py --env qemu|bochs-vmx|bochs-svm|bochs-zen5|bochs-skylake-pmu [--kut DIR] [--efi BOOTX64.EFI]
           [--bochs PATH] [--tests PATTERNS] [--jobs N] [--max-time S]
           [--guests-per-boot N] [--only bare|mhv] [--out DIR]
           [--check EXPECT | --write EXPECT]

Reads KUT's own x86/unittests.cfg from its build (DIR, default
build/kut/obj) and, for each x86_64 test KUT would run by default, boots

  bare  the .flat without mhv: QEMU -kernel as KUT's x86/run does (with
        -cpu max), Bochs through a GRUB rescue CD (`multiboot` + `boot`);
  mhv   BOOTX64.EFI with an mhv.cfg naming the .flat as a guest (its
        test_args as cmdline, its smp as cpus, KUT's timeout as its
        time_limit), on the same emulator; with --guests-per-boot N up to
        N tests (mhv.cfg takes 8) run one after another in one boot, the
        default on Bochs, whose firmware and mhv's start take half a minute.

bochs-zen5 (the pinned Bochs' zen5: a counting AMD PMU, AVX-512) runs KUT's
pmu and xsave once per mhv PMU mode (`pmu =` after its guest line), as TEST:MODE (pmu:off ... pmu:hw);
its bare run, which has no mode, once for all of them.

Tests that reduce to the same boot (e.g. KUT's x2apic and xapic differ only
in -cpu, which -cpu max replaces) run once.  A test's verdict: QEMU's exit
status from KUT's exit port (0 pass, 77 >> 1 skip, else fail); on bare Bochs
the value written to the exit port, else its SUMMARY line; under mhv, mhv's
"exit code" line (38 = 77 >> 1 is a skip), a stop at the guest's time limit
is a timeout.  Logs and the table (results-ENV.md) go to OUT/ENV/ and OUT/;
the table is printed too, and the run exits 0 whatever the tests do.

--check EXPECT (tests/kut/expect.txt, see expect.py) runs only the mhv side
of the tests EXPECT lists for --env, prints a line per test, each
unexpected one's failing lines and a summary, and exits 1 when any result
was not what EXPECT says (make test).  --write EXPECT writes the run's
bare and/or mhv results into EXPECT (make kut-reference, make kut-expect)."""
import argparse
import concurrent.futures
import copy
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

sys.dont_write_bytecode = True  # no __pycache__ next to the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect  # noqa: E402

ENVS = {
    "qemu": {"emu": "qemu", "cpu": "max", "label": "QEMU TCG -cpu max (SVM)"},
    "bochs-vmx": {"emu": "bochs", "cpu": "corei7_skylake_x", "label": "Bochs corei7_skylake_x (VMX)"},
    "bochs-svm": {"emu": "bochs", "cpu": "ryzen", "label": "Bochs ryzen (SVM)"},
    # The pinned Bochs' counting AMD PMU: each test once per mhv PMU mode,
    # rows TEST:MODE, all of them guests of as few boots as mhv.cfg allows.
    # zen5 (patch 0012): zen5_pmu's PMU with a Family 1Ah CPUID (AVX-512,
    # PKU, CET, the part's XSAVE layout), so xsave runs here too.
    "bochs-zen5": {"emu": "bochs", "cpu": "zen5", "label": "Bochs zen5 (SVM, counting PMU)",
                   "pmu": expect.ENV_MODES["bochs-zen5"], "tests": ("pmu", "xsave")},
    # The same on its counting Intel PMU (architectural v4, VMX; no hw mode).
    "bochs-skylake-pmu": {"emu": "bochs", "cpu": "skylake_pmu",
                          "label": "Bochs skylake_pmu (VMX, counting PMU)",
                          "pmu": expect.ENV_MODES["bochs-skylake-pmu"], "tests": ("pmu",)},
}
# Seconds from power-on to the guest's first instruction under mhv (OVMF,
# mhv's own start-up) and to the kernel on bare Bochs (BIOS, GRUB): added to
# the emulator's timeout on top of the test's own limit.
BOOT_SLACK = {"qemu": {"bare": 10, "mhv": 60}, "bochs": {"bare": 120, "mhv": 300}}
# Bochs' clock follows its instruction count (ips=50000000, sync=none), so a
# guest second costs more or less than one on the wall depending on the load.
WALL_PER_GUEST_SECOND = {"qemu": 1, "bochs": 3}
BOCHS_GUEST_WALL = 120  # s: see guest_wall
DEFAULT_MEM = 128  # MiB: QEMU's default, which KUT runs with
MAX_MHV_MEM = 1024  # MiB: what fits an emulated host beside mhv's own pool
MAX_GUESTS_PER_BOOT = 8  # guest = lines mhv.cfg takes (hv/lab/config.h)
DEFAULT_HEADER = [
    "# kvm-unit-tests expectations: what `make test` expects of each KUT test under mhv,",
    "# beside the same binary on the bare emulator (docs/kvm-unit-tests.md).",
    "#",
    "#   ENV  TEST  BARE COUNT  MHV",
    "#",
    "# ENV    qemu (QEMU TCG -cpu max, SVM), bochs-vmx (Bochs corei7_skylake_x),",
    "#        bochs-svm (Bochs ryzen), bochs-zen5 (Bochs zen5, a counting AMD PMU:",
    "#        each TEST once per mhv PMU mode, as TEST:MODE), bochs-skylake-pmu (the same",
    "#        on Bochs skylake_pmu, a counting Intel PMU)",
    "# BARE   the test on the bare emulator: pass, skip or fail; COUNT its KUT PASS: lines",
    "#        (make kut-reference ENV=... writes them; '- 0' while not recorded)",
    "# MHV    pass            mhv's verdict pass and at least COUNT PASS lines",
    "#        skip: REASON    KUT's exit code 38 (77 >> 1): every check skipped",
    "#        fail N: REASON  any other end, with at least N PASS lines (N optional)",
    "#        (make kut-expect ENV=... writes them, keeping the REASON of a verdict",
    "#        that did not change)",
    "# A fail or skip where BARE passes is a gap: accepted when its REASON starts",
    "# 'kvm:' (the check needs KVM itself: PV interfaces, kvmclock, Hyper-V),",
    "# 'device:' (a device the bare run has) or 'cpu:' (the CPU's own",
    "# virtualization does it so, manual cited), else open.  tests/kut/run.py --check",
    "# lists both; make docs-tables writes docs/kvm-unit-tests.md's table from this file.",
]
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
        self.pmu = None  # mhv's PMU mode for it (`pmu =` after its guest line)
        self.base = name  # the KUT test it is a PMU-mode variant of


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
    def __init__(self, verdict, why="", counts=None, secs=0.0, first="", tail=None):
        self.verdict = verdict  # pass, skip, fail
        self.why = why  # exit code, stop reason
        self.counts = counts or {}
        self.secs = secs
        self.first = first  # the first FAIL line, or where it stopped; a skip's first SKIP
        self.tail = tail or []  # the last lines of its log
        self.log = ""

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


def first_skip(lines):
    for line in lines:
        if line.startswith("SKIP:"):
            return line
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


def emulator_died_early(st, lines):
    """True when the emulator was killed by a signal (SIGSEGV, SIGABRT: the
    shell's status 128+N) before mhv printed its first line."""
    return 128 < st < 160 and st != 137 and not any(line.startswith("mhv: ") for line in lines)


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
        if args.check:
            # no stale log of an earlier check beside this one's
            for f in os.listdir(self.logs):
                if ".mhv." in f:
                    os.remove(os.path.join(self.logs, f))

    # ---- bare emulator ----
    def bare(self, t):
        limit = min(t.timeout, self.a.max_time)
        log = os.path.join(self.logs, t.base + ".bare.log")
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
    def mhv(self, t, bare=None):
        return self.mhv_boot([t])[0]

    def mhv_boot(self, tests):
        """@tests as mhv's guests of one boot, one after another (mhv.cfg
        takes up to 8); their Results in order.  KUT's own per-test timeout
        is each guest's time_limit: mhv stops it there (every vCPU); the
        emulator's timeout is above their sum."""
        name = tests[0].name if len(tests) == 1 else "boot-" + "+".join(t.name for t in tests)
        if len(name) > 100:
            name = name[:80] + "-%d" % len(tests)
        log = os.path.join(self.logs, name + ".mhv.log")
        cfg = os.path.join(self.logs, name + ".mhv.cfg")
        limits = [min(t.timeout, self.a.max_time) for t in tests]
        mems = [min(mem_mib(t), MAX_MHV_MEM) for t in tests]
        files = []
        with open(cfg, "w") as f:
            f.write("# kvm-unit-tests %s (tests/kut/run.py)\n" % " ".join(t.name for t in tests))
            f.write("exit_action = qemu-exit\n")
            if self.emu == "bochs":
                f.write("debugcon = on\n")
            f.write("suites = none\n")
            for t, limit, mem in zip(tests, limits, mems):
                f.write("guest = \\%s\n" % t.file)
                f.write('cmdline = "%s"\n' % " ".join([t.file] + t.args))
                f.write("cpus = %d\nmem = %d\ntime_limit = %d\n" % (t.smp, mem, limit))
                if t.pmu:
                    f.write("pmu = %s\n" % t.pmu)
                flat = os.path.join(self.a.kut, "x86", t.file)
                if flat not in files:
                    files.append(flat)
        outer = sum(guest_wall(self.emu, x) for x in limits) + BOOT_SLACK[self.emu]["mhv"]
        # The emulated host: as many CPUs as the largest guest has vCPUs
        # (mhv runs guests on the boot CPU too); its RAM: every guest's
        # (mhv takes each guest's RAM for the whole run) beside mhv's own.
        smp, mem = max(t.smp for t in tests), sum(mems)
        esp = []
        for flat in files:
            esp += ["--esp-file", flat]
        if self.emu == "qemu":
            cmd = ["sh", "scripts/run-qemu.sh", "--cpu", self.env["cpu"], "--smp", str(smp),
                   "--config", cfg] + esp + ["--timeout", str(outer),
                                             "--extra", "-m %dM" % (mem + 256), self.a.efi]
        else:
            cmd = ["sh", "scripts/run-bochs.sh", "--bochs", self.a.bochs, "--cpu", self.env["cpu"],
                   "--cpus", str(smp), "--megs", str(mem + 256), "--config", cfg] + esp + \
                  ["--timeout", str(outer), self.a.efi]
        st, secs = run_cmd(cmd, log, outer + 30)
        lines = read_lines(log)
        if emulator_died_early(st, lines):
            # The emulator itself crashed before mhv said a word: no verdict
            # on mhv.  Once more, and the log says so; twice is a failure.
            print("kut: %s: emulator died (status %d) before mhv printed; booting again" %
                  (os.path.basename(log), st), flush=True)
            os.replace(log, log + ".died")
            st, secs = run_cmd(cmd, log, outer + 30)
            lines = read_lines(log)
        parts = split_guests(lines, len(tests))
        out = []
        for i, (t, limit) in enumerate(zip(tests, limits)):
            r = judge_mhv(t, parts[i], limit) or unended(lines, parts[i], st, outer, limit)
            r.secs = secs if len(tests) == 1 else r.secs
            r.log = log
            out.append(r)
        return out

    def one(self, t):
        bare = mhv = None
        if self.a.only != "mhv":
            bare = self.bare(t)
        if self.a.only != "bare":
            mhv = self.mhv(t, bare)
        return bare, mhv


GUEST_START_RE = re.compile(r"mhv: guest (\S+?)(?:: start | refused: )")
GUEST_END_RE = re.compile(r"mhv: guest (\S+?)(?:: exit code |: stopped: | refused: )")


def guest_wall(emu, limit):
    """Wall seconds the emulator's timeout allows a guest of time_limit
    @limit.  On Bochs mhv's limits run on the emulated clock (ips=50M: a
    guest second is 5e7 instructions), but an exit costs about 12 us of
    host CPU for some 150 instructions, so an exit-bound guest runs far
    slower than its clock: KUT's vmexit_cpuid, 2^30 ticks of CPUID round
    trips (about 17M exits, 53 guest seconds), needs some 3.5 minutes of
    CPU (3.2M exits in 10 guest seconds took about 40 s, on SVM as on
    VMX).  There the emulator's timeout, not mhv, bounds a hang, at a
    budget a Bochs KUT guest that ends stays well inside."""
    if emu == "bochs":
        return min(WALL_PER_GUEST_SECOND[emu] * limit, BOCHS_GUEST_WALL)
    return WALL_PER_GUEST_SECOND[emu] * limit


def split_guests(lines, n):
    """The log's lines per guest, in the order mhv ran them: from its
    start (or refusal) line to the line that says how it ended."""
    parts, cur = [], None
    for line in lines:
        if cur is None and GUEST_START_RE.search(line):
            cur = []
            parts.append(cur)
        if cur is not None:
            cur.append(line)
            if GUEST_END_RE.search(line):
                cur = None
    return (parts + [[] for _ in range(n)])[:n]


def tail_lines(lines, n=8):
    return [line for line in lines if line.strip()][-n:]


def unended(lines, part, st, outer, limit):
    """The Result of a guest the boot ended before it said how it ended."""
    whole = part or lines
    for line in lines:
        m = re.search(r"mhv: (mhv\.cfg:\d+: .*)", line)
        if m:
            return Result("fail", "config refused", {}, 0, m.group(1), tail_lines(whole))
    if st == 124:
        return Result("fail", "emulator timeout %ds" % outer, {}, 0,
                      "mhv did not stop it at its time limit of %d s; last: %s" %
                      (limit, last_line(whole)), tail_lines(whole))
    return Result("fail", "no result line (status %d)" % st, {}, 0, last_line(whole),
                  tail_lines(whole))


def judge_mhv(t, lines, limit):
    """@t's Result from its part of mhv's log, None without an end line."""
    prefix = "[%s] " % t.file
    guest = [line[len(prefix):] for line in lines if line.startswith(prefix)]
    counts, first = count_reports(guest), first_failure(guest)
    tail = tail_lines(lines)
    secs = 0.0
    for line in lines:
        m = re.search(r", ([0-9]+) ms$", line)
        if m and GUEST_END_RE.search(line):
            secs = int(m.group(1)) / 1000
        m = re.search(r"mhv: guest %s: exit code (-?\d+)" % re.escape(t.file), line)
        if m:
            code = int(m.group(1))
            if code == 0:
                return Result("pass", "", counts, secs, first, tail)
            if code == 77 >> 1:
                # its SKIP line, else what it printed before its SUMMARY
                said = [x for x in guest if not x.startswith("SUMMARY:")]
                return Result("skip", "", counts, secs,
                              first_skip(guest) or last_line(said), tail)
            return Result("fail", "exit code %d" % code, counts, secs,
                          first or last_line(guest), tail)
        m = re.search(r"mhv: guest \S+: stopped: (.*?)(, [0-9]+ (ms|TSC ticks))?$", line)
        if m:
            why = m.group(1)
            after = last_line(guest)
            # mhv's stop kind first: time-limit is a timeout at the guest's
            # time_limit, the others a stop for cause
            kind = why.split(":", 1)[0]
            short = "timeout %ds" % limit if kind == "time-limit" else "stopped: " + kind
            return Result("fail", short, counts, secs,
                          first or ("stopped: %s" % why + ("; last: %s" % after if after else "")),
                          tail)
        m = re.search(r"mhv: guest \S+ refused: (.*)", line)
        if m:
            return Result("fail", "refused", counts, secs, "refused: " + m.group(1), tail)
    return None


def with_modes(tests, env):
    """@tests as @env runs them: where it has PMU modes, the tests it names
    (all when it names none), each once per mode, named TEST:MODE."""
    modes = ENVS[env].get("pmu")
    if not modes:
        return tests
    out = []
    for t in tests:
        if ENVS[env].get("tests") and t.name not in ENVS[env]["tests"]:
            continue
        for mode in modes:
            v = copy.copy(t)
            v.name, v.pmu = "%s:%s" % (t.name, mode), mode
            out.append(v)
    return out


def select(tests, patterns):
    if not patterns:
        return tests
    pats = [p for p in re.split(r"[,\s]+", patterns) if p]

    def hit(t):
        stem = t.file.rsplit(".", 1)[0]
        return any(fnmatch.fnmatchcase(n, p) for p in pats for n in (t.name, t.base, stem))
    return [t for t in tests if hit(t)]


def boot_key(t, emu):
    if emu == "qemu":
        return (t.file, t.smp, tuple(t.args), tuple(qemu_params_bare(t)), t.pmu)
    return (t.file, t.smp, tuple(t.args), mem_mib(t), t.pmu)


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


def batches(tests, jobs, per_boot):
    """@tests split into boots of at most @per_boot guests (0: as few boots
    as @jobs allows, up to mhv's 8 guests each) of similar size; the tests
    with more vCPUs together, so that fewer boots need a larger machine."""
    if per_boot <= 0:
        n = max(min(jobs, len(tests)), math.ceil(len(tests) / MAX_GUESTS_PER_BOOT))
    else:
        n = math.ceil(len(tests) / min(per_boot, MAX_GUESTS_PER_BOOT))
    n = max(n, 1)
    ordered = sorted(tests, key=lambda t: t.smp)
    size, extra = divmod(len(ordered), n)
    out, i = [], 0
    for k in range(n):
        j = i + size + (1 if k < extra else 0)
        if j > i:
            out.append(ordered[i:j])
        i = j
    return out


def run_tests(runner, jobs):
    """Each boot of @jobs (tests) bare and/or under mhv, --jobs at a time:
    {name: (bare, mhv)}."""
    a = runner.a
    tasks, bare_of = [], {}
    if a.only != "mhv":
        # a PMU mode is mhv's: the bare run is the same for every mode
        for t in jobs:
            bare_of.setdefault(t.base, []).append(t)
        tasks += [("bare", [ts[0]]) for ts in bare_of.values()]
    if a.only != "bare":
        tasks += [("mhv", b) for b in batches(jobs, a.jobs, a.guests_per_boot)]
    res = {t.name: [None, None] for t in jobs}

    def do(task):
        side, ts = task
        if side == "bare":
            return [runner.bare(ts[0])]
        return runner.mhv_boot(ts)

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(do, task): task for task in tasks}
        for fut in concurrent.futures.as_completed(futs):
            side, ts = futs[fut]
            for t, r in zip(ts, fut.result()):
                for u in bare_of[t.base] if side == "bare" else [t]:
                    res[u.name][0 if side == "bare" else 1] = r
                if not a.check:
                    print("kut-test: %-28s %-4s %s" % (t.base if side == "bare" else t.name,
                                                       side, r.cell()), flush=True)
    return res


def auto_reason(r):
    """A one-line reason for an mhv result that is not a pass."""
    if r.verdict == "skip":
        return shorten(r.first or "the test skipped all its checks", 140).replace("\\|", "|")
    text = r.first if r.first.startswith(r.why) else r.why + (": " + r.first if r.first else "")
    return shorten(text.strip() or "failed", 140).replace("\\|", "|")


def check(runner, exp, tests, res):
    """Compare @res with the expectations; print a line per test, the
    failing lines of each unexpected one and a summary; True when all were
    as expected."""
    env = runner.a.env
    bad, n = [], {"pass": 0, "skip": 0, "fail": 0}
    width = max(len(t.name) for t in tests)
    for t in tests:
        e = exp.get(env, t.name)
        r = res[t.same_as or t.name][1]
        count = r.counts.get("PASS", 0)
        why = e.judge(r.verdict, count)
        got = r.cell() + (" (%s)" % r.why if r.why and r.verdict == "fail" and
                          r.counts.get("FAIL") else "")
        if why:
            bad.append((t, e, r, why))
            print("kut-check: %-*s UNEXPECTED %s; %s" % (width, t.name, got, why))
        else:
            n[r.verdict] += 1
            print("kut-check: %-*s ok  %s (bare %s %d)" % (width, t.name, got, e.bare,
                                                          e.bare_count))
    for t, e, r, why in bad:
        print()
        print("kut-check: %s: expected %s; bare %s %d; got %s" % (
            t.name, e.mhv_text(), e.bare, e.bare_count, r.cell()))
        if r.first:
            print("    first: %s" % r.first)
        for line in r.tail:
            print("    | %s" % line)
        print("    log: %s" % os.path.relpath(r.log))
    rows = [exp.get(env, t.name) for t in tests]
    accepted = [e for e in rows if e.gap() == "accepted"]
    open_ = [e for e in rows if e.gap() == "open"]
    print()
    if accepted:
        print("kut-check: %s: known gaps (the check needs KVM, a device of the bare run, "
              "or the CPU does it so):" % env)
        for e in accepted:
            print("    %s: %s" % (e.test, e.mhv_text()))
    if open_:
        print("kut-check: %s: open: %d fail or skip under mhv where the bare run passes: %s" %
              (env, len(open_), " ".join(e.test for e in open_)))
    print("kut-check: %s: %d tests, %d as expected (%d pass, %d skip, %d fail), %d unexpected; "
          "%d known gaps, %d open" % (env, len(tests), len(tests) - len(bad), n["pass"],
                                      n["skip"], n["fail"], len(bad), len(accepted), len(open_)))
    return not bad


def update(exp, env, tests, res):
    """Write the bare and/or mhv results of @tests into @exp: a result
    that did not change keeps its entry's reason."""
    for t in tests:
        bare, mhv = res[t.same_as or t.name]
        e = exp.get(env, t.name)
        if e is None:
            e = expect.Entry(env, t.name, "fail", 0, "fail", None, "not yet run under mhv")
            exp.entries.append(e)
        if bare:
            e.bare, e.bare_count = bare.verdict, bare.counts.get("PASS", 0)
        if mhv:
            count = mhv.counts.get("PASS", 0)
            if mhv.verdict != e.mhv or e.reason == "not yet run under mhv":
                e.reason = "" if mhv.verdict == "pass" else auto_reason(mhv)
            e.mhv = mhv.verdict
            e.mhv_count = count if mhv.verdict == "fail" and count else None
            if mhv.verdict == "pass":
                e.reason = ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", required=True, choices=sorted(ENVS))
    ap.add_argument("--kut", default="build/kut/obj")
    ap.add_argument("--efi", default="build/esp/EFI/BOOT/BOOTX64.EFI")
    ap.add_argument("--bochs", default="")
    ap.add_argument("--tests", default="", help="names or patterns (test name or file stem)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--guests-per-boot", type=int, default=None,
                    help="KUT tests per mhv boot, 0: spread over --jobs boots "
                    "(default: 1 on QEMU, 0 on Bochs, whose boot is slow)")
    ap.add_argument("--max-time", type=int, default=180,
                    help="cap on a test's own time limit (s; KUT's default is 90)")
    ap.add_argument("--only", choices=("bare", "mhv"))
    ap.add_argument("--out", default="build/kut")
    ap.add_argument("--check", metavar="FILE",
                    help="run the mhv side of the tests FILE lists for --env and judge them by it")
    ap.add_argument("--write", metavar="FILE",
                    help="write the results into FILE (the tests it lists for --env, "
                    "else all); reasons of unchanged results are kept")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    who = "kut-check" if a.check else "kut-test"
    if a.check and a.write:
        ap.error("--check and --write exclude each other")
    if a.check:
        a.only = "mhv"
    if a.guests_per_boot is None:
        a.guests_per_boot = 1 if ENVS[a.env]["emu"] == "qemu" else 0
    exp_path = a.check or a.write
    exp = None
    if exp_path:
        try:
            exp = expect.load(exp_path) if os.path.exists(exp_path) or a.check else \
                expect.Expectations(DEFAULT_HEADER, [])
        except (OSError, expect.ExpectError) as e:
            print("%s: %s" % (who, e))
            return 2
    cfg = os.path.join(a.kut, "x86", "unittests.cfg")
    if not os.path.exists(cfg):
        print("%s: skipped: no kvm-unit-tests build in %s (make kut says why)" % (who, a.kut))
        return 0
    if ENVS[a.env]["emu"] == "bochs":
        if not a.bochs:
            a.bochs = subprocess.run(["sh", "scripts/build-bochs.sh", "--path"], capture_output=True,
                                     text=True).stdout.strip()
        if not os.access(a.bochs, os.X_OK):
            print("%s: skipped: no pinned Bochs at %s (make bochs builds it)" % (who, a.bochs))
            return 0
    a.kut, a.efi, a.out = (os.path.abspath(p) for p in (a.kut, a.efi, a.out))
    if a.bochs:
        a.bochs = os.path.abspath(a.bochs)
    every = with_modes([t for t in read_unittests(cfg) if t.arch in ("", "x86_64")], a.env)
    tests = select(every, a.tests)
    if exp and (a.check or exp.of_env(a.env)):
        listed = {e.test for e in exp.of_env(a.env)}
        unknown = listed - {t.name for t in every}
        if unknown:
            print("%s: %s lists tests KUT's unittests.cfg does not have: %s" %
                  (who, exp_path, " ".join(sorted(unknown))))
            return 2
        tests = [t for t in tests if t.name in listed]
    runner = Runner(a)
    first_of, jobs = {}, []
    for t in tests:
        if not_run_reason(t, a.env):
            continue
        k = boot_key(t, runner.emu)
        if k in first_of:
            t.same_as = first_of[k].name
        else:
            first_of[k] = t
            jobs.append(t)
    tests = [t for t in tests if not not_run_reason(t, a.env)] if exp else tests
    if not jobs:
        print("%s: %s: no tests to run" % (who, a.env))
        return 2 if a.check else 0
    boots = []
    if a.only != "mhv":
        boots.append("%d bare boots" % len({t.base for t in jobs}))
    if a.only != "bare":
        boots.append("%d runs under mhv in %d boots" % (
            len(jobs), len(batches(jobs, a.jobs, a.guests_per_boot))))
    print("%s: %s: %d tests, %s, %d at a time" % (who, a.env, len(tests), " and ".join(boots),
                                                  a.jobs), flush=True)
    start = time.monotonic()
    res = run_tests(runner, jobs)
    wall = time.monotonic() - start
    if a.check:
        ok = check(runner, exp, tests, res)
        print("kut-check: %s: wall time %.0f s, %d boots at a time" % (a.env, wall, a.jobs))
        return 0 if ok else 1
    rows = []
    for t in tests:
        bare, mhv = res.get(t.name, (None, None))
        rows.append((t, bare, mhv, not_run_reason(t, a.env)))
    text = table(runner, rows, wall)
    path = os.path.join(a.out, "results-%s.md" % a.env)
    with open(path, "w") as f:
        f.write(text)
    print()
    print(text, end="")
    print("kut-test: table in %s, logs in %s/" % (os.path.relpath(path), os.path.relpath(runner.logs)))
    if a.write:
        update(exp, a.env, tests, res)
        expect.write(a.write, exp, [t.name for t in every])
        print("kut-test: %s: %s entries written" % (a.write, a.env))
    return 0


if __name__ == "__main__":
    sys.exit(main())
