"""The trips part: `loctrack trips` on recorded track files against what a Python user runs.

Workloads (bench/drive.py: one fixed-seed drive at 1 Hz, parked spells between drives with stops at
lights, written as loctrack writes it), named in the output with their sizes:
  json-lines  a day of JSON lines: 86,400 TPV lines as `stream --format json` writes them (--trips-fixes)
  gpx         a GPX of 100,000 track points as `stream --format gpx` writes them (--trips-gpx-points)
Clients, each one process run to its end on the file:
  loctrack trips          `loctrack trips --format text FILE`: the exec into loctrack-trips included;
                          reads, merges, runs the odometer and the trip detector, prints the trips
  gpxpy                   Benchmarks/python-trips/gpx_trips.py in .build-bench/venv (gpxpy 1.6.2 from
                          PyPI, made by this part from Benchmarks/python-trips/requirements.txt):
                          gpxpy.parse, length_2d(), get_moving_data(); the GPX workload
  json.loads + haversine  Benchmarks/python-trips/json_trips.py (standard library): json.loads per line,
                          haversine between fixes, moving time; the JSON lines workload
Figures per run (bench/measure.py's run_measured): wall time (spawn to exit), CPU (user + sys), peak
RSS (GNU time's %M). Ratios loctrack / rival, per round, then the median. Target (issue 34 item 6):
the day of JSON lines (86,400) in at most 0.2 s; judged only at that size or more.
Checks (run.py exits 1): every client exits 0 and counts every point of the file (loctrack's total
line, the rivals' "points").
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from support import pinned_venv  # scripts/support

from . import drive
from .clients import rounds_of
from .findings import left_out, log, warn
from .measure import median, ratio, run_measured
from .report import fmt, verdict

ROOT = Path(__file__).resolve().parent.parent.parent
RIVALS_DIR = ROOT / "Benchmarks" / "python-trips"
VENV = ROOT / ".build-bench" / "venv"
LOCK = RIVALS_DIR / "requirements.txt"
GPXPY_VERSION = "1.6.2"

LOCTRACK, GPXPY, JSON_LOOP = "loctrack trips", "gpxpy", "json.loads + haversine"
JSON_DAY, GPX_LONG = "json-lines", "gpx"
DAY = 86_400
TARGET_S = 0.2  # the day of JSON lines, wall time
TRIPS_CHECKS = ("trips: every client exited 0 and counted every point of the file")
TOTALS = re.compile(r"(\d+) trips?\s+([\d.]+) km.*\(([\d.]+ k?m) in all; (\d+) points? from")


def venv_ready(venv: Path = VENV) -> bool:
    python = pinned_venv.python(venv)
    if not python.exists() or not pinned_venv.made_from(venv, LOCK):
        return False
    check = f"import gpxpy; assert gpxpy.__version__ == {GPXPY_VERSION!r}"
    return subprocess.run([str(python), "-c", check], capture_output=True).returncode == 0


def gpxpy_python() -> str | None:
    """The venv's Python with gpxpy, made when missing (PyPI must be reachable); None when it cannot be."""
    try:
        pinned_venv.ensure(VENV, LOCK, venv_ready, pinned_venv.this_python, tool="bench", contents="gpxpy",
                           not_working=f"does not import gpxpy {GPXPY_VERSION}")
    except (SystemExit, subprocess.CalledProcessError, OSError) as error:
        left_out(f"trips: gpxpy left out, its venv could not be made ({error})")
        return None
    return str(pinned_venv.python(VENV))


def workloads(opts) -> dict:
    """{workload: (file name, points, {client: argv builder})}"""
    python = gpxpy_python()
    loctrack = lambda path: [opts.loctrack, "trips", "--format", "text", path]  # noqa: E731
    gpx_clients = {LOCTRACK: loctrack}
    if python:
        gpx_clients[GPXPY] = lambda path: [python, str(RIVALS_DIR / "gpx_trips.py"), path]
    json_python = pinned_venv.this_python()
    return {
        JSON_DAY: ("day.json", opts.trips_fixes,
                   {LOCTRACK: loctrack, JSON_LOOP: lambda path: [json_python, str(RIVALS_DIR / "json_trips.py"), path]}),
        GPX_LONG: ("long.gpx", opts.trips_gpx_points, gpx_clients),
    }


def points_counted(client: str, out_path: str):
    """(points, what it found) from a client's output, or None when it printed no result."""
    try:
        with open(out_path) as f:
            text = f.read()
    except OSError:
        return None
    if client == LOCTRACK:
        lines = text.strip().splitlines()
        found = TOTALS.search(lines[-1]) if lines else None
        return (int(found[4]), f"{found[1]} trips, {found[2]} km ({found[3]} in all)") if found else None
    try:
        result = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return result["points"], f"{result['length_m'] / 1000:.2f} km, {result['moving_s'] / 3600:.2f} h moving"


def measured_run(opts, workload: str, client: str, argv, path: str, points: int, workdir: str):
    out_path, err_path = os.path.join(workdir, "trips.out"), os.path.join(workdir, "trips.err")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        m = run_measured([argv], out, err, 120 + points / 1000, workdir)
    if m is None:
        warn(f"trips {workload}: {client} did not finish within {120 + points / 1000:.0f} s")
        return None
    counted = points_counted(client, out_path)
    if m["codes"] != [0] or counted is None or counted[0] != points:
        with open(err_path, errors="replace") as f:
            tail = f.read()[-300:]
        warn(f"trips {workload}: {client} exited {m['codes']} counting {counted and counted[0]} of {points} points: {tail}")
    m.update(cpu=m["user"] + m["sys"], rss_mb=None if m["rss_kb"] is None else m["rss_kb"] / 1024,
             found=counted[1] if counted else None)
    return m


def run_trips(opts, workdir: str):
    """{"rounds": {workload: [{client: measurements}]}, "points": {workload: n}, "clients": {workload: [names]}}"""
    loctrack_trips = os.path.join(os.path.dirname(opts.loctrack), "loctrack-trips")
    if not os.access(loctrack_trips, os.X_OK):  # built by `make bench`: its absence is a failure
        warn(f"trips: cannot run, missing {loctrack_trips} (`make bench-build` builds it)")
        return None
    base = os.path.join(workdir, "trips")
    os.makedirs(base, exist_ok=True)
    results = {"rounds": {}, "points": {}, "clients": {}}
    for workload, (name, points, clients) in workloads(opts).items():
        path = os.path.join(base, name)
        (drive.write_json_lines if name.endswith(".json") else drive.write_gpx)(path, points)
        log(f"== trips, {workload_name(workload, points)}: {points:,} points ({os.path.getsize(path) / 1e6:.1f} MB), {opts.rounds} rounds")
        results["rounds"][workload] = rounds_of(
            opts, list(clients), lambda client: measured_run(opts, workload, client, clients[client](path), path, points, base),
            lambda m: f"wall {m['wall']:7.3f} s  cpu {m['cpu']:7.3f} s  rss {m['rss_mb'] or 0:7.1f} MB  {m['found']}")
        results["points"][workload] = points
        results["clients"][workload] = list(clients)
    return results


ROWS = (("wall", "wall time (s)", 3), ("cpu", "CPU, user + sys (s)", 3), ("rss_mb", "peak RSS (MB)", 1))


def workload_name(workload: str, points: int) -> str:
    """What the workload is, exactly: `86,400 TPV JSON lines (stream --format json, a day at 1 Hz)`."""
    if workload == JSON_DAY:
        return f"{points:,} TPV JSON lines (stream --format json{', a day at 1 Hz' if points == DAY else ''})"
    return f"a GPX of {points:,} track points (stream --format gpx)"


def trips_section(opts, trips) -> list[str]:
    out = ["", "## Trips: `loctrack trips` against gpxpy and a json.loads loop", "",
           "Each run reads the whole file once: `loctrack trips --format text FILE` (reading, merging, the "
           "odometer and the trip detector, the trips printed) against gpxpy (parse, `length_2d()`, "
           "`get_moving_data()`) on the GPX and a Python loop of `json.loads` and haversine on the JSON lines. "
           "The drive: bench/drive.py, one fixed seed, 1 Hz, parked spells and drives with stops. "
           f"Ratio: loctrack / the rival, per round, then the median. Target: a day of JSON lines ({DAY:,}) in ≤ {TARGET_S} s.",
           "", "| workload: figure | loctrack trips | rival | rival's name | loctrack / rival | target |",
           "|---|---:|---:|---|---:|---|"]
    for workload, rounds in trips["rounds"].items():
        points = trips["points"][workload]
        rivals = [c for c in trips["clients"][workload] if c != LOCTRACK]
        rival = rivals[0] if rivals else None
        for key, label, digits in ROWS:
            ours = median([r[LOCTRACK][key] for r in rounds if r.get(LOCTRACK)])
            theirs = median([r[rival][key] for r in rounds if r.get(rival)]) if rival else None
            ratios = median([ratio(r[LOCTRACK][key], r[rival][key]) for r in rounds
                             if rival and r.get(LOCTRACK) and r.get(rival)])
            target = ""
            if workload == JSON_DAY and key == "wall":
                judged = None if ours is None or points < DAY else ours <= TARGET_S
                target = f"≤ {TARGET_S} s for {DAY:,}: " + (verdict([judged]) if points >= DAY else "not judged at this size")
            out.append(f"| {workload_name(workload, points)}: {label} | {fmt(ours, digits)} | "
                       f"{fmt(theirs, digits)} | {rival or 'n/a'} | {fmt(ratios)} | {target} |")
    out.append("")
    for workload, rounds in trips["rounds"].items():
        found = {c: next((r[c]["found"] for r in rounds if r.get(c)), None) for c in trips["clients"][workload]}
        out.append(f"- {workload_name(workload, trips['points'][workload])}, what each found: " + "; ".join(f"{c}: {f}" for c, f in found.items()) + ".")
    out.append("- loctrack's distance is its odometer's (nothing while parked) and its trips Traccar's rules; the "
               "rivals add up every step, parked jitter included, so their kilometres are more, not a fault of either.")
    return out
