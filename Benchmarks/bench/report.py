"""The markdown table: a row per figure, a column per client, the ratios loctrack / C client,
Swift port / C client and loctrack / Swift port (each per round, then the median), or
loctrack's difference to the C client, the issue's target, and whether loctrack meets it."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess

from .clients import ALL, C_CLIENT, JQ, LOCTRACK, PYTHON, SWIFT_PORT
from .findings import notes, problems
from .measure import median, ratio
from .once import differences, median_ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RIVALS = (JQ, PYTHON)  # loctrack must be ahead of both on every TPV-only flood figure


def fmt(value, digits=2):
    return "n/a" if value is None else f"{value:.{digits}f}"


def verdict(conditions) -> str:
    """missed if any condition failed, met if all held, n/a when one could not be judged."""
    conditions = list(conditions)
    if not conditions:
        return ""
    if any(c is False for c in conditions):
        return "**missed**"
    return "met" if all(c is True for c in conditions) else "n/a"


def below(a, b):
    return None if a is None or b is None else a < b


def machine_info() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, load average at the end {load}"


def built_at(path: str) -> str:
    try:
        return datetime.datetime.fromtimestamp(os.stat(path).st_mtime, datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M:%S UTC")
    except OSError:
        return "unknown"


def git_revision() -> str:
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def tool_versions(clients) -> str:
    def first_line(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            return "unknown"
    versions = [first_line(["gpsd", "-V"])]
    if JQ in clients:
        versions.append(first_line(["jq", "--version"]))
    if PYTHON in clients:
        python = clients[PYTHON].stream[0][0]
        versions.append("python3-gps " + first_line([python, "-c", "import gps; print(gps.__version__)"]))
    return ", ".join(versions)


RATIOS = ((LOCTRACK, C_CLIENT), (SWIFT_PORT, C_CLIENT), (LOCTRACK, SWIFT_PORT))


class Table:
    def __init__(self):
        ratios = " | ".join(f"{a} / {b}".replace("C client", "C") for a, b in RATIOS)
        self.lines = ["| figure | " + " | ".join(n.replace("|", "\\|") for n in ALL) + f" | {ratios} | target | |",
                      "|---|" + "---:|" * (len(ALL) + len(RATIOS)) + "---|---|"]

    def row(self, label, per_client, middle, target="", conditions=(), digits=2):
        """`middle`: the ratio cells (a tuple, one per RATIOS), or one text for the first of them."""
        cells = [fmt(per_client.get(name), digits) if name in per_client else "" for name in ALL]
        middle = tuple(middle) if isinstance(middle, tuple) else (middle,) + ("",) * (len(RATIOS) - 1)
        self.lines.append(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(middle) +
                          f" | {target} | {verdict(conditions)} |")


def round_ratio(rounds, key, a, b):
    """The median of the per-round ratios a / b."""
    return median([ratio(r[a][key], r[b][key]) for r in rounds if r.get(a) and r.get(b)])


def per_round(rounds, key):
    """({client: median over rounds}, median of the per-round loctrack / C ratios)."""
    names = {name for r in rounds for name in r}
    meds = {name: median([r[name][key] for r in rounds if r.get(name)]) for name in names}
    return meds, round_ratio(rounds, key, LOCTRACK, C_CLIENT)


def ratio_cells(rounds, key):
    """Every ratio of RATIOS, formatted."""
    return tuple(fmt(round_ratio(rounds, key, a, b)) for a, b in RATIOS)


FLOOD_ROWS = (  # key, label, digits, limit of loctrack / C on flood-tpv, must be below jq and python
    ("wall", "wall time (s)", 3, 1.0, True),
    ("cpu_us", "CPU per fix, user + sys (µs)", 2, 1.5, True),
    ("user_us", "… of which user (µs)", 2, None, False),
    ("sys_us", "… of which sys (µs)", 2, None, False),
    ("rss_mb", "peak RSS (MB)", 1, None, True),
    ("private_mb", "peak private memory, RssAnon (MB)", 2, None, True),
)


def flood_rows(table, opts, floods):
    for workload, rounds in floods.items():
        targeted = workload == "flood-tpv"
        for key, label, digits, limit, vs_rivals in FLOOD_ROWS:
            meds, rmed = per_round(rounds, key)
            target, conditions = [], []
            if targeted and limit is not None:
                target.append(f"≤ {limit:.2f} × C")
                conditions.append(None if rmed is None else rmed <= limit)
            if targeted and vs_rivals:
                target.append("below jq and python")
                conditions += [below(meds.get(LOCTRACK), meds.get(rival)) for rival in RIVALS]
            table.row(f"{workload} ({opts.flood_epochs:,} epochs): {label}", meds, ratio_cells(rounds, key),
                      "; ".join(target), conditions, digits)


def steady_rows(table, opts, steady):
    for rate in opts.rates:
        rounds = steady.get(rate) or []
        one_hz = rate == 1
        meds, rmed = per_round(rounds, "cpu_ms_per_s")
        behind_port = round_ratio(rounds, "cpu_ms_per_s", LOCTRACK, SWIFT_PORT)
        table.row(f"steady {rate:g} Hz: CPU (ms per s)", meds, ratio_cells(rounds, "cpu_ms_per_s"),
                  "≤ 1.50 × C; ≤ 1.00 × Swift port" if one_hz else "",
                  [None if rmed is None else rmed <= 1.5, None if behind_port is None else behind_port <= 1.0]
                  if one_hz else [], 3)
        meds, _ = per_round(rounds, "cpu_stat_ms_per_s")
        table.row(f"steady {rate:g} Hz: … utime + stime, /proc/PID/stat (ms per s; 10 ms ticks)", meds,
                  ratio_cells(rounds, "cpu_stat_ms_per_s"), digits=3)
        meds, rmed = per_round(rounds, "wakeups_per_fix")
        lt = meds.get(LOCTRACK)
        table.row(f"steady {rate:g} Hz: wakeups per fix", meds, ratio_cells(rounds, "wakeups_per_fix"),
                  "≤ 2" if one_hz else "", [None if lt is None else lt <= 2] if one_hz else [])
        meds, rmed = per_round(rounds, "voluntary_per_fix")
        table.row(f"steady {rate:g} Hz: … of which voluntary (thread blocked)", meds,
                  ratio_cells(rounds, "voluntary_per_fix"))
        for key, label in (("p50_ms", "latency p50 (ms)"), ("p99_ms", "latency p99 (ms)")):
            meds, _ = per_round(rounds, key)
            diffs = [r[LOCTRACK][key] - r[C_CLIENT][key] for r in rounds if r.get(LOCTRACK) and r.get(C_CLIENT)
                     and r[LOCTRACK][key] is not None and r[C_CLIENT][key] is not None]
            dmed = median(diffs)
            table.row(f"steady {rate:g} Hz: {label}", meds, "n/a" if dmed is None else f"{dmed:+.3f} ms", digits=3)
    idle = steady.get("idle")
    if idle:
        per = {name: m["wakeups_per_s"] for name, m in idle.items() if m}
        lt = per.get(LOCTRACK)
        table.row(f"idle watch ({opts.idle_seconds:g} s, no reports): wakeups per s", per, "", "0",
                  [None if lt is None else lt == 0])


def once_rows(table, warm, cold):
    for kind, results, target in (("warm", warm, "≤ 10 ms"), ("cold", cold, "≤ C + 150 ms")):
        if not results:
            continue
        meds = {name: median_ms(results, name) for name in results}
        dmed = median(differences(results, LOCTRACK))
        lt = meds.get(LOCTRACK)
        ok = (None if lt is None else lt <= 10) if kind == "warm" else (None if dmed is None else dmed <= 150)
        label = ("`once` on a warm gpsd: start to exit (ms)" if kind == "warm" else
                 "`once` on a cold gpsd (no -n): start to exit (ms)")
        table.row(label, meds, "n/a" if dmed is None else f"{dmed:+.0f} ms", target, [ok], 1)


def long_rows(table, opts, long):
    marks = long["marks"]
    first = min(marks)
    base_private = marks[first][0]
    for count, (private_kb, hwm_kb) in sorted(marks.items()):
        private = None if private_kb is None else private_kb / 1024
        is_end = count == max(marks)
        conditions = [None if private is None else private <= 4]
        target = "≤ 4 MB"
        if is_end:
            target += f", flat (≤ 5 % above {first:,})"
            conditions.append(None if private_kb is None or base_private is None else
                              private_kb <= base_private * 1.05)
        table.row(f"long flood, after {count:,} fixes: loctrack private memory, peak RssAnon (MB)",
                  {LOCTRACK: private}, "", target if count in (first, max(marks)) else "",
                  conditions if count in (first, max(marks)) else [])
        table.row(f"long flood, after {count:,} fixes: loctrack VmHWM (MB)",
                  {LOCTRACK: None if hwm_kb is None else hwm_kb / 1024}, "", digits=1)


def ages_line(kind, results):
    if not results:
        return []
    parts = [f"{name} {fmt(median(r['ages']))} s" for name, r in results.items() if median(r["ages"]) is not None]
    return [f"- `once` {kind}: age of the printed fix by the wall clock at exit, median: " + ", ".join(parts) + "."]


def report(opts, clients, floods, steady, warm, cold, long, sections=(), checked=()) -> str:
    """`sections`: markdown lines of parts with tables of their own (bench/monitor.py, publish.py, fleet.py),
    after the main one; `checked`: what their checks proved, one phrase each."""
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = [f"# loctrack benchmark results ({'smoke run' if opts.smoke else 'make bench'})", "",
           f"- date: {now}",
           f"- machine: {machine_info()}",
           f"- tools: {tool_versions(clients)}",
           f"- rounds: {opts.rounds} ({opts.once_rounds} for `once` on a cold gpsd, {opts.once_warm_rounds} on a warm one; the clients alternate order round by round); "
           "ratios are loctrack / C client, per round, then the median; differences likewise",
           f"- loctrack: {opts.loctrack}, built {built_at(opts.loctrack)} (source tree at the start of the run: "
           f"{opts.revision})",
           "- flood-tpv: TPV reports only (loctrack's own cost per fix); flood-sky: TPV + a 1.35 KB SKY per "
           "epoch (what gpsd sends); CPU is user + sys from wait4, private memory is RssAnon sampled every 10 ms; "
           "a pipeline's figures are the sums over its processes", ""]
    table = Table()
    if floods:
        flood_rows(table, opts, floods)
    if steady:
        steady_rows(table, opts, steady)
    once_rows(table, warm, cold)
    if long:
        long_rows(table, opts, long)
    out += table.lines if len(table.lines) > 2 else []  # header only: no part of the main table ran
    extra = ages_line("warm", warm) + ages_line("cold", cold)
    missing = [name for name in ALL if name not in clients]
    if missing:
        extra.append("- not run here (not installed): " + ", ".join(missing) + ".")
    if extra:
        out += [""] + extra
    out += list(sections)
    checks = "all checks passed"
    if floods:
        checks += (" (on both floods every client printed exactly one fix per epoch, and loctrack's output, less "
                   "its own `stationary` field, equals the C client's byte for byte)")
    checks += "".join(f" ({phrase})" for phrase in checked)
    out += ["", "Correctness: " + (checks + "." if not problems else "**problems**:")]
    out += [f"- {p}" for p in problems]
    if notes:
        out += ["", "Notes (timing-dependent or missing tools, not failures):"] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"
