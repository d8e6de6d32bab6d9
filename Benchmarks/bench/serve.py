"""The serve parts: `loctrack serve` with many event streams, and a day's track in a browser.

serve-sse   100 streams (`GET /events`, plain sockets read by one selector thread,
            scripts/support/sse_clients.py) on `loctrack serve --max-streams 128` fed by the paced
            emulator at 10 Hz (`flood_gpsd -r 10 -T STAMPS`: TPV + SKY per epoch, and the
            CLOCK_MONOTONIC nanoseconds at which it wrote each epoch). Figures: the server's CPU
            per delivered event (its utime + stime over the run / every event every stream got),
            the latency from the emulator's write of an epoch to a stream's receipt of that fix
            (p50, p99, max over every stream and fix after the first second: the same clock on
            both sides), the server's
            VmRSS. Then memory with 10 stalled streams: 90 reading and 10 never reading (a 4 KB
            receive buffer) while the emulator sends 100 epochs a second, each a TPV and a SKY of 26
            satellites (2.6 KB: a stalled stream's kernel buffers, about 3 MB on loopback, fill in
            about 12 s), until the server has cut all 10 off (or 60 s; smoke: 30 s): VmRSS at the start, at its peak, when the last was cut and at
            the end, and when each was cut off.
            Checks (run.py exits 1): every reading stream got the same events with ids that count
            up without a gap; the stalled ones were cut off.
serve-day   A day at 1 Hz: the emulator floods 86,400 TPVs one second apart (`flood_gpsd -t -s 1000`)
            into `loctrack serve`, which keeps them all (its track holds 200,000); then headless
            Chromium loads the page three times (`scripts/serve load`, with Debian's Python, which
            has selenium): the page's own loadMs (navigation to the track drawn), the time from the
            request to window.loctrack.ready, its JavaScript heap (CDP Runtime.getHeapUsage), the
            points it drew. Targets (issue 20): at most 1 s, heap under 100 MB.
Both need loctrack-serve next to the loctrack measured (`make serve`); without it, they fail.
serve-day also needs chromium, chromium-driver and python3-selenium (left out with a note without
them; a smoke run fails).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .findings import left_out, log, warn
from .flood import start_emulator
from .measure import median, percentile
from support import processes as procs  # scripts/support
from .report import fmt, verdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(1, os.path.join(ROOT, "scripts"))

from support.serve_process import Serve, serve_binary  # noqa: E402
from support.sse_clients import Fleet, SseClient, fix_time, gaps, gpsd_unreachable, watch_cut_offs  # noqa: E402

SERVE_CHECKS = ("serve: every reading stream got the same events, their ids without a gap; the stalled streams "
                "were cut off; the day's 86,400 fixes all kept")
LOAD_TARGET_MS = 1000
HEAP_TARGET_MB = 100
DAY = 86_400


def missing(loctrack: str) -> list[str]:
    return [] if serve_binary(loctrack) else [f"loctrack-serve next to {loctrack} (`make serve`)"]


def _stamps(path: str) -> dict:
    stamps = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    stamps[parts[0]] = int(parts[1])
    except OSError:
        pass
    return stamps


def run_serve_sse(opts, workdir: str):
    base = os.path.join(workdir, "serve-sse")
    os.makedirs(base, exist_ok=True)
    seconds = opts.serve_seconds
    streams = opts.serve_streams
    stamps_path = os.path.join(base, "stamps")
    log(f"== serve-sse: {streams} streams at 10 Hz for {seconds:g} s")
    emulator, port = start_emulator(opts.emulator, ["-r", 10, "-n", int(seconds * 10), "-T", stamps_path, "-l", 2])
    serve = fleet = None
    try:
        serve = Serve(opts.loctrack, ["--max-streams", "128", f"127.0.0.1:{port}"], Path(base), name="serve")
        clients = [SseClient(serve.port, keep_data=fix_time, timeout=10) for _ in range(streams)]
        fleet = Fleet(clients).start()
        cpu0, start = serve.cpu(), time.monotonic()
        samples = []
        while emulator.poll() is None and time.monotonic() - start < seconds + 30:
            samples.append(serve.rss_kb() or 0)
            time.sleep(0.25)
        # The run's last event: the status of the emulator's hang-up (gpsd_unreachable).
        if not fleet.wait_for(gpsd_unreachable, timeout=30):
            warn("serve-sse: not every stream got the status event of the emulator's hang-up within 30 s")
        cpu1 = serve.cpu()
        fleet.stop()
        stamps = _stamps(stamps_path)
        # The first second's epochs wait for the server's start (its first reads of gpsd, the streams
        # being set up): left out of the latency, which is the steady state's.
        warm = set(sorted(stamps, key=stamps.get)[:10])
        latencies, delivered, sequences = [], 0, set()
        for client in clients:
            events = client.through(gpsd_unreachable)
            delivered += len(events)
            numbers = client.numbers(gpsd_unreachable)
            if gaps(numbers):
                warn(f"serve-sse: a stream's ids have gaps: {gaps(numbers)[:3]}")
            sequences.add((numbers[0] if numbers else None, numbers[-1] if numbers else None))
            for event in events:
                if event.name == "fix" and event.data in stamps and event.data not in warm:
                    latencies.append((event.at_ns - stamps[event.data]) / 1e6)
        if len(sequences) != 1:
            warn(f"serve-sse: the streams did not all get the same events: {sorted(sequences)[:5]}")
        result = {"streams": streams, "epochs": len(stamps), "delivered": delivered,
                  "cpu_us": (cpu1 - cpu0) / delivered * 1e6 if delivered and cpu1 is not None else None,
                  "cpu_pct": (cpu1 - cpu0) / (time.monotonic() - start) * 100 if cpu1 is not None else None,
                  "p50": percentile(latencies, 50), "p99": percentile(latencies, 99),
                  "max": max(latencies) if latencies else None, "rss_mb": max(samples or [0]) / 1024}
        log(f"  {delivered:,} events delivered; CPU {fmt(result['cpu_us'])} µs per event; latency p50 "
            f"{fmt(result['p50'])} ms, p99 {fmt(result['p99'])} ms; VmRSS {fmt(result['rss_mb'], 1)} MB")
    except RuntimeError as error:
        warn(f"serve-sse: {error}")
        return None
    finally:
        if fleet is not None:
            fleet.close()
        if serve is not None:
            serve.stop()
        procs.terminate(emulator, 2)
    result["stalled"] = run_stalled(opts, base)
    return result


def run_stalled(opts, base: str):
    readers, stalled = opts.serve_streams - opts.serve_stalled, opts.serve_stalled
    log(f"== serve-sse, stalled: {readers} reading and {stalled} stalled streams, 100 Hz with 26-satellite SKYs")
    # 2.6 KB an epoch: a stalled stream's kernel buffers (about 3 MB on loopback) fill in about 12 s.
    emulator, port = start_emulator(opts.emulator, ["-r", 100, "-n", 6_000, "-k", 26, "-l", 2])
    serve = fleet = None
    try:
        serve = Serve(opts.loctrack, ["--max-streams", "128", f"127.0.0.1:{port}"], Path(base), name="serve-stalled")
        clients = [SseClient(serve.port, stalled=index >= readers, timeout=10) for index in range(readers + stalled)]
        fleet = Fleet(clients).start()
        start_rss = serve.rss_kb() or 0
        samples = [start_rss]
        cut, last_cut_rss = watch_cut_offs(fleet.stalled(), serve.rss_kb, samples, cap=opts.serve_stall_cap, grace=2,
                                           feeding=lambda: emulator.poll() is None)
        procs.terminate(emulator, 2)
        if not fleet.wait_for(gpsd_unreachable, timeout=30):
            warn("serve-sse: not every reading stream got the status event of the emulator's hang-up within 30 s")
        samples.append(serve.rss_kb() or 0)
        fleet.stop()
        if len(cut) < stalled:
            warn(f"serve-sse: only {len(cut)} of {stalled} stalled streams were cut off within {opts.serve_stall_cap:g} s")
        sequences = {}
        for c in fleet.reading():
            numbers = c.numbers(gpsd_unreachable)
            key = (numbers[0] if numbers else None, numbers[-1] if numbers else None, len(numbers), c.eof)
            sequences[key] = sequences.get(key, 0) + 1
        gapped = [(c.local_port, gaps(c.numbers())[:3]) for c in fleet.reading() if gaps(c.numbers())]
        if gapped or len(sequences) != 1:
            warn(f"serve-sse: with stalled streams, the reading ones did not all get every event in order: "
                 f"(first, last, events, ended) -> streams {sequences}; gaps {gapped[:3]}")
        result = {"readers": readers, "stalled": stalled, "cut": sorted(cut.values()), "start_mb": start_rss / 1024,
                  "peak_mb": max(samples) / 1024, "last_cut_mb": last_cut_rss and last_cut_rss / 1024,
                  "end_mb": samples[-1] / 1024,
                  "events": max((len(c.events) for c in fleet.reading()), default=0)}
        log(f"  stalled streams cut after {[round(v, 1) for v in result['cut']]} s; VmRSS {result['start_mb']:.1f} -> "
            f"peak {result['peak_mb']:.1f} -> end {result['end_mb']:.1f} MB")
        return result
    except RuntimeError as error:
        warn(f"serve-sse stalled: {error}")
        return None
    finally:
        if fleet is not None:
            fleet.close()
        if serve is not None:
            serve.stop()
        procs.terminate(emulator, 2)


def page_python() -> str | None:
    """An interpreter with selenium: this one, else Debian's."""
    try:
        import selenium  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    for candidate in ("/usr/bin/python3",):
        if os.access(candidate, os.X_OK) and subprocess.run(
                [candidate, "-c", "import selenium"], capture_output=True).returncode == 0:
            return candidate
    return None


def run_serve_day(opts, workdir: str):
    base = os.path.join(workdir, "serve-day")
    os.makedirs(base, exist_ok=True)
    python = page_python()
    if python is None or not shutil.which("chromedriver") and not os.path.exists("/usr/bin/chromedriver"):
        left_out("serve-day: left out, no chromium-driver or python3-selenium (`make bench` installs them)")
        return None
    fixes = opts.serve_day_fixes
    log(f"== serve-day: {fixes:,} fixes at 1 Hz into loctrack serve, then the page in headless Chromium")
    emulator, port = start_emulator(opts.emulator, ["-n", fixes, "-t", "-s", 1000, "-l", 600])
    serve = None
    try:
        serve = Serve(opts.loctrack, [f"127.0.0.1:{port}"], Path(base), name="serve")
        start = time.monotonic()
        total = None
        while time.monotonic() - start < 300:
            response = serve.get("/api/track?max=2")
            if response.status == 200:
                total = json.loads(response.body).get("total")
                if total == fixes:
                    break
            time.sleep(0.25)
        ingest = time.monotonic() - start
        if total != fixes:
            warn(f"serve-day: the server kept {total} of {fixes:,} fixes within 300 s")
            return None
        rss = serve.rss_kb()
        done = subprocess.run([python, os.path.join(ROOT, "scripts", "serve"), "load", serve.url("/"),
                               "--rounds", str(opts.serve_day_rounds)], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            warn(f"serve-day: the page did not load: {done.stderr.strip()[-400:]}")
            return None
        measured = json.loads(done.stdout)
        rounds = measured["rounds"]
        result = {"fixes": fixes, "ingest_s": ingest, "server_mb": rss and rss / 1024,
                  "load_ms": median([r["load_ms"] for r in rounds]), "load_max_ms": max([r["load_ms"] or 0 for r in rounds]),
                  "ready_ms": median([r["ready_ms"] for r in rounds]),
                  "heap_mb": max([(r["heap"]["v8_used"] or 0) for r in rounds]) / 1e6,
                  "js_heap_mb": max([(r["heap"]["js_used"] or 0) for r in rounds]) / 1e6,
                  "points": rounds[-1]["track_points"], "rounds": len(rounds),
                  "foreign": measured["foreign_requests"], "errors": measured["console_errors"]}
        if result["load_ms"] is None:
            warn("serve-day: the page has no window.loctrack.loadMs")
        if measured["foreign_requests"]:
            warn(f"serve-day: the page requested {measured['foreign_requests'][:3]}")
        log(f"  kept {fixes:,} fixes in {ingest:.1f} s; page loadMs {fmt(result['load_ms'], 0)} (request to ready "
            f"{fmt(result['ready_ms'], 0)} ms), heap {fmt(result['heap_mb'], 1)} MB, {result['points']} points drawn")
        return result
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        warn(f"serve-day: {error}")
        return None
    finally:
        if serve is not None:
            serve.stop()
        procs.terminate(emulator, 2)


def serve_section(opts, sse, day) -> list[str]:
    out = ["", "## Serve: event streams and a day's track in the browser", ""]
    if sse:
        stalled = sse.get("stalled") or {}
        out += [f"{sse['streams']} streams of `GET /events` on `loctrack serve`, the emulator at 10 Hz (TPV + SKY) for "
                f"{sse['epochs']} epochs; latency: the emulator's write of an epoch to a stream's receipt of its fix "
                f"(the first second's epochs, which wait for the server's start, left out).", "",
                "| figure | value | target |", "|---|---:|---|",
                f"| events delivered (all streams) | {sse['delivered']:,} | |",
                f"| server CPU per delivered event (µs) | {fmt(sse['cpu_us'])} | |",
                f"| server CPU (% of one core) | {fmt(sse['cpu_pct'])} | |",
                f"| latency p50 (ms) | {fmt(sse['p50'])} | |",
                f"| latency p99 (ms) | {fmt(sse['p99'])} | |",
                f"| latency max (ms) | {fmt(sse['max'])} | |",
                f"| server VmRSS, peak (MB) | {fmt(sse['rss_mb'], 1)} | |"]
        if stalled:
            out += [f"| with {stalled['stalled']} stalled of {stalled['readers'] + stalled['stalled']} streams, 100 Hz, 2.6 KB an epoch: "
                    f"VmRSS start / peak / last cut / end (MB) | {fmt(stalled['start_mb'], 1)} / {fmt(stalled['peak_mb'], 1)} / "
                    f"{fmt(stalled['last_cut_mb'], 1)} / {fmt(stalled['end_mb'], 1)} | bounded: "
                    f"{verdict([len(stalled['cut']) == stalled['stalled']])} |",
                    f"| … stalled streams cut off after (s) | {', '.join(f'{v:.1f}' for v in stalled['cut']) or 'none'} | |"]
    if day:
        out += ["", f"A day at 1 Hz: {day['fixes']:,} fixes kept by the server ({fmt(day['ingest_s'], 1)} s to take them "
                f"in, VmRSS {fmt(day['server_mb'], 1)} MB), then the page loaded {day['rounds']} times in headless Chromium.", "",
                "| figure | value | target |", "|---|---:|---|",
                f"| page loadMs, median (ms) | {fmt(day['load_ms'], 0)} | ≤ {LOAD_TARGET_MS}: "
                f"{verdict([day['load_ms'] is not None and day['load_max_ms'] <= LOAD_TARGET_MS])} |",
                f"| request to window.loctrack.ready, median (ms) | {fmt(day['ready_ms'], 0)} | |",
                f"| JavaScript heap, V8 used, largest (MB) | {fmt(day['heap_mb'], 1)} | < {HEAP_TARGET_MB}: "
                f"{verdict([day['heap_mb'] < HEAP_TARGET_MB])} |",
                f"| performance.memory usedJSHeapSize, largest (MB) | {fmt(day['js_heap_mb'], 1)} | |",
                f"| points drawn | {day['points']} | |"]
    return out
