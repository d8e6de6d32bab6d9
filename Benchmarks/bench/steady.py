"""Paced runs (1 Hz, 10 Hz) and the idle watch: the single-process clients at once, each on its
own paced emulator (TPV + SKY per epoch), spread evenly over the period so that they do not
compete for a CPU at the same instant; which client gets which phase changes every round.

Over a window that starts and ends half-way between epochs: CPU per second (all threads'
schedstat run time, in ns; and, as a cross-check, the process's utime + stime from
/proc/PID/stat, which counts exited threads too but in clock ticks: over 60 s at 0.1 ms/s,
6 ms, less than a tick, so it needs long windows or many rounds), wakeups per fix (all threads' voluntary + nonvoluntary context
switches, divided by the fixes printed in the window), and latency (the emulator's
CLOCK_MONOTONIC just before the epoch's write(2), to the line's arrival on the client's
stdout pipe, matched by the fix time). Idle: a watch that never gets a report, wakeups per
second."""

from __future__ import annotations

import os
import select
import subprocess
import time

from support import processes as procs  # scripts/support
from .clients import JQ, rotate
from .findings import log, note, warn
from .flood import start_emulator
from .measure import ThreadTally, percentile, process_cpu_ticks


def steady_clients(clients: dict) -> list:
    """The clients that are one process: their threads are what the window counts."""
    return [name for name in clients if name != JQ]


def next_midpoint(after_ns: int, period_ns: int, phase_ns: int) -> int:
    """The first instant >= after_ns that lies half-way between two epochs."""
    offset = phase_ns + period_ns // 2
    k = -(-(after_ns - offset) // period_ns)
    return k * period_ns + offset


def run_paced(opts, clients: dict, workdir, rate: float, window_s: float, round_index: int, epochs=None,
              warm_s=None):
    """The clients at once on paced emulators. Returns {client name: measurements}."""
    period_ns = int(round(1e9 / rate))
    # Warm-up: at least 6 epochs. loctrack holds each of a new stream's first epochs until the
    # next one arrives (it learns whether gpsd sends one TPV per epoch), so its steady state
    # starts at the 4th epoch.
    warm_s = max(opts.warm_seconds, 6.0 / rate) if warm_s is None else warm_s
    if epochs is None:
        epochs = int(rate * (warm_s + window_s + 1.5)) + 1
    order = rotate(steady_clients(clients), round_index)
    runs = {}
    try:
        for slot, name in enumerate(order):
            phase_ms = slot * (1000.0 / rate) / len(order)
            stamps = os.path.join(workdir, f"stamps-{slot}.txt")
            if os.path.exists(stamps):
                os.unlink(stamps)
            linger = window_s + warm_s + 1 if epochs == 0 else 0
            emulator, port = start_emulator(opts.emulator, ["-n", epochs, "-r", rate, "-P", f"{phase_ms:.3f}",
                                                            "-T", stamps, "-C", 1, "-l", linger])
            argv = clients[name].stream_stages(f"127.0.0.1:{port}")[0]
            proc = procs.spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            os.set_blocking(proc.stdout.fileno(), False)
            runs[name] = {"client": clients[name], "emulator": emulator, "proc": proc, "stamps": stamps,
                          "phase_ns": int(phase_ms * 1e6), "arrivals": [], "partial": b"", "window": [],
                          "tally": ThreadTally(proc.pid), "result": None, "ticks": []}
        start = time.monotonic_ns()
        for run in runs.values():
            s0 = next_midpoint(start + int(warm_s * 1e9), period_ns, run["phase_ns"])
            run["due"] = [s0, s0 + int(round(window_s * 1e9 / period_ns)) * period_ns]
        deadline = start + int((warm_s + window_s + 15) * 1e9)
        open_pipes = {run["proc"].stdout.fileno(): run for run in runs.values()}
        while open_pipes or any(run["due"] for run in runs.values()):
            now = time.monotonic_ns()
            if now > deadline:
                warn(f"paced {rate:g} Hz: clients still running at the deadline")
                break
            for run in runs.values():
                tally = run["tally"]
                if run["due"] and run["due"][0] <= now:
                    run["due"].pop(0)
                    run["window"].append(time.monotonic_ns())
                    run["ticks"].append(process_cpu_ticks(run["proc"].pid))
                    if len(run["window"]) == 1:
                        tally.start()
                    else:
                        tally.sample()
                        run["result"] = tally.totals()
                elif len(run["window"]) == 1 and tally.next_sample <= now:
                    tally.sample()
            dues = [run["due"][0] for run in runs.values() if run["due"]]
            dues += [run["tally"].next_sample for run in runs.values() if len(run["window"]) == 1]
            timeout = max(0.0, (min(dues) - now) / 1e9) if dues else 0.5
            ready, _, _ = select.select(list(open_pipes), [], [], min(timeout, 0.5))
            arrived = time.monotonic_ns()
            for fd in ready:
                run = open_pipes[fd]
                try:
                    chunk = os.read(fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not chunk:
                    del open_pipes[fd]
                    continue
                lines = (run["partial"] + chunk).split(b"\n")
                run["partial"] = lines.pop()
                for line in lines:
                    when = run["client"].fix_time(line)
                    if when:
                        run["arrivals"].append((arrived, when))
        for name, run in runs.items():
            try:
                run["proc"].wait(5)
            except subprocess.TimeoutExpired:
                warn(f"paced {rate:g} Hz: {name} did not exit after the emulator closed")
            try:
                run["emulator"].wait(10)
            except subprocess.TimeoutExpired:
                warn(f"paced {rate:g} Hz: {name}'s emulator did not exit within 10 s of its client")
    finally:
        for run in runs.values():
            procs.terminate(run["proc"], 1)
            procs.terminate(run["emulator"], 1)
    return {name: window_figures(name, run, rate, epochs) for name, run in runs.items()}


def window_figures(name, run, rate, epochs):
    stamp = {}
    if os.path.exists(run["stamps"]):
        with open(run["stamps"]) as f:
            for line in f:
                when, ns = line.split()
                stamp[when] = int(ns)
    if len(run["window"]) < 2 or not run["result"]:
        warn(f"paced {rate:g} Hz: no counters for {name}")
        return None
    t0, t1 = run["window"][:2]
    switches, voluntary, runtime, born, gone = run["result"]
    in_window = [(t, when) for t, when in run["arrivals"] if t0 <= t <= t1]
    latencies = [(t - stamp[when]) / 1e6 for t, when in in_window if when in stamp]
    seconds = (t1 - t0) / 1e9
    fixes = len(in_window)
    ticks = run["ticks"][:2]
    figures = {
        "fixes": fixes,
        "expected": int(round(seconds * rate)),
        "cpu_ms_per_s": runtime / 1e6 / seconds,
        "cpu_stat_ms_per_s": (ticks[1] - ticks[0]) * 1000 / os.sysconf("SC_CLK_TCK") / seconds
        if len(ticks) == 2 and None not in ticks else None,
        "wakeups_per_fix": switches / fixes if fixes else None,
        "voluntary_per_fix": voluntary / fixes if fixes else None,
        "wakeups_per_s": switches / seconds,
        "threads_born": born,
        "threads_gone": gone,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
    }
    if epochs and len(run["arrivals"]) != epochs:
        warn(f"paced {rate:g} Hz: {name} printed {len(run['arrivals'])} fixes for {epochs} epochs")
    if epochs and fixes != figures["expected"]:
        note(f"paced {rate:g} Hz: {name} printed {fixes} fixes in a {seconds:.1f} s window "
             f"(expected {figures['expected']})")
    return figures


def run_steady(opts, clients: dict, workdir):
    """{rate: [per-round results]} and "idle": results of the idle watch."""
    out = {}
    names = steady_clients(clients)
    for rate in opts.rates:
        log(f"== steady {rate:g} Hz: {opts.steady_seconds:g} s window, {opts.rounds} rounds ({len(names)} clients "
            "at once)")
        rounds = []
        for r in range(opts.rounds):
            res = run_paced(opts, clients, workdir, rate, opts.steady_seconds, r)
            for name in names:
                m = res.get(name)
                if m:
                    log(f"  round {r + 1} {name:10s} cpu {m['cpu_ms_per_s']:7.3f} ms/s (stat "
                        f"{m['cpu_stat_ms_per_s'] if m['cpu_stat_ms_per_s'] is not None else float('nan'):.3f})  wakeups/fix "
                        f"{m['wakeups_per_fix'] or 0:.2f} (voluntary {m['voluntary_per_fix'] or 0:.2f})  latency "
                        f"p50 {m['p50_ms'] or 0:.3f} p99 {m['p99_ms'] or 0:.3f} ms  fixes {m['fixes']}  threads "
                        f"+{m['threads_born']}/-{m['threads_gone']}")
            rounds.append(res)
        out[rate] = rounds
    if opts.idle_seconds > 0:
        log(f"== idle: {opts.idle_seconds:g} s of a watch without reports")
        res = run_paced(opts, clients, workdir, 1.0, opts.idle_seconds, 0, epochs=0, warm_s=1.0)
        for name in names:
            m = res.get(name)
            if m:
                log(f"  {name:10s} wakeups {m['wakeups_per_s']:.3f}/s  cpu {m['cpu_ms_per_s']:.4f} ms/s  threads "
                    f"+{m['threads_born']}/-{m['threads_gone']}")
        out["idle"] = res
    return out
