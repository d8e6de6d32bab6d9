"""What is read from /proc and wait4, one measured run of a client, and statistics."""

from __future__ import annotations

import os
import select
import statistics
import subprocess
import time

from support import processes as procs  # scripts/support


# --------------------------------------------------------------------------- threads

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


def process_cpu_ticks(pid: int):
    """utime + stime of the whole process (live and exited threads) in clock ticks, from
    /proc/PID/stat; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5), counted after the ")"


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


# --------------------------------------------------------------------------- memory

def status_kb(pid: int, keys=("RssAnon", "VmHWM")) -> dict:
    """Fields of /proc/PID/status in kB ({} when the process is gone or a zombie)."""
    found = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in keys:
                    found[key] = int(value.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


class MemoryPeak:
    """Peak private (anonymous) memory of one client process: RssAnon, sampled, since the
    kernel keeps a high-water mark for the whole RSS (VmHWM, which counts clean shared code
    pages too) but none for anonymous memory alone; and its VmHWM as last seen.

    `pid` is the client or a wrapper (GNU time) whose child it is; samples count only from
    the process whose /proc/PID/cmdline starts with the client's argv[0] and argv[1], so
    that neither the wrapper nor the driver's own memory before the exec is taken for the
    client's (only two: gpspipe rewrites its HOST:PORT argument in place)."""

    def __init__(self, pid: int, argv):
        self.pid = pid
        self.argv = [a.encode() for a in argv[:2]]
        self.client = None
        self.peak_kb = None
        self.hwm_kb = None

    def _find_client(self):
        for pid in [self.pid] + children_of(self.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read().split(b"\0")[:len(self.argv)] == self.argv:
                        return pid
            except (FileNotFoundError, ProcessLookupError):
                continue
        return None

    def sample(self):
        if self.client is None:
            self.client = self._find_client()
            if self.client is None:
                return
        found = status_kb(self.client)
        if "RssAnon" in found:
            self.peak_kb = max(self.peak_kb or 0, found["RssAnon"])
            self.hwm_kb = found["VmHWM"]


def children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


# wait4's ru_maxrss is no use for a child of the driver: at exec the kernel carries the old
# image's high-water mark over, and a child forked from Python starts with the driver's
# ~20 MB. GNU time forks the client from a 1-2 MB process, so its %M is the client's own.
TIME = "/usr/bin/time"
HAVE_TIME = os.access(TIME, os.X_OK)


def run_measured(stages, stdout, stderr, timeout: float, scratch: str, sample_s: float = 0.01, env=None):
    """Runs a client (one argv, or a pipeline of several, each stage's stdout into the next
    one's stdin) to its exit. Returns wall time from the first spawn to the last exit, and
    the sums over the stages of CPU (wait4: user, sys), peak RSS (GNU time's %M; without
    it, VmHWM as last sampled) and peak private memory (RssAnon sampled every sample_s),
    and each stage's own CPU (user + sys) in "stage_cpu"; None on timeout (the stages are
    stopped). `env`: the stages' environment (default the driver's)."""
    started, samplers, rss_files = [], [], []
    start = time.monotonic_ns()
    upstream = subprocess.DEVNULL
    for index, argv in enumerate(stages):
        last = index == len(stages) - 1
        rss_file = os.path.join(scratch, f"rss-{index}.txt")
        wrapped = [TIME, "-f", "%M", "-o", rss_file] + argv if HAVE_TIME else argv
        proc = procs.spawn(wrapped, stdin=upstream, stdout=stdout if last else subprocess.PIPE, stderr=stderr,
                            env=env)
        if upstream is not subprocess.DEVNULL:
            upstream.close()  # the pipe's ends now belong to the two stages alone
        upstream = proc.stdout
        started.append(proc)
        samplers.append(MemoryPeak(proc.pid, argv))
        rss_files.append(rss_file)
    pidfds = {os.pidfd_open(p.pid): (p, s) for p, s in zip(started, samplers)}
    exits, by_stage = [], {}
    deadline = time.monotonic() + timeout
    try:
        while pidfds and time.monotonic() < deadline:
            for _, sampler in pidfds.values():
                sampler.sample()
            ready, _, _ = select.select(list(pidfds), [], [], sample_s)
            for fd in ready:
                proc, _ = pidfds.pop(fd)
                os.close(fd)
                exits.append(procs.reap(proc))
                by_stage[started.index(proc)] = exits[-1][1]
    finally:
        for fd in pidfds:
            os.close(fd)
    if pidfds:
        for proc in started:
            procs.terminate(proc, 2)
        return None
    if HAVE_TIME:
        rss = []
        for path in rss_files:
            with open(path) as f:
                rss.append(int(f.read().split()[-1]))
    else:
        rss = [s.hwm_kb for s in samplers]
    peaks = [s.peak_kb for s in samplers]
    return {
        "wall": (max(end for _, _, end in exits) - start) / 1e9,
        "user": sum(u.ru_utime for _, u, _ in exits),
        "sys": sum(u.ru_stime for _, u, _ in exits),
        "rss_kb": None if None in rss else sum(rss),
        "private_kb": None if None in peaks else sum(peaks),
        "codes": [p.returncode for p in started],
        "stage_cpu": [by_stage[i].ru_utime + by_stage[i].ru_stime for i in range(len(started))],
    }


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


def medians(rounds, variants, key):
    """Per variant, the median of `key` over the rounds it finished (a section's row)."""
    return [median([r[v][key] for r in rounds if r.get(v)]) for v in variants]


def median_ratios(rounds, pairs, key):
    """Per (a, b) pair, the median over the rounds both finished of a's `key` / b's."""
    return [median([ratio(r[a][key], r[b][key]) for r in rounds if r.get(a) and r.get(b)]) for a, b in pairs]
