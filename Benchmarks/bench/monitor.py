"""The monitor part: `loctrack monitor run` with 10,000 polygons against `loctrack stream`.

Both read the same flood (flood-tpv and flood-sky, the floods part's N epochs, the emulator's
straight north-east track); the polygons (bench/geofences.py) lie around that track, so the
monitor enters and leaves many of them. Four runs per workload and round, in an order that
rotates round by round:

  stream                     `loctrack stream --format json --no-reconnect`: the baseline
  monitor, 0 conditions      `loctrack monitor run --format json --no-reconnect`, empty monitor
  monitor, 1 circle          ... one circle the track crosses half-way
  monitor, N polygons        ... the N polygons, added with `monitor add --geojson` (timed)

Each monitor run starts from a fresh XDG_STATE_HOME, so every round decides the same fixes
from the same state. Checks (run.py exits 1): stream prints N fixes; every monitor line is
JSON with class EVENT; a monitor with conditions prints events; each variant's events are
byte for byte the same in every round and on both workloads (they depend on the fixes only).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

from .clients import LOCTRACK, rounds_of
from .findings import log, warn
from .flood import WORKLOADS, start_emulator, stderr_tail
from .geofences import circle_on_track, write_polygons
from .measure import median, ratio, run_measured
from support import processes as procs  # scripts/support
from .report import fmt, verdict

NAME = "bench"  # the monitor's name
STREAM, EMPTY, CIRCLE = "stream", "monitor, 0 conditions", "monitor, 1 circle"
CPU_LIMIT = 2.0  # monitor with the polygons / stream, CPU per fix
MONITOR_CHECKS = ("monitor: every event line is an EVENT object, each variant's events are the same bytes in "
                  "every round and on both floods")
EXPECTED_EXIT = 69  # --no-reconnect, gpsd went away (docs/exit-codes.md)


def polygons_label(opts) -> str:
    return f"monitor, {opts.monitor_polygons:,} polygons"


def variants(opts):
    return [STREAM, EMPTY, CIRCLE, polygons_label(opts)]


def add_conditions(opts, variant: str, geojson: str, workdir: str):
    """A fresh XDG_STATE_HOME holding the variant's monitor: (environment, the add's
    measurements or None)."""
    state = os.path.join(workdir, "state")
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    env = dict(os.environ, XDG_STATE_HOME=state)
    if variant == CIRCLE:
        lat, lon, radius = circle_on_track(opts.flood_epochs)
        what = ["c1", "--circle", f"{lat},{lon},{radius}"]
    elif variant == polygons_label(opts):
        what = ["--geojson", geojson]
    else:
        return env, None
    argv = [opts.loctrack, "monitor", "add"] + what + ["--name", NAME]
    err_path = os.path.join(workdir, "add.err")
    with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
        m = run_measured([argv], out, err, opts.monitor_timeout, workdir, env=env)
    if m is None or m["codes"][-1] != 0:
        warn(f"monitor add ({variant}) failed: {m and m['codes']}: {stderr_tail(err_path)}")
        return env, None
    m["state_mb"] = os.path.getsize(os.path.join(state, "loctrack", f"{NAME}.monitor.json")) / 1e6
    return env, m


def check_events(path: str, variant: str, workload: str):
    """(sha256 of the output, {state: count}, number of lines); a bad line is a problem."""
    with open(path, "rb") as f:
        data = f.read()
    tally = {}
    for number, line in enumerate(data.splitlines(), 1):
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or event.get("class") != "EVENT":
            warn(f"{workload} {variant}: line {number} is not an EVENT object: {line[:200]!r}")
            break
        key = "accuracyLimited" if event.get("accuracyLimited") else event.get("state")
        tally[key] = tally.get(key, 0) + 1
    return hashlib.sha256(data).hexdigest(), tally, data.count(b"\n")


def measured_run(opts, clients, variant: str, workload: str, geojson: str, workdir: str):
    env, add = add_conditions(opts, variant, geojson, workdir)
    epochs = opts.flood_epochs
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1] + WORKLOADS[workload])
    source = f"127.0.0.1:{port}"
    if variant == STREAM:
        stages = clients[LOCTRACK].stream_stages(source)
    else:
        stages = [[opts.loctrack, "monitor", "run", "--name", NAME, "--format", "json", "--no-reconnect", source]]
    out_path, err_path = os.path.join(workdir, "run.out"), os.path.join(workdir, "run.err")
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            m = run_measured(stages, out, err, opts.monitor_timeout, workdir, env=env)
    finally:
        procs.terminate(emulator, 2)
    if m is None:
        warn(f"{workload}: {variant} did not finish {epochs} epochs within {opts.monitor_timeout:.0f} s")
        return None
    if m["codes"][-1] != EXPECTED_EXIT:
        warn(f"{workload}: {variant} exited {m['codes'][-1]} (expected {EXPECTED_EXIT}): {stderr_tail(err_path)}")
    if variant == STREAM:
        with open(out_path, "rb") as f:
            m["events"] = clients[LOCTRACK].count_fixes(f.read())
        m["digest"], m["tally"] = None, {}
        if m["events"] != epochs:
            warn(f"{workload}: stream printed {m['events']} fixes for {epochs} epochs: {stderr_tail(err_path)}")
    else:
        m["digest"], m["tally"], m["events"] = check_events(out_path, variant, workload)
        if variant != EMPTY and m["events"] == 0:
            warn(f"{workload}: {variant} printed no events: {stderr_tail(err_path)}")
    m.update(cpu_us=(m["user"] + m["sys"]) / epochs * 1e6, user_us=m["user"] / epochs * 1e6,
             sys_us=m["sys"] / epochs * 1e6, rss_mb=None if m["rss_kb"] is None else m["rss_kb"] / 1024,
             private_mb=None if m["private_kb"] is None else m["private_kb"] / 1024, add=add)
    return m


def describe_monitor(m) -> str:
    add = f"  (add {m['add']['wall']:.3f} s)" if m["add"] else ""
    return (f"wall {m['wall']:8.3f} s  cpu/fix {m['cpu_us']:8.2f} us  rss {m['rss_mb'] or 0:6.1f} MB  "
            f"private {m['private_mb'] or 0:6.2f} MB  lines {m['events']}{add}")


def run_monitor(opts, clients: dict, workdir: str):
    """{"rounds": {workload: [{variant: measurements}, one per round]}, "geojson_mb": size}"""
    base = os.path.join(workdir, "monitor")
    os.makedirs(base, exist_ok=True)
    geojson = os.path.join(base, "polygons.geojson")
    size = write_polygons(geojson, opts.monitor_polygons, opts.flood_epochs)
    results = {}
    for workload in WORKLOADS:
        log(f"== monitor, {workload}: {opts.flood_epochs:,} epochs, {opts.rounds} rounds, "
            f"{opts.monitor_polygons:,} polygons ({size / 1e6:.1f} MB of GeoJSON)")
        rounds = rounds_of(opts, variants(opts), lambda variant: measured_run(opts, clients, variant, workload, geojson, base),
                           describe_monitor)
        results[workload] = rounds
    check_determinism(results)
    shutil.rmtree(base, ignore_errors=True)
    return {"rounds": results, "geojson_mb": size / 1e6}


def check_determinism(results) -> None:
    """Each variant's events: the same bytes in every round and on both workloads."""
    seen = {}
    for workload, rounds in results.items():
        for number, result in enumerate(rounds, 1):
            for variant, m in result.items():
                if not m or m["digest"] is None:
                    continue
                first = seen.setdefault(variant, (workload, number, m["digest"], m["events"]))
                if first[2] != m["digest"]:
                    warn(f"monitor: {variant}'s events differ between {first[0]} round {first[1]} ({first[3]} lines) "
                         f"and {workload} round {number} ({m['events']} lines)")


ROWS = (  # key, label, digits, with the CPU target
    ("wall", "wall time (s)", 3, False),
    ("cpu_us", "CPU per fix, user + sys (µs)", 2, True),
    ("user_us", "… of which user (µs)", 2, False),
    ("sys_us", "… of which sys (µs)", 2, False),
    ("rss_mb", "peak RSS (MB)", 1, False),
    ("private_mb", "peak private memory, RssAnon (MB)", 2, False),
    ("events", "lines printed (fixes for stream, events for monitor)", 0, False),
)


def monitor_section(opts, monitor) -> list[str]:
    """The markdown lines of the monitor part: its own table (a column per variant)."""
    names = variants(opts)
    polygons = names[-1]
    out = ["", f"## Monitor: {opts.monitor_polygons:,} polygons", "",
           f"`loctrack monitor run --format json --no-reconnect` against `loctrack stream --format json "
           f"--no-reconnect` on the same floods; {opts.monitor_polygons:,} 5- to 8-vertex polygons, 50–500 m "
           f"across, a third concave ({monitor['geojson_mb']:.1f} MB of GeoJSON), around the emulator's track "
           "(Benchmarks/bench/geofences.py); each monitor run from a fresh state file. Ratio: polygons / stream, "
           "per round, then the median.", "",
           "| figure | " + " | ".join(names) + " | polygons / stream | target | |",
           "|---|" + "---:|" * len(names) + "---:|---|---|"]
    for workload, rounds in monitor["rounds"].items():
        for key, label, digits, targeted in ROWS:
            meds = [median([r[n][key] for r in rounds if r.get(n)]) for n in names]
            rmed = None if key == "events" else median([ratio(r[polygons][key], r[STREAM][key]) for r in rounds
                                                        if r.get(polygons) and r.get(STREAM)])
            target = f"≤ {CPU_LIMIT:.2f} × stream" if targeted else ""
            mark = verdict([None if rmed is None else rmed <= CPU_LIMIT]) if targeted else ""
            out.append(f"| {workload} ({opts.flood_epochs:,} epochs): {label} | "
                       + " | ".join(fmt(v, digits) for v in meds) + f" | {fmt(rmed) if key != 'events' else ''} | {target} | {mark} |")
    out.append("")
    adds = [r[polygons]["add"] for rounds in monitor["rounds"].values() for r in rounds
            if r.get(polygons) and r[polygons]["add"]]
    if adds:
        out.append(f"- `monitor add --geojson` of the {opts.monitor_polygons:,} polygons (one write), median of "
                   f"{len(adds)}: wall {fmt(median([a['wall'] for a in adds]), 3)} s, CPU "
                   f"{fmt(median([a['user'] + a['sys'] for a in adds]), 3)} s, peak RSS "
                   f"{fmt(median([a['rss_kb'] and a['rss_kb'] / 1024 for a in adds]), 1)} MB; state file "
                   f"{fmt(median([a['state_mb'] for a in adds]))} MB.")
    for workload, rounds in monitor["rounds"].items():
        first = next((r for r in rounds), {})
        parts = [f"{n}: " + ", ".join(f"{k} {v:,}" for k, v in sorted(first[n]["tally"].items()))
                 for n in names[1:] if first.get(n) and first[n]["tally"]]
        if parts:
            out.append(f"- {workload} events by state (the same in every round): " + "; ".join(parts) + ".")
    return out
