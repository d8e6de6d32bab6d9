"""The traccar part: draining a backlog to a Traccar stand-in over loopback, and the odometer's cost.

Drain (the stand-in, scripts/support/traccar_standin.py, the same as the end-to-end tests', one
fresh process per run, every id known):
  loctrack             `loctrack stream --publish http://127.0.0.1:PORT/?id=bench --spool COPY
                       127.0.0.1:1`: a copy of a spool filled once with N fixes (the flood emulator
                       read while the port refused connections), drained at start; no gpsd behind
  curl, keep-alive     `curl -s --config FILE`, FILE holding the same N requests as `url = …` lines
                       (the targets loctrack sent, as the stand-in recorded them; without loctrack's
                       uplink, generated ones of the same shape): one connection, one request at a
                       time, what a feeder with a queue and libcurl at its best would do
  curl per position    `while read -r u; do curl -s -o /dev/null "$u"; done < FILE` over the first
                       M of them: a process and a connection per position, what the Linux
                       feeders people publish amount to
Figures per run: positions per second at the stand-in (first to last arrival), wall time from the
client's spawn to the last arrival, the client's CPU per position, and the stand-in's CPU per
position and how busy it was (its CPU time over the drain's span): near 100 %, the Python stand-in
is the bottleneck and the rates are its ceiling rather than the clients'. Checks (run.py exits 1):
all positions stored, in order, on one connection (curl per position: one each).

Odometer: `loctrack stream --format json` against the same with `--odometer`, on flood-tpv and
flood-sky (the floods part's N epochs): CPU per fix, medians over the rounds; target ≤ 1.05 ×.
A loctrack whose `stream --help` does not mention --odometer (or http://, for the drain) fails the part.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from support import processes as procs  # scripts/support
from support import spool as spool_files
from support.procfs import proc_cpu
from support.waiting import wait_until
from support.traccar_standin import StandinProcess

from .clients import rounds_of
from .findings import lacks_feature, left_out, log, warn
from .flood import WORKLOADS, start_emulator, stderr_tail
from .measure import median, median_ratios, medians, ratio, run_measured
from .report import fmt, verdict

LOCTRACK, KEEP_ALIVE, PER_POSITION = "loctrack", "curl, keep-alive", "curl per position"
VARIANTS = (LOCTRACK, KEEP_ALIVE, PER_POSITION)
DEVICE = "bench"
FLOOD_BASE_MS = 1_735_689_600_000  # flood_gpsd's epoch 0
ODOMETER_OFF, ODOMETER_ON = "stream", "stream --odometer"
TRACCAR_CHECKS = ("traccar: every position stored at the stand-in, in order, on one connection (curl per position: "
                  "one each); where measured, `stream --odometer` printed every fix")


def synthetic_targets(count: int) -> list[str]:
    """Requests of the shape loctrack sends (traccar-facts.md's parameters), for when it has no uplink."""
    targets = []
    for k in range(count):
        targets.append("/?id=%s&timestamp=%d&lat=%.9f&lon=%.9f&speed=%.3f&bearing=%.1f&altitude=%.1f&accuracy=%.1f"
                       "&hdop=%.1f&odometer=%.1f&motion=true&status=2&device=%%2Fdev%%2FttyACM0"
                       % (DEVICE, FLOOD_BASE_MS + k * 1000, 40.75 + k * 1e-6, -73.99 + k * 1e-6, 9.719, 45.0, 12.3,
                          3.2, 0.9, k * 11.1))
    return targets


def fill_spool(opts, workdir: str, port: int, count: int):
    """A spool holding `count` fixes: loctrack reads a flood while nothing listens on port, then
    SIGTERM. Returns the spool folder, or None."""
    spool = os.path.join(workdir, "filled-spool")
    shutil.rmtree(spool, ignore_errors=True)
    emulator, gpsd_port = start_emulator(opts.emulator, ["-n", count, "-t", "-s", 1000, "-C", 1, "-l", 600])
    err_path = os.path.join(workdir, "fill.err")
    with open(err_path, "wb") as err:
        proc = procs.spawn(publish_argv(opts, port, spool, f"127.0.0.1:{gpsd_port}"), stdout=subprocess.DEVNULL,
                           stderr=err, env=state_environment(workdir))
    last_fix = b"timestamp=%d&" % (FLOOD_BASE_MS + (count - 1) * 1000)
    try:  # filled once the flood's last fix is in the spool
        filled = wait_until(lambda: spool_files.holds(spool, last_fix), 60 + count / 500, 0.25)
    finally:
        code = procs.terminate(proc, 15)
        procs.terminate(emulator, 2)
    if not filled or code != 0:
        warn(f"traccar: filling the spool: loctrack {'exited %s' % code if filled else 'never spooled the last fix'}: "
             f"{stderr_tail(err_path)}")
        return None
    return spool


def state_environment(workdir: str) -> dict:
    """The bench's own XDG_STATE_HOME: the odometer a Traccar sink runs persists there, not in the user's."""
    return dict(os.environ, XDG_STATE_HOME=os.path.join(workdir, "state"))


def publish_argv(opts, port: int, spool: str, source: str) -> list[str]:
    return [opts.loctrack, "stream", "--publish", f"http://127.0.0.1:{port}/?id={DEVICE}", "--spool", spool, source]


def stored_figures(standin: StandinProcess, count: int, started: float, cpu_before: float, timeout: float):
    """Waits for count positions; the stand-in's side of the figures, or a problem text."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and standin.stats()["positions"] < count:  # the count alone: cheap
        time.sleep(0.05)
    standin_cpu = (proc_cpu(standin.pid) or 0.0) - cpu_before
    positions = standin.positions()
    if len(positions) != count:
        return None, f"{len(positions)} of {count} positions stored"
    times = [p["time_ms"] for p in positions]
    if any(b <= a for a, b in zip(times, times[1:])):
        return None, "positions stored out of order or twice"
    span = positions[-1]["arrival"] - positions[0]["arrival"]
    return {"rate": (count - 1) / span if span > 0 else None, "wall": positions[-1]["arrival"] - started,
            "standin_us": standin_cpu / count * 1e6, "busy": standin_cpu / span * 100 if span > 0 else None,
            "connections": len({p["connection"] for p in positions}), "targets": [p["target"] for p in positions],
            "count": count}, None


def drain_run(opts, variant: str, workdir: str, port: int, spool, targets):
    count = opts.traccar_loop if variant == PER_POSITION else opts.traccar_fixes
    standin = StandinProcess(Path(workdir) / "standin", any_device=True, port=port,
                             name=re.sub(r"[^a-z]+", "-", variant))
    err_path = os.path.join(workdir, "client.err")
    try:
        cpu_before = proc_cpu(standin.pid) or 0.0
        started = time.monotonic()
        if variant == LOCTRACK:
            copy = os.path.join(workdir, "spool-copy")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(spool, copy)
            with open(err_path, "wb") as err:
                proc = procs.spawn(publish_argv(opts, port, copy, "127.0.0.1:1"), stdout=subprocess.DEVNULL,
                                   stderr=err, env=state_environment(workdir))
            m, problem = stored_figures(standin, count, started, cpu_before, 60 + count / 100)
            client_cpu = proc_cpu(proc.pid)
            code = procs.terminate(proc, 15)
            if m is not None:
                m["client_us"] = client_cpu / count * 1e6 if client_cpu is not None else None
                if code != 0:
                    warn(f"traccar: loctrack exited {code} on SIGTERM: {stderr_tail(err_path)}")
        else:
            urls = [f"http://127.0.0.1:{port}{target}" for target in targets[:count]]
            listing = os.path.join(workdir, "urls.txt" if variant == PER_POSITION else "curl.config")
            with open(listing, "w") as f:
                for url in urls:
                    f.write(url + "\n" if variant == PER_POSITION else f'url = "{url}"\noutput = "/dev/null"\n')
            argv = (["bash", "-c", 'while IFS= read -r u; do curl -s -o /dev/null "$u"; done < "$1"', "loop", listing]
                    if variant == PER_POSITION else ["curl", "-s", "--config", listing])
            with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
                run = run_measured([argv], out, err, 60 + count / 50, workdir)
            m, problem = stored_figures(standin, count, started, cpu_before, 10)
            if m is not None and run is not None:
                m["client_us"] = (run["user"] + run["sys"]) / count * 1e6
            if run is None or run["codes"] != [0]:
                problem = problem or f"{argv[0]} did not finish or failed: {stderr_tail(err_path)}"
    finally:
        standin.stop()
    if m is not None:
        wanted = count if variant == PER_POSITION else 1
        if m["connections"] != wanted:
            problem = f"{m['connections']} connections (expected {wanted})"
    if problem:
        warn(f"traccar drain: {variant}: {problem}")
        return None
    return m


def describe_drain(m) -> str:
    return (f"{m['rate']:7.0f} positions/s  wall {m['wall']:6.2f} s  client {m['client_us'] or 0:7.1f} us/position  "
            f"stand-in {m['standin_us']:6.1f} us/position, busy {m['busy'] or 0:3.0f} %")


def odometer_run(opts, variant: str, workload: str, workdir: str):
    epochs = opts.flood_epochs
    emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-C", 1] + WORKLOADS[workload])
    shutil.rmtree(os.path.join(workdir, "state"), ignore_errors=True)
    out_path, err_path = os.path.join(workdir, "odometer.out"), os.path.join(workdir, "odometer.err")
    argv = [opts.loctrack, "stream", "--format", "json", "--no-reconnect"]
    argv += ["--odometer"] if variant == ODOMETER_ON else []
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            m = run_measured([argv + [f"127.0.0.1:{port}"]], out, err, opts.flood_timeout, workdir,
                             env=state_environment(workdir))
    finally:
        procs.terminate(emulator, 2)
    if m is None:
        warn(f"traccar odometer {workload}: {variant} did not finish {epochs} epochs")
        return None
    with open(out_path, "rb") as f:
        fixes = f.read().count(b'{"class":"TPV"')
    if fixes != epochs:
        warn(f"traccar odometer {workload}: {variant} printed {fixes} fixes for {epochs}: {stderr_tail(err_path)}")
        return None
    m["cpu_us"] = (m["user"] + m["sys"]) / epochs * 1e6
    return m


def run_traccar(opts, workdir: str):
    """{"drain": [rounds], "odometer": {workload: [rounds]}, "synthetic": bool}"""
    base = os.path.join(workdir, "traccar")
    os.makedirs(base, exist_ok=True)
    results = {"drain": [], "odometer": {}, "synthetic": True}
    variants = list(VARIANTS)
    port = procs.free_port()
    spool = None
    if not lacks_feature(opts.loctrack, "http://", "traccar"):  # without it: curl alone, generated requests
        log(f"== traccar: filling a spool with {opts.traccar_fixes:,} fixes while the server is down")
        spool = fill_spool(opts, base, port, opts.traccar_fixes)
    if spool is None:
        variants.remove(LOCTRACK)
    if not shutil.which("curl"):
        left_out("traccar: no curl (`make bench` installs it): the curl rows are left out")
        variants = [v for v in variants if v not in (KEEP_ALIVE, PER_POSITION)]
    targets = synthetic_targets(opts.traccar_fixes)
    if spool is not None:  # loctrack's own requests, as the stand-in recorded them, for curl too
        first = drain_run(opts, LOCTRACK, base, port, spool, targets)
        if first is not None:
            targets, results["synthetic"] = first["targets"], False
    if not variants:
        return results
    log(f"== traccar drain: {opts.traccar_fixes:,} positions ({opts.traccar_loop:,} for curl per position), "
        f"{opts.rounds} rounds: " + " against ".join(variants))
    results["drain"] = rounds_of(opts, variants, lambda v: drain_run(opts, v, base, port, spool, targets),
                                 describe_drain)
    for rounds in results["drain"]:
        for m in rounds.values():
            if m:
                m.pop("targets", None)
    if not lacks_feature(opts.loctrack, "--odometer", "traccar odometer"):
        for workload in WORKLOADS:
            log(f"== traccar odometer, {workload}: {opts.flood_epochs:,} epochs, {opts.rounds} rounds")
            results["odometer"][workload] = rounds_of(
                opts, (ODOMETER_OFF, ODOMETER_ON), lambda v: odometer_run(opts, v, workload, base),
                lambda m: f"cpu/fix {m['cpu_us']:6.2f} us  wall {m['wall']:6.3f} s")
    shutil.rmtree(base, ignore_errors=True)
    return results


DRAIN_ROWS = (  # key, label, digits
    ("rate", "positions per second at the stand-in (first to last arrival)", 0),
    ("wall", "wall time, client spawn to the last position stored (s)", 2),
    ("client_us", "client CPU per position, user + sys (µs)", 1),
    ("standin_us", "stand-in CPU per position (µs)", 1),
    ("busy", "stand-in busy over the drain (% of one core)", 0),
)


def traccar_section(opts, results) -> list[str]:
    out = ["", "## Traccar: draining a backlog to the OsmAnd stand-in over loopback", "",
           f"{opts.traccar_fixes:,} positions spooled while the server was down, drained to "
           "scripts/support/traccar_standin.py (Python, one thread per connection) on start; curl given the same "
           f"requests as a list of URLs on one keep-alive connection, and curl started once per position in a shell "
           f"loop over {opts.traccar_loop:,} of them. Medians over the rounds; ratios per round, then the median."
           + (" The requests are generated ones of loctrack's shape (this loctrack has no uplink)."
              if results["synthetic"] else " The requests are the ones loctrack sent."), "",
           "The stand-in is Python: where it is busy near 100 % of a core, the rate is its ceiling, and loctrack and "
           "curl are both faster than it can show.", "",
           "| figure | " + " | ".join(VARIANTS) + " | loctrack / keep-alive | loctrack / per position | target | |",
           "|---|" + "---:|" * len(VARIANTS) + "---:|---:|---|---|"]
    rounds = results["drain"]
    if not rounds:
        return out[:2] + ["Left out: neither loctrack's uplink nor curl was there (the notes say why)."]
    for key, label, digits in DRAIN_ROWS:
        meds = medians(rounds, VARIANTS, key)
        ratios = median_ratios(rounds, [(LOCTRACK, other) for other in (KEEP_ALIVE, PER_POSITION)], key)
        target, mark = "", ""
        if key == "rate":
            target = "≥ 0.90 × keep-alive; far ahead of per position (≥ 5 ×)"
            mark = verdict([None if ratios[0] is None else ratios[0] >= 0.90,
                            None if ratios[1] is None else ratios[1] >= 5])
        out.append(f"| {label} | " + " | ".join(fmt(v, digits) for v in meds) + " | "
                   + " | ".join(fmt(v) for v in ratios) + f" | {target} | {mark} |")
    if results["odometer"]:
        out += ["", "### The odometer's cost: `stream` with `--odometer` against without", "",
                "| figure | stream | stream --odometer | ratio | target | |", "|---|---:|---:|---:|---|---|"]
        for workload, rounds in results["odometer"].items():
            meds = [median([r[v]["cpu_us"] for r in rounds if r.get(v)]) for v in (ODOMETER_OFF, ODOMETER_ON)]
            rm = median([ratio(r[ODOMETER_ON]["cpu_us"], r[ODOMETER_OFF]["cpu_us"]) for r in rounds
                         if r.get(ODOMETER_ON) and r.get(ODOMETER_OFF)])
            out.append(f"| {workload} ({opts.flood_epochs:,} epochs): CPU per fix, user + sys (µs) | {fmt(meds[0])} | "
                       f"{fmt(meds[1])} | {fmt(rm)} | ≤ 1.05 × | {verdict([None if rm is None else rm <= 1.05])} |")
    return out
