"""`once`: process start to exit of first-fix clients on a real gpsd (bench/live_gpsd.py).

  warm   gpsd has the device open and a fix (`gpspipe -w` stays attached); the clients run
         one after another: loctrack asks for gpsd's last fix (`--max-age`), the others
         wait for the next live one.
  cold   gpsd as Debian starts it, device closed, no other client: each client gets a fresh
         gpsd of its own, and the clients of a round start at the same instant. The time is
         mostly gpsd's (opening and probing the device, then the receiver's next epoch), the
         same for every client; the difference to the C client is the client's own.

In each round every client starts at the same random offset after one of the receiver's
epochs, so a client that waits for the next live epoch waits no longer than the others."""

from __future__ import annotations

import contextlib
import datetime
import os
import random
import re
import select
import subprocess
import time

from support import processes as procs  # scripts/support
from .clients import C_CLIENT, GPSPIPE, LOCTRACK, PYTHON, rotate
from .findings import log, warn
from .live_gpsd import LiveGpsd, PtyFeeder
from .measure import median

WARM = (LOCTRACK, C_CLIENT, GPSPIPE, PYTHON)
COLD = (LOCTRACK, C_CLIENT, PYTHON)


def start_together(runs: dict, at_ns: int, workdir: str, timeout: float) -> dict:
    """Starts every client of `runs` ({name: (Client, argv)}) at at_ns; {name: result}, where
    result has ms (spawn to exit), code, the fix age by the wall clock at exit, and what it
    printed."""
    time.sleep(max(0.0, (at_ns - time.monotonic_ns()) / 1e9))
    started = {}
    for name, (client, argv) in runs.items():
        out = open(os.path.join(workdir, f"once-{client.file_name}.out"), "wb+")
        start = time.monotonic_ns()
        proc = procs.spawn(argv, stdout=out, stderr=subprocess.DEVNULL)
        started[os.pidfd_open(proc.pid)] = (name, client, proc, out, start)
    results = {}
    deadline = time.monotonic() + timeout
    while started and time.monotonic() < deadline:
        ready, _, _ = select.select(list(started), [], [], 0.5)
        for fd in ready:
            name, client, proc, out, start = started.pop(fd)
            os.close(fd)
            code, _, end = procs.reap(proc)
            out.seek(0)
            data = out.read()
            out.close()
            results[name] = {"ms": (end - start) / 1e6, "code": code, "data": data,
                             "age": fix_age(client, data)}
    for name, client, proc, out, _ in started.values():
        warn(f"once: {name} did not exit within {timeout:.0f} s")
        procs.terminate(proc, 2)
        out.close()
    for fd in started:
        os.close(fd)
    return results


def fix_age(client, data: bytes):
    """Seconds between the first fix's time and now, or None when it has no time."""
    for line in data.splitlines():
        when = client.fix_time(line)
        if when and when != "nan":
            fix = datetime.datetime.strptime(when, "%Y-%m-%dT%H:%M:%S.%fZ")
            now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            return (now - fix).total_seconds()
    return None


def check(kind: str, round_number: int, name: str, client, result) -> bool:
    """A run counts when the client exited 0 having printed a fix (gpspipe: its 4 lines)."""
    if result is None:
        return False
    printed = result["data"].count(b"\n") >= 4 if name == GPSPIPE else client.count_fixes(result["data"]) >= 1
    if result["code"] != 0 or not printed:
        warn(f"once {kind} round {round_number}: {name} failed (exit {result['code']}, "
             f"{len(result['data'])} bytes: {result['data'][:200]!r})")
        return False
    return True


def keep(figures: dict, ok: bool, result):
    """A failed run is kept as None: the rounds stay aligned for the differences to C."""
    figures["ms"].append(result["ms"] if ok else None)
    figures["ages"].append(result["age"] if ok else None)


def run_once_warm(opts, clients: dict, workdir: str):
    names = [n for n in WARM if n in clients]
    log(f"== once, warm gpsd (device open, a fix, gpspipe -w attached): {opts.once_warm_rounds} rounds")
    try:
        with LiveGpsd(workdir) as gpsd:
            watcher_out = os.path.join(workdir, "watcher.jsonl")
            with open(watcher_out, "wb") as out:
                watcher = procs.spawn(["gpspipe", "-w", gpsd.source], stdout=out, stderr=subprocess.DEVNULL)
            try:
                return warm_rounds(opts, clients, names, gpsd, watcher_out, workdir)
            finally:
                procs.terminate(watcher, 2)
    except RuntimeError as error:  # gpsd did not start
        warn(f"once warm: {error}")
        return None


def warm_rounds(opts, clients, names, gpsd, watcher_out, workdir):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(watcher_out, "rb") as f:
            if re.search(rb'"class":"TPV".*"mode":[23].*"time"', f.read()):
                break
        time.sleep(0.1)
    else:
        warn("once warm: gpsd never reported a fix to the attached client")
        return None
    time.sleep(2.5)  # a few epochs more: gpsd knows the receiver's cycle
    results = {name: {"ms": [], "ages": []} for name in names}
    jitter = random.Random(2947)
    for r in range(opts.once_warm_rounds):
        offset_ns = int(jitter.uniform(0, 1) * 1e9)
        for name in rotate(names, r):
            at = PtyFeeder.next_epoch_ns(time.monotonic_ns() + 10_000_000) + offset_ns
            client = clients[name]
            result = start_together({name: (client, client.once_argv(gpsd.source))}, at, workdir, 15).get(name)
            keep(results[name], check("warm", r + 1, name, client, result), result)
        log(f"  round {r + 1} (offset {offset_ns / 1e6:3.0f} ms): " + "  ".join(
            f"{n} {results[n]['ms'][-1]:.1f} ms" for n in names if results[n]["ms"][-1] is not None))
    return results


def run_once_cold(opts, clients: dict, workdir: str):
    names = [n for n in COLD if n in clients]
    log(f"== once, cold gpsd (no -n, no client, device closed; a fresh gpsd per client): "
        f"{opts.once_rounds} rounds")
    results = {name: {"ms": [], "ages": []} for name in names}
    jitter = random.Random(1947)
    for r in range(opts.once_rounds):
        offset_ns = int(jitter.uniform(0, 1) * 1e9)
        try:
            with contextlib.ExitStack() as stack:
                gpsds = {name: stack.enter_context(LiveGpsd(workdir)) for name in rotate(names, r)}
                at = PtyFeeder.next_epoch_ns(time.monotonic_ns() + 100_000_000) + offset_ns
                runs = {name: (clients[name], clients[name].once_argv(gpsd.source)) for name, gpsd in gpsds.items()}
                round_results = start_together(runs, at, workdir, opts.once_cold_timeout)
        except RuntimeError as error:  # a gpsd did not start
            warn(f"once cold round {r + 1}: {error}")
            round_results = {}
        for name in names:
            result = round_results.get(name)
            keep(results[name], check("cold", r + 1, name, clients[name], result), result)
        log(f"  round {r + 1} (offset {offset_ns / 1e6:3.0f} ms): " + "  ".join(
            f"{n} {results[n]['ms'][-1]:.0f} ms" for n in names if results[n]["ms"][-1] is not None))
    return results


def differences(results: dict, name: str, reference: str = C_CLIENT):
    """Round by round name - reference (ms), the rounds where both have a time."""
    mine, theirs = results.get(name, {}).get("ms", []), results.get(reference, {}).get("ms", [])
    return [a - b for a, b in zip(mine, theirs) if a is not None and b is not None]


def median_ms(results: dict, name: str):
    return median(results.get(name, {}).get("ms", []))
