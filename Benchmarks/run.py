#!/usr/bin/env python3
"""loctrack's benchmark driver (`make bench`, `make bench-smoke`).

Runs loctrack, the C reference client (Benchmarks/c-client/gpsclient.c, libgps)
and `gpspipe -w` side by side on the same workloads, alternating their order
round by round, and prints a table of medians with loctrack's ratio to the C
client (computed round by round, then the median taken). Python 3 standard
library only; Linux only (/proc, pidfd).

Workloads (Benchmarks/emulator/flood_gpsd.c unless said otherwise):

  flood    N epochs (TPV + SKY each) as fast as the client reads; every client
           must print exactly N fixes (gpspipe: N TPV lines), and loctrack's
           output must equal the C client's byte for byte. Wall time (spawn to
           exit), CPU per fix (wait4 rusage: user + sys), peak RSS (/usr/bin/time
           -f %M).
  steady   1 Hz and 10 Hz: the three clients at once, each on its own paced
           emulator, a third of a period apart. Over a window that starts and
           ends half-way between epochs: CPU per second (sum over all threads of
           /proc/PID/task/*/schedstat run time) and wakeups per fix (sum over all
           threads of voluntary + nonvoluntary context switches in
           /proc/PID/task/*/status, divided by the fixes printed in the window;
           each thread followed from the window's start or its birth to its last
           sighting, so threads that exit do not take their counts with them).
  idle     a watch that never gets a report: wakeups per second (must be 0).
  latency  from the paced runs: the emulator reads CLOCK_MONOTONIC just before
           the write(2) holding an epoch's reports (TPV, then SKY: the last
           one); the driver reads each client's stdout through a pipe and
           timestamps each line on arrival (CLOCK_MONOTONIC); matched by `time`.
  once     a real gpsd under gpsfake, fed a generated 1 Hz NMEA log whose times
           start at the current UTC time, with `gpspipe -w` attached so the
           device stays open and gpsd has a fix; then process start to exit of
           `loctrack once --max-age`, `gpsclient --once` (WATCH, first TPV with
           mode >= 2) and `gpspipe -w -n K` (the banner, DEVICES, WATCH and the
           first report).
  long     loctrack alone, 1,000,000 epochs: peak RSS (VmHWM) once 100,000 fixes
           were printed, and at the end (/usr/bin/time -f %M).

Usage: run.py [--smoke] [--rounds N] [--flood-epochs N] [--long-epochs N]
              [--steady-seconds S] [--idle-seconds S] [--only flood,steady,once,long]
              [--loctrack PATH] [--output FILE]
Exit status: 0 when every run completed and every correctness check passed
(missed performance targets, and timing-dependent oddities such as a fix that
arrived just outside a window on a loaded machine, are reported, not failed),
1 otherwise.
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import os
import platform
import random
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(HERE, "bin")
EMULATOR = os.path.join(BIN, "flood_gpsd")
CCLIENT = os.path.join(BIN, "gpsclient")
TIME = "/usr/bin/time"

CLIENTS = ("loctrack", "C client", "gpspipe -w")
TIME_RE = re.compile(rb'"time":"([^"]+)"')

problems: list[str] = []
notes: list[str] = []
_children: list[subprocess.Popen] = []


def warn(text: str) -> None:
    """A correctness problem: reported, and run.py exits 1."""
    problems.append(text)
    print(f"  WARNING: {text}", file=sys.stderr, flush=True)


def note(text: str) -> None:
    """Something timing-dependent worth knowing (a loaded machine), not a failure."""
    notes.append(text)
    print(f"  note: {text}", file=sys.stderr, flush=True)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- processes

def spawn(argv, **kwargs) -> subprocess.Popen:
    """Starts a child in a session of its own, remembered for cleanup."""
    proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
    _children.append(proc)
    return proc


def stop(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """Ends a child we started (and its process group): TERM, then KILL."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    if proc in _children:
        _children.remove(proc)


@atexit.register
def _cleanup() -> None:
    for proc in list(_children):
        stop(proc, grace=0.5)


def _on_signal(signum, _frame):
    _cleanup()
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)


def wait_rusage(proc: subprocess.Popen, timeout: float):
    """wait4 with a timeout (via a pidfd): (status, rusage, monotonic_ns at exit) or None."""
    fd = os.pidfd_open(proc.pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        _, status, usage = os.wait4(proc.pid, 0)
        end = time.monotonic_ns()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc in _children:
            _children.remove(proc)
        return proc.returncode, usage, end
    finally:
        os.close(fd)


HAVE_TIME = os.access(TIME, os.X_OK)


def timed(argv, time_path):
    """argv under `/usr/bin/time -f %M` (peak RSS), when GNU time is installed."""
    return [TIME, "-f", "%M", "-o", time_path] + argv if HAVE_TIME else argv


def peak_rss_kb(time_path, usage) -> int:
    """GNU time's %M; without it, wait4's ru_maxrss (the very figure time prints)."""
    if HAVE_TIME:
        with open(time_path) as f:
            return int(f.read().split()[-1])
    return usage.ru_maxrss


def start_emulator(args) -> tuple[subprocess.Popen, int]:
    proc = spawn([EMULATOR, "-p", "0"] + [str(a) for a in args], stdout=subprocess.PIPE)
    ready, _, _ = select.select([proc.stdout], [], [], 10)
    line = proc.stdout.readline() if ready else b""
    if not line.strip().isdigit():
        stop(proc)
        raise RuntimeError("flood_gpsd did not print its port")
    return proc, int(line)


def client_argv(name: str, port: int, loctrack: str) -> list[str]:
    source = f"127.0.0.1:{port}"
    if name == "loctrack":
        return [loctrack, "stream", "--format", "json", "--no-reconnect", source]
    if name == "C client":
        return [CCLIENT, source]
    return ["gpspipe", "-w", source]


def rotate(items, k):
    k %= len(items)
    return list(items[k:]) + list(items[:k])


# --------------------------------------------------------------------------- /proc

def thread_counters(pid: int):
    """{tid: (voluntary + nonvoluntary context switches, voluntary ones, run time ns)} for the
    process's live threads, or None when the process is gone."""
    counters = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return None
    for tid in tasks:
        try:
            switches = voluntary = 0
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
                        if line.startswith("voluntary"):
                            voluntary += int(line.split()[1])
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                runtime = int(f.read().split()[0])
            counters[int(tid)] = (switches, voluntary, runtime)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return counters


class ThreadTally:
    """Context switches and CPU time of all of a process's threads over a window.

    Summing the live threads at two instants is wrong when threads come and go (a
    thread that exits takes its counts with it; libdispatch retires idle workers after
    a few seconds), so each thread's counts are followed from the window's start (or
    its birth) to its last sighting; the driver samples every SAMPLE_S meanwhile."""

    SAMPLE_S = 0.2

    def __init__(self, pid: int):
        self.pid = pid
        self.base = None
        self.last = {}
        self.next_sample = 0

    def start(self):
        self.base = thread_counters(self.pid) or {}
        self.last = dict(self.base)
        self.next_sample = time.monotonic_ns() + int(self.SAMPLE_S * 1e9)

    def sample(self):
        seen = thread_counters(self.pid)
        if seen:
            self.last.update(seen)
        self.next_sample = time.monotonic_ns() + int(self.SAMPLE_S * 1e9)

    def totals(self):
        """(switches, voluntary, run time ns, threads born, threads gone) since start()."""
        zero = (0, 0, 0)
        live = thread_counters(self.pid) or {}
        sums = [sum(self.last[t][i] - self.base.get(t, zero)[i] for t in self.last) for i in range(3)]
        born = sum(1 for t in self.last if t not in self.base)
        gone = sum(1 for t in self.last if t not in live)
        return (*sums, born, gone)


def vm_hwm_kb(pid: int):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return None


def children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


# --------------------------------------------------------------------------- statistics

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percentile(values, p):
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def ratio(a, b):
    return a / b if a is not None and b else None


# --------------------------------------------------------------------------- flood

def flood_once(name: str, epochs: int, loctrack: str, workdir: str, timeout: float):
    """One client against one flood emulator. Returns a dict of measurements, or None."""
    emulator, port = start_emulator(["-n", epochs, "-C", 1])
    out_path = os.path.join(workdir, f"flood-{name.split()[0]}.out")
    time_path = os.path.join(workdir, "time.txt")
    err_path = os.path.join(workdir, "stderr.txt")
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic_ns()
            proc = spawn(timed(client_argv(name, port, loctrack), time_path), stdout=out, stderr=err)
            waited = wait_rusage(proc, timeout)
        if waited is None:
            warn(f"flood: {name} did not finish {epochs} epochs within {timeout:.0f} s")
            stop(proc)
            return None
        code, usage, end = waited
        rss_kb = peak_rss_kb(time_path, usage)
        with open(out_path, "rb") as f:
            data = f.read()
        fixes = data.count(b'{"class":"TPV"')
        expected_code = {"loctrack": 69, "C client": 0}.get(name)
        if expected_code is not None and code != expected_code:
            with open(err_path, "rb") as f:
                warn(f"flood: {name} exited {code} (expected {expected_code}): {f.read()[-300:]!r}")
        if fixes != epochs:
            with open(err_path, "rb") as f:
                said = f.read().decode(errors="replace").strip().replace("\n", " | ")[-400:]
            warn(f"flood: {name} printed {fixes} fixes for {epochs} epochs; its stderr: {said}")
        return {
            "wall": (end - start) / 1e9,
            "cpu_per_fix_us": (usage.ru_utime + usage.ru_stime) / epochs * 1e6,
            "rss_mb": rss_kb / 1024,
            "fixes": fixes,
            "out": out_path,
        }
    finally:
        stop(emulator)


FIELD_RE = re.compile(rb'"([A-Za-z0-9_]+)":("[^"]*"|[^,}]*)')
extra_fields: set[str] = set()


def compare_fixes(loctrack_path: str, c_path: str):
    """None when loctrack printed the C client's fixes: the same lines, or lines that hold
    every field of the C client's line with the same text (loctrack may add fields).
    Otherwise a short description of the first difference."""
    with open(loctrack_path, "rb") as a, open(c_path, "rb") as b:
        mine, reference = a.read(), b.read()
    if mine == reference:
        return None
    mine_lines, reference_lines = mine.splitlines(), reference.splitlines()
    if len(mine_lines) != len(reference_lines):
        return f"{len(mine_lines)} lines against {len(reference_lines)}"
    for number, (m, c) in enumerate(zip(mine_lines, reference_lines), 1):
        if m == c:
            continue
        mine_fields, reference_fields = dict(FIELD_RE.findall(m)), dict(FIELD_RE.findall(c))
        for key, value in reference_fields.items():
            if mine_fields.get(key) != value:
                return (f"line {number}: {key.decode()} is {mine_fields.get(key, b'missing').decode()!r}, "
                        f"C client {value.decode()!r}")
        extra_fields.update(k.decode() for k in mine_fields if k not in reference_fields)
    return None


def run_flood(opts, loctrack, workdir):
    log(f"== flood: {opts.flood_epochs} epochs, {opts.rounds} rounds")
    rounds = []
    for r in range(opts.rounds):
        result = {}
        for name in rotate(CLIENTS, r):
            m = flood_once(name, opts.flood_epochs, loctrack, workdir, opts.flood_timeout)
            result[name] = m
            if m:
                log(f"  round {r + 1} {name:11s} wall {m['wall']:7.3f} s  cpu/fix {m['cpu_per_fix_us']:6.2f} us"
                    f"  rss {m['rss_mb']:6.1f} MB  fixes {m['fixes']}")
        lt, cc = result.get("loctrack"), result.get("C client")
        if lt and cc:
            difference = compare_fixes(lt["out"], cc["out"])
            if difference:
                warn(f"flood round {r + 1}: loctrack's fixes differ from the C client's: {difference}")
        rounds.append(result)
    return rounds


# --------------------------------------------------------------------------- steady + latency + idle

def next_midpoint(after_ns: int, period_ns: int, phase_ns: int) -> int:
    """The first instant >= after_ns that lies half-way between two epochs."""
    offset = phase_ns + period_ns // 2
    k = -(-(after_ns - offset) // period_ns)
    return k * period_ns + offset


def run_paced(opts, loctrack, workdir, rate: float, window_s: float, round_index: int, epochs=None, warm_s=None):
    """The three clients at once on paced emulators. Returns per-client measurements."""
    period_ns = int(round(1e9 / rate))
    # Warm-up: at least 6 epochs. loctrack holds each of a new stream's first epochs until the
    # next one arrives (it learns whether gpsd sends one TPV per epoch), so its steady state
    # starts at the 4th epoch.
    warm_s = max(opts.warm_seconds, 6.0 / rate) if warm_s is None else warm_s
    if epochs is None:
        epochs = int(rate * (warm_s + window_s + 1.5)) + 1
    order = rotate(CLIENTS, round_index)
    runs = {}
    try:
        for slot, name in enumerate(order):
            phase_ms = slot * (1000.0 / rate) / len(order)
            stamps = os.path.join(workdir, f"stamps-{slot}.txt")
            if os.path.exists(stamps):
                os.unlink(stamps)
            linger = window_s + warm_s + 1 if epochs == 0 else 0
            emulator, port = start_emulator(["-n", epochs, "-r", rate, "-P", f"{phase_ms:.3f}", "-T", stamps,
                                             "-C", 1, "-l", linger])
            proc = spawn(client_argv(name, port, loctrack), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            os.set_blocking(proc.stdout.fileno(), False)
            runs[name] = {"emulator": emulator, "proc": proc, "stamps": stamps, "phase_ns": int(phase_ms * 1e6),
                          "arrivals": [], "partial": b"", "window": [], "tally": ThreadTally(proc.pid),
                          "result": None}
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
                data = run["partial"] + chunk
                lines = data.split(b"\n")
                run["partial"] = lines.pop()
                for line in lines:
                    if line.startswith(b'{"class":"TPV"'):
                        match = TIME_RE.search(line)
                        if match:
                            run["arrivals"].append((arrived, match.group(1).decode()))
        for run in runs.values():
            try:
                run["proc"].wait(5)
            except subprocess.TimeoutExpired:
                warn(f"paced {rate:g} Hz: a client did not exit after the emulator closed")
            run["emulator"].wait(10)
    finally:
        for run in runs.values():
            stop(run["proc"], grace=1)
            stop(run["emulator"], grace=1)
    results = {}
    for name, run in runs.items():
        stamp = {}
        if os.path.exists(run["stamps"]):
            with open(run["stamps"]) as f:
                for line in f:
                    when, ns = line.split()
                    stamp[when] = int(ns)
        if len(run["window"]) < 2 or not run["result"]:
            warn(f"paced {rate:g} Hz: no counters for {name}")
            continue
        t0, t1 = run["window"][:2]
        switches, voluntary, runtime, born, gone = run["result"]
        in_window = [(t, when) for t, when in run["arrivals"] if t0 <= t <= t1]
        latencies = [(t - stamp[when]) / 1e6 for t, when in in_window if when in stamp]
        seconds = (t1 - t0) / 1e9
        fixes = len(in_window)
        results[name] = {
            "fixes": fixes,
            "expected": int(round(seconds * rate)),
            "cpu_ms_per_s": runtime / 1e6 / seconds,
            "wakeups_per_fix": switches / fixes if fixes else None,
            "voluntary_per_fix": voluntary / fixes if fixes else None,
            "wakeups_per_s": switches / seconds,
            "threads_born": born,
            "threads_gone": gone,
            "p50_ms": percentile(latencies, 50),
            "p99_ms": percentile(latencies, 99),
            "total_fixes": len(run["arrivals"]),
            "epochs": epochs,
        }
        if epochs and len(run["arrivals"]) != epochs:
            warn(f"paced {rate:g} Hz: {name} printed {len(run['arrivals'])} fixes for {epochs} epochs")
        if epochs and abs(fixes - results[name]["expected"]) > 0:
            note(f"paced {rate:g} Hz: {name} printed {fixes} fixes in a {seconds:.1f} s window "
                 f"(expected {results[name]['expected']})")
    return results


def run_steady(opts, loctrack, workdir):
    out = {}
    for rate in opts.rates:
        log(f"== steady {rate:g} Hz: {opts.steady_seconds:g} s window, {opts.rounds} rounds (3 clients at once)")
        rounds = []
        for r in range(opts.rounds):
            res = run_paced(opts, loctrack, workdir, rate, opts.steady_seconds, r)
            for name in CLIENTS:
                m = res.get(name)
                if m:
                    log(f"  round {r + 1} {name:11s} cpu {m['cpu_ms_per_s']:7.3f} ms/s  wakeups/fix "
                        f"{fmt(m['wakeups_per_fix'])} (voluntary {fmt(m['voluntary_per_fix'])})  latency p50 "
                        f"{fmt(m['p50_ms'], 3)} p99 {fmt(m['p99_ms'], 3)} ms  fixes {m['fixes']}  threads "
                        f"+{m['threads_born']}/-{m['threads_gone']}")
            rounds.append(res)
        out[rate] = rounds
    if opts.idle_seconds > 0:
        log(f"== idle: {opts.idle_seconds:g} s of a watch without reports")
        res = run_paced(opts, loctrack, workdir, 1.0, opts.idle_seconds, 0, epochs=0, warm_s=1.0)
        for name in CLIENTS:
            m = res.get(name)
            if m:
                log(f"  {name:11s} wakeups {m['wakeups_per_s']:.3f}/s  cpu {m['cpu_ms_per_s']:.4f} ms/s  threads "
                    f"+{m['threads_born']}/-{m['threads_gone']}")
        out["idle"] = res
    return out


# --------------------------------------------------------------------------- once (gpsfake)

def nmea(body: str) -> str:
    checksum = 0
    for ch in body.encode():
        checksum ^= ch
    return f"${body}*{checksum:02X}\r\n"


def nmea_log(start: datetime.datetime, seconds: int) -> str:
    lines = []
    for k in range(seconds):
        t = start + datetime.timedelta(seconds=k)
        hms = t.strftime("%H%M%S") + ".00"
        date = t.strftime("%d%m%y")
        minutes_lat = 6.62964 + k * 0.00006
        minutes_lon = 37.61382 + k * 0.00008
        lat, lon = f"38{minutes_lat:08.5f}", f"122{minutes_lon:08.5f}"
        lines.append(nmea(f"GPGGA,{hms},{lat},N,{lon},W,1,08,0.9,83.1,M,-29.5,M,,"))
        lines.append(nmea("GPGSA,A,3,13,16,18,20,26,29,44,51,,,,,1.5,0.9,1.2"))
        lines.append(nmea(f"GPRMC,{hms},A,{lat},N,{lon},W,0.5,54.7,{date},13.4,E,A"))
    return "".join(lines)


def wait_port(port: int, timeout: float) -> bool:
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed_run(argv, out_path, timeout):
    """Process start to exit, in ms (posix_spawn + pidfd + wait4)."""
    with open(out_path, "wb") as out:
        start = time.monotonic_ns()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, close_fds=True)
        _children.append(proc)
        waited = wait_rusage(proc, timeout)
    if waited is None:
        stop(proc)
        return None, None
    code, _, end = waited
    return (end - start) / 1e6, code


def run_once(opts, loctrack, workdir):
    log(f"== once: warm gpsd (gpsfake at 1 Hz, gpspipe -w attached), {opts.once_rounds} rounds")
    seconds = 60 + opts.once_rounds * 6
    start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    log_path = os.path.join(workdir, "warm.nmea")
    with open(log_path, "w") as f:
        f.write(nmea_log(start, seconds))
    port = free_port()
    env = dict(os.environ, TMPDIR=workdir)
    gpsfake = spawn(["gpsfake", "-q", "-1", "-n", "-P", str(port), "-c", "0.333", log_path],
                    stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "gpsfake.err"), "wb"), env=env)
    watcher = None
    results = {name: [] for name in CLIENTS}
    ages = []
    try:
        if not wait_port(port, 20):
            warn("once: gpsd under gpsfake did not listen")
            return None
        watcher_out = os.path.join(workdir, "watcher.jsonl")
        watcher = spawn(["gpspipe", "-w", f"127.0.0.1:{port}"], stdout=open(watcher_out, "wb"),
                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with open(watcher_out, "rb") as f:
                if re.search(rb'"class":"TPV".*"mode":[23]', f.read()):
                    break
            time.sleep(0.1)
        else:
            warn("once: gpsd never reported a fix to the attached client")
            return None
        time.sleep(1.5)  # a few epochs more: gpsd knows the cycle
        source = f"127.0.0.1:{port}"
        argvs = {
            "loctrack": [loctrack, "once", "--format", "json", "--max-age", str(opts.once_max_age), source],
            "C client": [CCLIENT, "--once", source],
            # gpspipe prints VERSION, DEVICES and WATCH, then the first report.
            "gpspipe -w": ["gpspipe", "-w", "-n", "4", source],
        }
        jitter = random.Random(2947)
        for r in range(opts.once_rounds):
            for name in rotate(CLIENTS, r):
                # Start at a random point of gpsd's 1 s cycle: a client that waits for the next
                # live TPV would otherwise be phase-locked to the previous client's exit.
                time.sleep(jitter.uniform(0, 1.0))
                out_path = os.path.join(workdir, "once.out")
                ms, code = timed_run(argvs[name], out_path, 10)
                with open(out_path, "rb") as f:
                    data = f.read()
                if ms is None or code != 0 or (name != "gpspipe -w" and b'"class":"TPV"' not in data):
                    warn(f"once round {r + 1}: {name} failed (exit {code}, {len(data)} bytes)")
                    continue
                results[name].append(ms)
                if name == "loctrack":
                    match = TIME_RE.search(data)
                    if match:
                        fix_time = datetime.datetime.strptime(match.group(1).decode(), "%Y-%m-%dT%H:%M:%S.%fZ")
                        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
                        ages.append((now - fix_time).total_seconds())
            log("  round {}: {}".format(r + 1, "  ".join(
                f"{n} {results[n][-1]:.1f} ms" for n in CLIENTS if results[n])))
    finally:
        if watcher:
            stop(watcher)
        stop(gpsfake, grace=1)
        # gpsd 3.22 cannot remove its SHM export segment after dropping privileges.
        subprocess.run(["ipcrm", "-M", hex(0x47700000 | (port & 0xFFFF))], stderr=subprocess.DEVNULL, check=False)
    return {"ms": results, "ages": ages}


# --------------------------------------------------------------------------- long flood

def run_long(opts, loctrack, workdir):
    epochs, checkpoints = opts.long_epochs, sorted({opts.long_checkpoint, opts.long_epochs // 2})
    log(f"== long flood: loctrack, {epochs} epochs, VmHWM at {checkpoints} fixes and at the end")
    emulator, port = start_emulator(["-n", epochs, "-C", 1])
    time_path = os.path.join(workdir, "time-long.txt")
    marks = {}
    try:
        err_path = os.path.join(workdir, "stderr-long.txt")
        with open(err_path, "wb") as err:
            proc = spawn(timed(client_argv("loctrack", port, loctrack), time_path),
                         stdout=subprocess.PIPE, stderr=err)
        fd = proc.stdout.fileno()
        lines = 0
        pending = list(checkpoints)
        target = None
        deadline = time.monotonic() + opts.long_timeout
        while True:
            if time.monotonic() > deadline:
                warn("long flood: timed out")
                break
            ready, _, _ = select.select([fd], [], [], 1)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            lines += chunk.count(b"\n")
            if target is None:
                kids = children_of(proc.pid) if HAVE_TIME else [proc.pid]
                target = kids[0] if kids else None
            while pending and lines >= pending[0] and target:
                marks[pending.pop(0)] = vm_hwm_kb(target)
        waited = wait_rusage(proc, 30)
        if waited is None:
            warn("long flood: loctrack did not exit")
            return None
        end_kb = peak_rss_kb(time_path, waited[1])
        if lines != epochs:
            with open(err_path, "rb") as f:
                said = f.read().decode(errors="replace").strip().replace("\n", " | ")[-400:]
            warn(f"long flood: loctrack printed {lines} fixes for {epochs} epochs; its stderr: {said}")
        return {"marks": marks, "end_kb": end_kb, "lines": lines}
    finally:
        stop(emulator)


# --------------------------------------------------------------------------- report

def fmt(value, digits=2, unit=""):
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}{unit}"


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "**missed**")


def machine_info(loctrack):
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
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


def report(opts, flood, steady, once, long, loctrack) -> str:
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = [f"# loctrack benchmark results ({'smoke run' if opts.smoke else 'make bench'})", "",
           f"- date: {now}",
           f"- machine: {machine_info(loctrack)}",
           f"- rounds: {opts.rounds} ({opts.once_rounds} for `once`; the clients alternate order round by round); "
           "ratios are loctrack / C client, per round, then the median",
           f"- loctrack: {loctrack}, built {built_at(loctrack)} (source tree at the start of the run: "
           f"{opts.revision})", "",
           "| figure | loctrack | C client | gpspipe -w | loctrack / C | target | |",
           "|---|---:|---:|---:|---:|---|---|"]

    def row(label, per_client, ratio_value, target, ok, digits=2, ratio_text=None):
        cells = [fmt(per_client.get(name), digits) for name in CLIENTS]
        rtext = ratio_text if ratio_text is not None else fmt(ratio_value, 2)
        out.append(f"| {label} | " + " | ".join(cells) + f" | {rtext} | {target} | {verdict(ok)} |")

    if flood:
        n = opts.flood_epochs
        for key, label, target, limit, digits in (
                ("wall", f"flood {n:,} epochs: wall time (s)", "≤ 0.80", 0.8, 3),
                ("cpu_per_fix_us", "flood: CPU per fix (µs)", "≤ 1.50", 1.5, 2),
                ("rss_mb", "flood: peak RSS (MB)", "≤ 10 MB", None, 1)):
            meds = {name: median([r[name][key] for r in flood if r.get(name)]) for name in CLIENTS}
            ratios = [ratio(r["loctrack"][key], r["C client"][key]) for r in flood
                      if r.get("loctrack") and r.get("C client")]
            rmed = median(ratios)
            if limit is not None:
                ok = rmed is not None and rmed <= limit
            else:
                ok = meds["loctrack"] is not None and meds["loctrack"] <= 10
            row(label, meds, rmed, target, ok, digits)
    if steady:
        for rate in opts.rates:
            rounds = steady.get(rate) or []
            cpu = {name: median([r[name]["cpu_ms_per_s"] for r in rounds if r.get(name)]) for name in CLIENTS}
            cpu_ratio = median([ratio(r["loctrack"]["cpu_ms_per_s"], r["C client"]["cpu_ms_per_s"])
                                for r in rounds if r.get("loctrack") and r.get("C client")])
            ok = (cpu_ratio is not None and cpu_ratio <= 1.5) if rate == 1 else None
            row(f"steady {rate:g} Hz: CPU (ms per s)", cpu, cpu_ratio, "≤ 1.50" if rate == 1 else "", ok, 3)
            wk = {name: median([r[name]["wakeups_per_fix"] for r in rounds if r.get(name)]) for name in CLIENTS}
            wk_ratio = median([ratio(r["loctrack"]["wakeups_per_fix"], r["C client"]["wakeups_per_fix"])
                               for r in rounds if r.get("loctrack") and r.get("C client")])
            ok = (wk["loctrack"] is not None and wk["loctrack"] <= 1.05) if rate == 1 else None
            row(f"steady {rate:g} Hz: wakeups per fix", wk, wk_ratio, "1 per fix" if rate == 1 else "", ok, 2)
            vol = {name: median([r[name]["voluntary_per_fix"] for r in rounds if r.get(name)]) for name in CLIENTS}
            vol_ratio = median([ratio(r["loctrack"]["voluntary_per_fix"], r["C client"]["voluntary_per_fix"])
                                for r in rounds if r.get("loctrack") and r.get("C client")])
            row(f"steady {rate:g} Hz: of which voluntary (thread blocked)", vol, vol_ratio, "", None, 2)
            for key, label in (("p50_ms", "latency p50 (ms)"), ("p99_ms", "latency p99 (ms)")):
                lat = {name: median([r[name][key] for r in rounds if r.get(name)]) for name in CLIENTS}
                diffs = [r["loctrack"][key] - r["C client"][key] for r in rounds
                         if r.get("loctrack") and r.get("C client") and r["loctrack"][key] is not None
                         and r["C client"][key] is not None]
                dmed = median(diffs)
                target, ok = "", None
                if key == "p99_ms" and rate == 10:
                    target, ok = "≤ C + 1 ms", dmed is not None and dmed <= 1.0
                row(f"steady {rate:g} Hz: {label}", lat, None, target, ok, 3,
                    ratio_text=("n/a" if dmed is None else f"{dmed:+.3f} ms"))
        idle = steady.get("idle")
        if idle:
            per = {name: idle[name]["wakeups_per_s"] for name in CLIENTS if name in idle}
            ok = per.get("loctrack") is not None and per["loctrack"] == 0
            row(f"idle watch ({opts.idle_seconds:g} s, no reports): wakeups per s", per, None, "0", ok, 2,
                ratio_text="")
    if once:
        meds = {name: median(once["ms"][name]) for name in CLIENTS}
        ratios = []
        k = min(len(once["ms"]["loctrack"]), len(once["ms"]["C client"]))
        for i in range(k):
            ratios.append(ratio(once["ms"]["loctrack"][i], once["ms"]["C client"][i]))
        ok = meds["loctrack"] is not None and meds["loctrack"] <= 10
        row("`once` on a warm gpsd: start to exit (ms)", meds, median(ratios), "≤ 10 ms", ok, 1)
    if long:
        marks = long["marks"]
        first = min(marks) if marks else None
        at_first = marks.get(first) if first else None
        end_mb = long["end_kb"] / 1024
        for count in sorted(marks):
            value = marks[count]
            out.append(f"| long flood: loctrack peak RSS after {count:,} fixes (MB) | "
                       f"{fmt(value / 1024 if value else None, 1)} | | | | | |")
        ok = at_first is not None and end_mb <= max(10.0, at_first / 1024 * 1.1) and end_mb <= 10
        out.append(f"| long flood: loctrack peak RSS at the end, {opts.long_epochs:,} fixes (MB) | {end_mb:.1f} "
                   f"| | | | same as at {first:,}, ≤ 10 MB | {verdict(ok)} |" if first else
                   f"| long flood: loctrack peak RSS at the end (MB) | {end_mb:.1f} | | | | ≤ 10 MB | {verdict(ok)} |")
    if once and once["ages"]:
        out += ["", f"`once`: age of loctrack's fix by the wall clock at exit, median {median(once['ages']):.2f} s "
                f"(`--max-age {opts.once_max_age}`)."]
    checks = "all checks passed"
    if flood:
        checks += (" (every flood client printed exactly one fix per epoch; loctrack's flood output equals "
                   "the C client's " + ("field for field; loctrack adds " + ", ".join(f"`{f}`" for f in
                                                                             sorted(extra_fields))
                                        if extra_fields else "byte for byte") + ")")
    out += ["", "Correctness: " + (checks + "." if not problems else "**problems**:")]
    out += [f"- {p}" for p in problems]
    if notes:
        out += ["", "Notes (timing-dependent, not failures):"] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a quick run that only proves everything works")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--flood-epochs", type=int, default=200_000)
    parser.add_argument("--long-epochs", type=int, default=1_000_000)
    parser.add_argument("--long-checkpoint", type=int, default=100_000)
    parser.add_argument("--steady-seconds", type=float, default=30)
    parser.add_argument("--warm-seconds", type=float, default=2)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--once-rounds", type=int, default=None)
    parser.add_argument("--once-max-age", type=float, default=5)
    parser.add_argument("--rates", default="1,10")
    parser.add_argument("--only", default="flood,steady,once,long")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK",
                                                             os.path.join(ROOT, ".build/release/loctrack")))
    parser.add_argument("--output", default=None, help="markdown table (default Benchmarks/results/latest.md; "
                                                       "smoke: Benchmarks/bin/smoke.md)")
    opts = parser.parse_args()
    if opts.smoke:
        opts.rounds = 1
        opts.flood_epochs = 2_000
        opts.long_epochs = 20_000
        opts.long_checkpoint = 2_000
        opts.steady_seconds = 2
        opts.warm_seconds = 1
        opts.idle_seconds = 1
        opts.rates = "10"
        opts.once_rounds = opts.once_rounds or 1
    opts.revision = git_revision()
    opts.rates = [float(r) for r in opts.rates.split(",") if r]
    opts.rates = [int(r) if r.is_integer() else r for r in opts.rates]
    opts.once_rounds = opts.once_rounds or max(opts.rounds, 5)
    opts.flood_timeout = 120 + opts.flood_epochs / 2000
    opts.long_timeout = 120 + opts.long_epochs / 2000
    if opts.output is None:
        opts.output = os.path.join(BIN if opts.smoke else os.path.join(HERE, "results"),
                                   "smoke.md" if opts.smoke else "latest.md")
    only = set(opts.only.split(","))
    for path in (EMULATOR, CCLIENT, opts.loctrack):
        if not os.access(path, os.X_OK):
            log(f"run.py: {path} is missing (run `make bench`, which builds everything first)")
            return 1
    for tool in ("gpspipe", "gpsfake"):
        if not any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "").split(":")):
            log(f"run.py: {tool} is missing (gpsd-clients)")
            return 1

    os.makedirs(BIN, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-", dir=BIN) as workdir:
        flood = run_flood(opts, opts.loctrack, workdir) if "flood" in only else None
        steady = run_steady(opts, opts.loctrack, workdir) if "steady" in only else None
        once = run_once(opts, opts.loctrack, workdir) if "once" in only else None
        long = run_long(opts, opts.loctrack, workdir) if "long" in only else None
    table = report(opts, flood, steady, once, long, opts.loctrack)
    print(table)
    os.makedirs(os.path.dirname(os.path.abspath(opts.output)), exist_ok=True)
    with open(opts.output, "w") as f:
        f.write(table)
    log(f"written to {os.path.relpath(opts.output, ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
