"""The record part: `loctrack stream --output FILE` against what a user would otherwise run.

Five runs per workload (flood-tpv, flood-sky; the floods part's N epochs) and round, in an
order that rotates round by round, each into a fresh file:

  stream --format gpx > FILE   `loctrack stream --format gpx --no-reconnect > FILE`: a shell
                               redirect (the file lacks its closing tags until loctrack ends)
  --output FILE.gpx            `loctrack stream --output FILE.gpx --no-reconnect` (the track
                               writer process included: wait4 counts a reaped child's CPU)
  gpxlogger -f FILE.gpx        gpsd's own logger (closing tags written only at its end)
  stream --format json > FILE  the same for JSON lines
  --output FILE.json

Checks (run.py exits 1): every GPX file is well-formed XML with N <trkpt>, every JSON file has
N lines, each one a TPV; each loctrack exits as a stream does when gpsd goes away (69).
After the rounds, a kill check: each GPX writer is SIGKILLed 10 times mid-flood, and the share
of files left well-formed is reported (no pass or fail: it shows what the design buys).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
import xml.etree.ElementTree as ElementTree

from .clients import rounds_of
from .findings import log, warn
from .flood import WORKLOADS, start_emulator, stderr_tail
from .measure import median_ratios, medians, run_measured
from support import processes as procs  # scripts/support
from .report import fmt

REDIRECT_GPX, OUTPUT_GPX, GPXLOGGER = "stream --format gpx > FILE", "--output FILE.gpx", "gpxlogger -f FILE.gpx"
REDIRECT_JSON, OUTPUT_JSON = "stream --format json > FILE", "--output FILE.json"
VARIANTS = (REDIRECT_GPX, OUTPUT_GPX, GPXLOGGER, REDIRECT_JSON, OUTPUT_JSON)
GPX_NS = "{http://www.topografix.com/GPX/1/1}"
RECORD_CHECKS = ("record: every GPX file well-formed with every fix, every JSON file one TPV line per fix; "
                 "loctrack exited as a stream does when gpsd goes away")
STREAM_EXIT = 69
KILLS = 10


def gpxlogger() -> str | None:
    for path in ("/usr/bin/gpxlogger", "/usr/sbin/gpxlogger"):
        if os.access(path, os.X_OK):
            return path
    return None


def stages_of(opts, variant: str, source: str, path: str):
    """(argv list, whether stdout goes to `path`)."""
    base = [opts.loctrack, "stream", "--no-reconnect"]
    if variant == REDIRECT_GPX:
        return [base + ["--format", "gpx", source]], True
    if variant == REDIRECT_JSON:
        return [base + ["--format", "json", source]], True
    if variant in (OUTPUT_GPX, OUTPUT_JSON):
        return [base + ["--output", path, source]], False
    return [[gpxlogger(), "-f", path, source]], False


def points_in(path: str, variant: str):
    """The fixes a finished file holds, or None when it does not parse."""
    try:
        if variant in (REDIRECT_JSON, OUTPUT_JSON):
            with open(path, "rb") as f:
                lines = f.read().splitlines()
            return sum(1 for line in lines if line.startswith(b'{"class":"TPV"'))
        return sum(1 for _ in ElementTree.parse(path).getroot().iter(GPX_NS + "trkpt"))
    except (OSError, ElementTree.ParseError):
        return None


def measured_run(opts, variant: str, workload: str, workdir: str):
    epochs = opts.flood_epochs
    path = os.path.join(workdir, "track." + ("json" if "json" in variant else "gpx"))
    if os.path.exists(path):
        os.remove(path)
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1] + WORKLOADS[workload])
    stages, to_file = stages_of(opts, variant, f"127.0.0.1:{port}", path)
    err_path = os.path.join(workdir, "run.err")
    try:
        with open(path if to_file else os.devnull, "wb") as out, open(err_path, "wb") as err:
            m = run_measured(stages, out, err, opts.flood_timeout, workdir)
    finally:
        procs.terminate(emulator, 2)
    if m is None:
        warn(f"record {workload}: {variant} did not finish {epochs} epochs within {opts.flood_timeout:.0f} s")
        return None
    if variant != GPXLOGGER and m["codes"][-1] != STREAM_EXIT:
        warn(f"record {workload}: {variant} exited {m['codes'][-1]} (expected {STREAM_EXIT}): {stderr_tail(err_path)}")
    m["points"] = points_in(path, variant)
    if m["points"] != epochs:
        warn(f"record {workload}: {variant} left {m['points']} fixes in a well-formed file, expected {epochs}")
    m.update(cpu_us=(m["user"] + m["sys"]) / epochs * 1e6,
             rss_mb=None if m["rss_kb"] is None else m["rss_kb"] / 1024,
             private_mb=None if m["private_kb"] is None else m["private_kb"] / 1024,
             file_mb=os.path.getsize(path) / 1e6 if os.path.exists(path) else None)
    return m


def kill_check(opts, variant: str, workdir: str, rng: random.Random) -> int:
    """How many of KILLS files were well-formed after a SIGKILL of the writer mid-flood."""
    whole = 0
    for _ in range(KILLS):
        path = os.path.join(workdir, "killed.gpx")
        if os.path.exists(path):
            os.remove(path)
        emulator, port = start_emulator(opts.emulator, ["-n", opts.flood_epochs, "-C", 1, "-l", 5])
        stages, to_file = stages_of(opts, variant, f"127.0.0.1:{port}", path)
        with open(path if to_file else os.devnull, "wb") as out:
            proc = subprocess.Popen(stages[0], stdout=out, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.05, 0.3))
            proc.send_signal(signal.SIGKILL)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                warn(f"record: the SIGKILLed loctrack (pid {proc.pid}) was not reaped within 10 s")
        deadline = time.monotonic() + 10  # loctrack's track writer finishes and exits on its own
        while time.monotonic() < deadline and any(b"__record-writer" in c and path.encode() in c
                                                   for c in procs_cmdlines()):
            time.sleep(0.01)
        procs.terminate(emulator, 2)
        whole += points_in(path, variant) is not None
    return whole


def procs_cmdlines():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    yield f.read()
            except OSError:
                continue


def run_record(opts, workdir: str):
    """{"rounds": {workload: [{variant: measurements}]}, "kills": {variant: whole files}}"""
    base = os.path.join(workdir, "record")
    os.makedirs(base, exist_ok=True)
    names = [v for v in VARIANTS if v != GPXLOGGER or gpxlogger()]
    results = {}
    for workload in WORKLOADS:
        log(f"== record, {workload}: {opts.flood_epochs:,} epochs, {opts.rounds} rounds")
        rounds = rounds_of(opts, names, lambda variant: measured_run(opts, variant, workload, base),
                           lambda m: f"wall {m['wall']:7.3f} s  cpu/fix {m['cpu_us']:7.2f} us  "
                                     f"private {m['private_mb'] or 0:6.2f} MB  fixes {m['points']}")
        results[workload] = rounds
    rng = random.Random(opts.flood_epochs)
    kills = {v: kill_check(opts, v, base, rng) for v in (REDIRECT_GPX, OUTPUT_GPX, GPXLOGGER) if v in names}
    log("  whole GPX files after a SIGKILL mid-flood: " + ", ".join(f"{v} {n}/{KILLS}" for v, n in kills.items()))
    return {"rounds": results, "kills": kills, "names": names}


ROWS = (("wall", "wall time (s)", 3), ("cpu_us", "CPU per fix, user + sys (µs)", 2),
        ("private_mb", "peak private memory, RssAnon (MB)", 2), ("file_mb", "file size (MB)", 2))


def record_section(opts, record) -> list[str]:
    names = record["names"]
    out = ["", "## Record: `stream --output` against a shell redirect and gpxlogger", "",
           "Each run records the whole flood into a fresh file. `--output`'s figures include its track writer "
           "process's CPU (wait4 counts a reaped child's); its peak private memory is loctrack's alone. "
           "Ratios: `--output` / the redirect of the same format, per round, then the median.", "",
           "| figure | " + " | ".join(names) + " | --output.gpx / redirect | --output.json / redirect |",
           "|---|" + "---:|" * len(names) + "---:|---:|"]
    for workload, rounds in record["rounds"].items():
        for key, label, digits in ROWS:
            meds = medians(rounds, names, key)
            ratios = median_ratios(rounds, ((OUTPUT_GPX, REDIRECT_GPX), (OUTPUT_JSON, REDIRECT_JSON)), key)
            out.append(f"| {workload} ({opts.flood_epochs:,} epochs): {label} | "
                       + " | ".join(fmt(v, digits) for v in meds) + " | " + " | ".join(fmt(v) for v in ratios) + " |")
    out.append("")
    out.append("- Well-formed GPX files after a SIGKILL of the recording process at a random moment "
               f"(50–300 ms into a flood), of {KILLS}: "
               + "; ".join(f"{v}: {n}" for v, n in record["kills"].items()) + ".")
    return out
