# SPDX-License-Identifier: MIT
"""mhv beside KVM: the same guests' MHV-JSON rows from both hypervisors.

Used by `mhv-report kvm MHV_LOG KVM_LOG`.  A KVM row carries
"hypervisor":"kvm" (scripts/kvm/mhv-kvm.c); every other row is mhv's.
mhv's columns are its VM configurations (default, pmu-sw, pmu-sw-lazy,
pmu-hw, mitigations-off/-auto); KVM's are its runs' columns ("kvm",
"kvm-mitigations-off", "kvm-pmu-off", "kvm-mediated-pmu").  The ratio
divides each KVM median by the median of mhv's column with the same
mitigations; a KVM row marked "not_comparable" gets no ratio, its reason
below the table.
"""
from fractions import Fraction

MHV_ORDER = ("default", "pmu-sw", "pmu-sw-noelide", "pmu-sw-lazy", "pmu-hw",
             "mitigations-off", "mitigations-auto")


def unique(values):
    return list(dict.fromkeys(values))


def split(found):
    """(mhv rows, kvm rows) of the vmexit-style suites both sides ran."""
    kvm = [m for m in found if m.get("hypervisor") == "kvm"]
    mhv = [m for m in found if m.get("hypervisor", "mhv") != "kvm"]
    return mhv, kvm


def mhv_base(mhv_configs, kvm_config):
    """mhv's column with the mitigations of KVM's column."""
    off = kvm_config.endswith("-mitigations-off")
    if off:
        pick = "mitigations-off" if "mitigations-off" in mhv_configs else "default"
    else:
        pick = "mitigations-auto" if "mitigations-auto" in mhv_configs else "default"
    return pick if pick in mhv_configs else None


def ratio(kvm_m, mhv_m):
    if not kvm_m or not mhv_m or "skipped" in kvm_m or "skipped" in mhv_m:
        return None
    if kvm_m.get("not_comparable") or not mhv_m["median"]:
        return None
    return Fraction(kvm_m["median"], mhv_m["median"])


def cell(m):
    if m is None:
        return "-"
    if "skipped" in m:
        return "skipped"
    return str(m["median"]) + ("*" if m.get("not_comparable") else "")


def side_by_side(mhv, kvm):
    """The table: (header, rows, notes) over the tests both sides name."""
    suites = unique(m["suite"] for m in kvm)
    mhv = [m for m in mhv if m["suite"] in suites]
    mconf = [c for c in MHV_ORDER if any(m["config"] == c for m in mhv)]
    mconf += [c for c in unique(m["config"] for m in mhv) if c not in mconf]
    kconf = unique(m["config"] for m in kvm)
    cells = {(m["suite"], m["test"], m["config"], "kvm" if m in kvm else "mhv"): m
             for m in mhv + kvm}
    tests = unique((m["suite"], m["test"]) for m in mhv + kvm)
    header = (["test"] + [f"mhv {c}" for c in mconf] + [f"KVM {c}" for c in kconf] +
              [f"{c} / mhv {mhv_base(mconf, c)}" for c in kconf if mhv_base(mconf, c)])
    rows, notes = [], {}
    for suite, test in tests:
        name = test if len(suites) == 1 else f"{suite}/{test}"
        row = [name] + [cell(cells.get((suite, test, c, "mhv"))) for c in mconf]
        row += [cell(cells.get((suite, test, c, "kvm"))) for c in kconf]
        for c in kconf:
            base = mhv_base(mconf, c)
            if not base:
                continue
            k = cells.get((suite, test, c, "kvm"))
            r = ratio(k, cells.get((suite, test, base, "mhv")))
            row.append("-" if r is None else f"{float(r):.1f}x")
            if k and k.get("not_comparable"):
                notes[test] = k["not_comparable"]
        rows.append(row)
    return header, rows, notes


def seeds_table(mhv, kvm):
    """The seeds' layout where both sides have it: exits down; software-
    and hardware-switched PMU across (mhv pmu-sw / pmu-hw, KVM's perf-based
    vPMU "kvm" / its mediated PMU "kvm-mediated-pmu")."""
    cols = [("mhv", "pmu-sw", "mhv sw PMU"), ("mhv", "pmu-hw", "mhv hw PMU"),
            ("kvm", None, "KVM sw PMU"), ("kvm", "mediated", "KVM hw (mediated) PMU")]

    def pick(side, want, m):
        if side == "mhv":
            return m.get("hypervisor") != "kvm" and m["config"] == want
        if m.get("hypervisor") != "kvm" or "pmu-off" in m["config"]:
            return False
        return ("mediated" in m["config"]) == (want == "mediated")

    have = [c for c in cols if any(pick(c[0], c[1], m) for m in mhv + kvm)]
    if not any(c[0] == "mhv" for c in have) or not any(c[0] == "kvm" for c in have):
        return None
    tests = unique(m["test"] for m in mhv + kvm if "skipped" not in m)
    rows = []
    for t in tests:
        row = [t]
        for side, want, _ in have:
            ms = [m for m in mhv + kvm if m["test"] == t and pick(side, want, m)]
            row.append(cell(ms[-1]) if ms else "-")
        rows.append(row)
    return ["exit"] + [c[2] for c in have], rows


def markdown(out, header, rows):
    out.write("| " + " | ".join(header) + " |\n")
    out.write("|---|" + "---:|" * (len(header) - 1) + "\n")
    for row in rows:
        out.write("| " + " | ".join(row) + " |\n")


def describe_kvm(kvm):
    m = kvm[0]
    params = ", ".join(f"{k}={v}" for k, v in m.get("kvm_params", {}).items())
    return (f"KVM: kernel {m.get('kernel', '?')}, {m.get('kvm_module', '?')} ({params}), "
            f"mitigations {m.get('mitigations', '?')}, cpu {m.get('cpu', '?')}, "
            f"clock {m.get('clock', '?')} (host clocksource {m.get('host_clocksource', '?')})")


def chart(path, mhv, kvm, title):
    """Both hypervisors per test: median bars, min..p99 whiskers, log scale."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise OSError(0, "needs python3-matplotlib (scripts/deps.sh installs it)")
    kconf = unique(m["config"] for m in kvm)[0]
    mconf = mhv_base(unique(m["config"] for m in mhv), kconf)
    pairs = []
    for k in kvm:
        if k["config"] != kconf or "skipped" in k or k.get("not_comparable"):
            continue
        ms = [m for m in mhv if m["test"] == k["test"] and m["config"] == mconf
              and "skipped" not in m]
        if ms and k["test"] != "loop_overhead":
            pairs.append((k["test"], ms[-1], k))
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(pairs) + 1.6))
    ys = range(len(pairs))
    for off, side, label, color in ((-0.2, 1, f"mhv ({mconf})", "#1f77b4"),
                                    (0.2, 2, f"KVM ({kconf})", "#d62728")):
        med = [p[side]["median"] for p in pairs]
        lo = [p[side]["median"] - p[side]["min"] for p in pairs]
        hi = [p[side]["p99"] - p[side]["median"] for p in pairs]
        ax.barh([y + off for y in ys], med, height=0.38, color=color, label=label,
                xerr=[lo, hi], error_kw={"elinewidth": 0.8, "capsize": 2})
    for y, (_, m, k) in zip(ys, pairs):
        if m["median"]:
            ax.annotate(f"{k['median'] / m['median']:.1f}x", (k["p99"], y + 0.2),
                        xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([p[0] for p in pairs], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    unit = pairs[0][1].get("unit", "tsc") if pairs else "tsc"
    ax.set_xlabel(f"{unit} ticks per round trip: median, whiskers min..p99, log scale; "
                  "KVM / mhv at each bar's end", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2, fontsize=8,
              frameon=False)
    ax.margins(x=0.12)
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def report(out, found, plot=None):
    mhv, kvm = split(found)
    if not kvm:
        return "no KVM rows (\"hypervisor\":\"kvm\"; scripts/kvm/mhv-kvm writes them)"
    if not mhv:
        return "no mhv rows beside the KVM rows"
    header, rows, notes = side_by_side(mhv, kvm)
    envs = "/".join(unique(f"{m['env']} {m['backend']}" for m in mhv + kvm))
    out.write(f"### mhv and KVM: median {mhv[0].get('unit', 'tsc')} ticks per iteration, "
              f"{envs}\n\n{describe_kvm(kvm)}\n\n")
    markdown(out, header, rows)
    for test, why in notes.items():
        out.write(f"\n\\* {test}: not comparable: {why}")
    out.write("\n" if notes else "")
    seeds = seeds_table(mhv, kvm)
    if seeds:
        out.write("\n### The seeds' layout: exits by PMU switching\n\n")
        markdown(out, *seeds)
    if plot:
        chart(plot, mhv, kvm, f"mhv vs KVM ({kvm[0].get('kernel', '?')}), {envs}")
    return None
