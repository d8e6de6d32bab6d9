#!/usr/bin/env python3
"""faults.py: loctrack's fault-injection suite (`make faults`, `make faults-long`).

Each fault of docs/faults.md is injected into a real `loctrack` process, from a
scripted gpsd (scripts/fake_gpsd.py, in this process), a real gpsd fed by
gpsfake, or the flood emulator (Benchmarks/emulator/flood_gpsd.c), and the
behaviour the docs promise is asserted. Every fault prints PASS or FAIL with
its sub-checks and a measured figure; a table at the end sums up, and the exit
status is 1 if anything failed (an exception in a test counts as a failure and
its traceback goes to out/faults/N.traceback), 2 if the suite cannot start.

  python3 scripts/faults.py [--loctrack PATH] [--flood PATH] [--only 1,4,10]
                            [--long] [--jobs N] [--out DIR] [--stall S] [--stall-gpsd S]

Faults 1-10 are the default run (about 70 s on 2 cores: the slow ones run
side by side, the timing-sensitive ones alone); 12 (a million fixes from the
flood emulator, then 300,000 paced, about 50 s) runs with --long or --only 12.
The issue's minute-long stall of stdout's reader is shortened to 20 s against
the flood emulator (--stall) and 40 s against a real gpsd (--stall-gpsd).
Figures are wall-clock and /proc based: CPU time is utime+stime from
/proc/PID/stat, memory VmHWM/VmRSS from /proc/PID/status.

Python 3 standard library only. Artifacts (each loctrack's stdout/stderr) go to
out/faults/.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from fake_gpsd import FakeGpsd  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
GPSD_LOGS = Path(os.environ.get("GPSD_LOGS", str(ROOT.parent / "shared" / "gpsd-logs")))
BASE_TIME = 1735689600  # 2025-01-01T00:00:00Z
DEVICE = "/dev/ttyACM0"
SIGNAL_EXIT_LIMIT = 0.200  # seconds from SIGINT/SIGTERM to exit (issue item 10)


def now() -> float:
    return time.monotonic()


def load_average() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


# -- gpsd reports ------------------------------------------------------------------------

def iso(seconds: float) -> str:
    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % millis


def epoch_time(k: int, step: float = 1.0) -> str:
    return iso(BASE_TIME + k * step)


def tpv(k: int, device: str = DEVICE, step: float = 1.0, mode: int = 3, when: Optional[str] = None,
        altitude: bool = True) -> bytes:
    """A gpsd 3.22 TPV for epoch k (distinct time and position per epoch)."""
    lat = 38.110494 + k * 1.2e-5
    lon = -122.626897 + k * 1.5e-5
    text = ('{"class":"TPV","device":"%s","status":2,"mode":%d,"time":"%s","ept":0.005,'
            '"lat":%.9f,"lon":%.9f,' % (device, mode, when or epoch_time(k, step), lat, lon))
    if altitude and mode == 3:
        text += '"altHAE":53.6000,"altMSL":83.1000,"alt":83.1000,"epv":3.000,'
    text += ('"epx":1.000,"epy":1.000,"track":44.1234,"magtrack":57.5234,"magvar":13.4,"speed":1.400,'
             '"eps":2.00,"geoidSep":-29.500,"eph":2.707,"sep":5.083}')
    return text.encode()


def sky(k: int, satellites: int = 12, device: str = DEVICE) -> bytes:
    sats = ",".join('{"PRN":%d,"el":%d.0,"az":%d.0,"ss":%d.0,"used":%s,"gnssid":0,"svid":%d}'
                    % (n + 1, 10 + (n * 7) % 80, (n * 37 + k) % 360, 20 + n % 25,
                       "true" if n % 3 else "false", n + 1) for n in range(satellites))
    return ('{"class":"SKY","device":"%s","xdop":0.66,"ydop":0.84,"vdop":0.83,"tdop":1.37,"hdop":0.54,'
            '"gdop":2.70,"pdop":0.99,"nSat":%d,"uSat":%d,"satellites":[%s]}'
            % (device, satellites, satellites * 2 // 3, sats)).encode()


def preamble(device: str = DEVICE) -> List[bytes]:
    """What gpsd 3.22 sends after ?WATCH, before the first report."""
    return [
        ('{"class":"DEVICES","devices":[{"class":"DEVICE","path":"%s","driver":"u-blox",'
         '"activated":"2025-01-01T00:00:00.000Z","flags":1,"native":1,"bps":9600,"parity":"N",'
         '"stopbits":1,"cycle":1.00,"mincycle":0.02}]}' % device).encode(),
        b'{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,'
        b'"split24":false,"pps":false}',
        ('{"class":"DEVICE","path":"%s","driver":"u-blox","activated":"2025-01-01T00:00:00.000Z",'
         '"flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.02}'
         % device).encode(),
    ]


def epochs(first: int, last: int, with_sky: bool = True, **options) -> List[bytes]:
    lines = []
    for k in range(first, last + 1):
        lines.append(tpv(k, **options))
        if with_sky:
            lines.append(sky(k))
    return lines


def learning_epochs(first: int, last: int) -> List[bytes]:
    """Two TPVs per epoch, as gpsd sends while learning an NMEA cycle (RMC: 2D, then GGA: 3D)."""
    lines = []
    for k in range(first, last + 1):
        lines.append(tpv(k, mode=2, altitude=False))
        lines.append(tpv(k, mode=3))
    return lines


def parse_fix(text: str) -> Optional[dict]:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# -- processes -----------------------------------------------------------------------------

_port_lock = threading.Lock()
_ports_given = set()
_reservations: Dict[int, socket.socket] = {}


def _ephemeral_range() -> Tuple[int, int]:
    try:
        low, high = open("/proc/sys/net/ipv4/ip_local_port_range").read().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A loopback port for a gpsd that is not there yet (or will go away and come back).

    The port lies below the kernel's ephemeral range (no client connection takes it as its
    source port) and stays reserved for this run: a socket bound to it with SO_REUSEADDR but
    not listening, so connections to it are refused as if nothing were there, nobody else can
    bind it, and a FakeGpsd (SO_REUSEADDR too) can still listen on it. gpsd itself does not
    set SO_REUSEADDR: call release_port() just before starting gpsfake on it."""
    import random
    low, _ = _ephemeral_range()
    with _port_lock:
        for _ in range(200):
            port = random.randint(20000, low - 1) if low > 21000 else 0
            if port in _ports_given:
                continue
            holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                holder.bind(("127.0.0.1", port))
            except OSError:
                holder.close()
                continue
            port = holder.getsockname()[1]
            _ports_given.add(port)
            _reservations[port] = holder
            return port
    raise RuntimeError("no free port")


def release_port(port: int) -> None:
    """Ends free_port()'s reservation (for a program that binds without SO_REUSEADDR)."""
    with _port_lock:
        holder = _reservations.pop(port, None)
    if holder is not None:
        holder.close()


def proc_cpu(pid: int) -> Optional[float]:
    """utime + stime of the whole process (all threads), in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def proc_status_kb(pid: int, key: str) -> Optional[int]:
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def proc_switches(pid: int) -> Optional[int]:
    """Context switches of all the process's threads (each one a wake-up or a preemption)."""
    total = 0
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/status" % (pid, task)) as handle:
                for line in handle:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total


def kill_group(process: Optional[subprocess.Popen]) -> None:
    if process is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


_live_processes: List[subprocess.Popen] = []
_live_lock = threading.Lock()


def spawn(command: Sequence[str], **options) -> subprocess.Popen:
    """Popen in a session of its own (so killpg reaches everything it starts), remembered for cleanup."""
    process = subprocess.Popen(list(command), start_new_session=True, **options)
    with _live_lock:
        _live_processes.append(process)
    return process


def cleanup_all() -> None:
    with _live_lock:
        processes = list(_live_processes)
    for process in processes:
        if process.poll() is None:
            kill_group(process)


class Loctrack:
    """One loctrack process: stdout lines and stderr lines timestamped as they arrive.

    stdout is read by a thread that can be paused (`stall()`), for a reader of
    stdout that stops reading. With store=False only a count and the last line are
    kept (a million fixes)."""

    def __init__(self, ctx: "Context", args: Sequence[str], name: str, store: bool = True):
        self.ctx = ctx
        self.name = name
        self.args = list(args)
        self.store = store
        self.out: List[Tuple[float, str]] = []
        self.err: List[Tuple[float, str]] = []
        self.count = 0
        self.last_line = ""
        self.bytes_read = 0
        self.cond = threading.Condition()
        self.reading = threading.Event()
        self.reading.set()
        self.exited_at: Optional[float] = None
        self.returncode: Optional[int] = None
        self.started = now()
        self.process = spawn([ctx.loctrack] + self.args, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pid = self.process.pid
        self._threads = [threading.Thread(target=target, daemon=True, name="loctrack-" + what)
                         for what, target in (("out", self._read_stdout), ("err", self._read_stderr),
                                              ("wait", self._wait))]
        for thread in self._threads:
            thread.start()

    # readers
    def _read_stdout(self) -> None:
        descriptor = self.process.stdout.fileno()
        partial = b""
        while True:
            self.reading.wait()
            try:
                chunk = os.read(descriptor, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            stamp = now()
            with self.cond:
                self.bytes_read += len(chunk)
                if self.store:
                    pieces = (partial + chunk).split(b"\n")
                    partial = pieces.pop()
                    for piece in pieces:
                        self.out.append((stamp, piece.decode("utf-8", "replace")))
                    self.count += len(pieces)
                    if pieces:
                        self.last_line = pieces[-1].decode("utf-8", "replace")
                else:
                    newlines = chunk.count(b"\n")
                    if newlines:
                        self.count += newlines
                        end = chunk.rfind(b"\n")
                        start = chunk.rfind(b"\n", 0, end) + 1
                        self.last_line = ((partial if start == 0 else b"") + chunk[start:end]).decode(
                            "utf-8", "replace")[-2000:]
                        partial = chunk[end + 1:]
                    else:
                        partial = (partial + chunk)[-4096:]
                self.cond.notify_all()
        with self.cond:
            if partial and self.store:
                self.out.append((now(), partial.decode("utf-8", "replace") + "<no newline>"))
            self.cond.notify_all()

    def _read_stderr(self) -> None:
        for raw in iter(self.process.stderr.readline, b""):
            with self.cond:
                self.err.append((now(), raw.decode("utf-8", "replace").rstrip("\n")))
                self.cond.notify_all()

    def _wait(self) -> None:
        code = self.process.wait()
        stamp = now()
        with self.cond:
            self.exited_at = stamp
            self.returncode = code
            self.cond.notify_all()

    # queries
    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Waits until predicate() (checked on every output line and every 20 ms: it may
        look at a server's state too); True if it became true within timeout."""
        deadline = now() + timeout
        with self.cond:
            while True:
                if predicate():
                    return True
                remaining = deadline - now()
                if remaining <= 0:
                    return False
                self.cond.wait(min(remaining, 0.02))

    def wait_lines(self, count: int, timeout: float) -> bool:
        return self.wait_for(lambda: self.count >= count, timeout)

    def wait_stderr(self, needle: str, timeout: float, after: float = 0.0) -> Optional[float]:
        """The arrival time of the first stderr line after `after` that contains needle."""
        found: List[float] = []

        def seen() -> bool:
            for stamp, text in self.err:
                if stamp >= after and needle in text:
                    found.append(stamp)
                    return True
            return False
        self.wait_for(seen, timeout)
        return found[0] if found else None

    def fixes(self) -> List[Tuple[float, dict]]:
        with self.cond:
            lines = list(self.out)
        result = []
        for stamp, text in lines:
            value = parse_fix(text)
            if value is not None:
                result.append((stamp, value))
        return result

    def fix_times(self) -> List[str]:
        return [fix.get("time", "?") for _, fix in self.fixes()]

    def stderr_lines(self, after: float = 0.0, before: float = float("inf")) -> List[str]:
        with self.cond:
            return [text for stamp, text in self.err if after <= stamp < before]

    def cpu(self) -> Optional[float]:
        return proc_cpu(self.pid)

    def status_kb(self, key: str) -> Optional[int]:
        return proc_status_kb(self.pid, key)

    def running(self) -> bool:
        return self.exited_at is None

    # control
    def stall(self) -> None:
        self.reading.clear()

    def resume(self) -> None:
        self.reading.set()

    def send_signal(self, number: int) -> float:
        stamp = now()
        os.kill(self.pid, number)
        return stamp

    def wait_exit(self, timeout: float) -> Optional[int]:
        self.wait_for(lambda: self.exited_at is not None, timeout)
        return self.returncode

    def drain(self, quiet: float = 0.3, timeout: float = 5.0) -> None:
        """Waits until stdout has been quiet for `quiet` seconds (or the process ended)."""
        deadline = now() + timeout
        last = -1
        while now() < deadline:
            with self.cond:
                count = self.count
            if count == last or not self.running():
                return
            last = count
            time.sleep(quiet)

    def stop(self, timeout: float = 3.0) -> Optional[int]:
        """SIGTERM (stream's graceful end), then SIGKILL of the group if it does not end."""
        if self.running():
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            if self.wait_exit(timeout) is None:
                kill_group(self.process)
                self.wait_exit(2)
        for thread in self._threads:
            thread.join(timeout=2)
        self.save()
        return self.returncode

    def save(self) -> None:
        directory = self.ctx.out
        try:
            with open(directory / (self.name + ".out"), "w") as handle:
                with self.cond:
                    lines = self.out[:5000] if self.store else [(0, "(%d lines, not stored)" % self.count)]
                for stamp, text in lines:
                    handle.write("%.3f %s\n" % (stamp - self.started, text))
            with open(directory / (self.name + ".err"), "w") as handle:
                with self.cond:
                    for stamp, text in self.err:
                        handle.write("%.3f %s\n" % (stamp - self.started, text))
                handle.write("# %s %s -> exit %s\n" % (self.ctx.loctrack, " ".join(self.args), self.returncode))
        except OSError:
            pass


class Server:
    """A FakeGpsd in this process, started at once (or later with start())."""

    def __init__(self, lines: List[bytes], port: int = 0, start: bool = True, **options):
        self.fake = FakeGpsd(lines, port=port, **options)
        self.port: Optional[int] = None
        if start:
            self.start()

    def start(self) -> int:
        self.port = self.fake.start()
        return self.port

    @property
    def clients(self):
        return self.fake.clients

    def stop(self) -> None:
        self.fake.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Unresponsive:
    """A loopback port whose listener never accepts and whose accept queue is full, so the
    kernel drops new SYNs: connect() blocks (for minutes: tcp_syn_retries), as it does for a
    gpsd host that is down behind a firewall that drops packets."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        self.fillers = []
        for _ in range(3):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", self.port))
            except (BlockingIOError, OSError):
                pass
            self.fillers.append(filler)
        time.sleep(0.2)

    def close(self) -> None:
        for sock in self.fillers + [self.listener]:
            try:
                sock.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- results -------------------------------------------------------------------------------

class Result:
    def __init__(self, fault: str, title: str, expectation: str):
        self.fault = fault
        self.title = title
        self.expectation = expectation
        self.figure = ""
        self.checks: List[Tuple[bool, str, str]] = []
        self.notes: List[str] = []
        self.error: Optional[str] = None
        self.seconds = 0.0
        self.lock = threading.Lock()

    def check(self, ok: bool, what: str, observed="") -> bool:
        with self.lock:
            self.checks.append((bool(ok), what, str(observed)))
        return bool(ok)

    def note(self, text: str) -> None:
        with self.lock:
            self.notes.append(text)

    @property
    def passed(self) -> bool:
        return self.error is None and bool(self.checks) and all(ok for ok, _, _ in self.checks)

    def report(self) -> str:
        lines = ["%s fault %s: %s  (%.1f s)" % ("PASS" if self.passed else "FAIL", self.fault, self.title,
                                               self.seconds)]
        lines.append("     figure: " + (self.figure or "-"))
        for ok, what, observed in self.checks:
            lines.append("     %s %s%s" % ("ok  " if ok else "FAIL", what, (": " + observed) if observed else ""))
        for text in self.notes:
            lines.append("     note " + text)
        if self.error:
            lines.append("     ERROR in the test itself: " + self.error)
        return "\n".join(lines)


class Context:
    def __init__(self, loctrack: str, flood: Optional[str], out: Path, stall: float, stall_gpsd: float = 40.0):
        self.loctrack = loctrack
        self.flood = flood
        self.out = out
        self.stall_seconds = stall
        self.stall_gpsd_seconds = stall_gpsd


def parallel(*calls: Callable[[], None]) -> None:
    """Runs the calls on threads and waits for all; the first exception is re-raised."""
    errors: List[BaseException] = []

    def run(call):
        try:
            call()
        except BaseException as error:  # noqa: BLE001 - re-raised below
            errors.append(error)
            traceback.print_exc()
    threads = [threading.Thread(target=run, args=(call,), daemon=True) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def ms(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    return ("%.1f ms" if abs(seconds) < 0.01 else "%.0f ms") % (seconds * 1000)


def cpu_ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else "%.0f ms" % (seconds * 1000)


def short(texts: List[str], limit: int = 3) -> str:
    shown = [text[:160] for text in texts[:limit]]
    more = " (+%d more)" % (len(texts) - limit) if len(texts) > limit else ""
    return repr(shown) + more


# == fault 1: gpsd not running at start ========================================================

def parse_retry_delay(text: str) -> Optional[float]:
    match = re.search(r"retrying in (\d+) ms", text)
    if match:
        return int(match.group(1)) / 1000
    match = re.search(r"retrying in (\d+)\.(\d) s", text)
    if match:
        return int(match.group(1)) + int(match.group(2)) / 10
    return None


def fault_1(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def once_without_gpsd():
        port = free_port()
        lt = Loctrack(ctx, ["once", "127.0.0.1:%d" % port], "1-once-no-gpsd")
        code = lt.wait_exit(10)
        lt.stop()
        elapsed = (lt.exited_at or now()) - lt.started
        errors = lt.stderr_lines()
        r.check(code == 69, "once: exit 69", code)
        r.check(elapsed <= 1.0, "once: exits within 1 s", ms(elapsed))
        r.check(len(errors) == 1, "once: exactly one stderr line", short(errors))
        first = errors[0] if errors else ""
        r.check("127.0.0.1:%d" % port in first and "can't connect to host/port pair" in first,
                "once: the line names the source and libgps's reason (gps_errstr)", first)
        r.check(lt.count == 0, "once: nothing on stdout", lt.count)
        figures["once"] = "once: exit %s in %s" % (code, ms(elapsed))

    def stream_until_gpsd_appears():
        port = free_port()
        lt = Loctrack(ctx, ["stream", "--format", "json", "127.0.0.1:%d" % port], "1-stream-waits")
        try:
            time.sleep(0.3)
            cpu0, t0 = lt.cpu(), now()
            time.sleep(3.2)
            cpu_wait, waited = (lt.cpu() or 0) - (cpu0 or 0), now() - t0
            errors = lt.stderr_lines()
            r.check(len(errors) == 1 and "waiting for gpsd" in errors[0] and "127.0.0.1:%d" % port in errors[0],
                    "stream: one stderr line while gpsd is missing, naming the source and 'waiting for gpsd'",
                    short(errors))
            r.check(lt.count == 0, "stream: no output while waiting", lt.count)
            r.check(lt.running(), "stream: still running (waits, does not exit)", "exit %s" % lt.returncode)
            r.check(cpu_wait <= 0.03, "stream: no spin while waiting (CPU over %.1f s <= 30 ms)" % waited,
                    cpu_ms(cpu_wait))
            with Server(preamble() + epochs(0, 40), port=port, epoch_delay=0.1, linger=-1):
                appeared = now()
                got = lt.wait_lines(3, 8)
                first = lt.out[0][0] - appeared if lt.out else None
                # Attempts so far at 0, <=0.5, <=1.5, <=3.5 s, the next one 2-4 s after that: normally
                # within 4 s; 8 s is the bound should a loaded box have delayed this script past attempt 5.
                r.check(got and first is not None and first <= 8.5,
                        "stream: prints fixes once gpsd appears (at the next attempt of its backoff)",
                        ms(first))
                connected = [text for text in lt.stderr_lines() if "connected to gpsd" in text]
                r.check(len(connected) == 1, "stream: says once that it is connected again", short(connected))
                lt.drain(0.3, 2)
            code = lt.stop()
            r.check(code == 0, "stream: SIGTERM afterwards: exit 0", code)
            figures["stream"] = "stream: 1 stderr line and %s CPU in %.1f s without gpsd; first fix %s after gpsd appeared" % (
                cpu_ms(cpu_wait), waited, ms(first))
        finally:
            lt.stop()

    def backoff_sequence():
        port = free_port()
        lt = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % port], "1-backoff")
        try:
            cpu0 = lt.cpu() or 0.0
            # The 7th delay is the first drawn from the 30 s cap; it is announced after
            # d1+...+d6 <= 31.5 s.
            lt.wait_for(lambda: sum(1 for _, text in lt.err if "retrying in" in text) >= 7, 34)
            cpu_used = (lt.cpu() or 0.0) - cpu0
            with lt.cond:
                retries = [(stamp, parse_retry_delay(text)) for stamp, text in lt.err if "retrying in" in text]
            delays = [delay for _, delay in retries]
            r.check(len(retries) >= 7 and all(delay is not None for delay in delays),
                    "stream --verbose: one 'retrying in …' line per attempt, 7 within 34 s", len(retries))
            bad = []
            for index, delay in enumerate(delays[:7]):
                step = min(0.5 * (2 ** index), 30.0)
                # "N.D s" is cut to 100 ms, so allow 0.1 s below the lower bound.
                if delay is None or not (step / 2 - 0.1 <= delay <= step):
                    bad.append("retry %d: %s s not in [%g, %g]" % (index + 1, delay, step / 2, step))
            r.check(not bad, "backoff: retry k waits between half and all of min(0.5 s * 2^(k-1), 30 s)",
                    "; ".join(bad) or ", ".join("%g" % d for d in delays[:7]))
            gaps = []
            for (stamp, delay), (next_stamp, _) in zip(retries, retries[1:]):
                gaps.append((next_stamp - stamp, delay))
            wrong = ["%.2f s after announcing %g s" % (gap, delay) for gap, delay in gaps
                     if delay is not None and not (delay - 0.15 <= gap <= delay + 0.6)]
            r.check(not wrong, "backoff: the next attempt really comes after the announced delay", "; ".join(wrong)
                    or "%d gaps match" % len(gaps))
            r.check(cpu_used <= 0.05, "backoff: no spin (CPU over the whole wait <= 50 ms)",
                    "%s over %.0f s" % (cpu_ms(cpu_used), now() - lt.started))
            figures["backoff"] = "delays %s s (cap step 30 s), CPU %s in %.0f s" % (
                ", ".join("%g" % d for d in delays[:7] if d is not None), cpu_ms(cpu_used), now() - lt.started)
        finally:
            lt.stop()

    parallel(once_without_gpsd, stream_until_gpsd_appears, backoff_sequence)
    r.figure = "; ".join(figures[key] for key in ("once", "stream", "backoff") if key in figures)


# == fault 2: gpsd killed and restarted mid-stream ===============================================

def fault_2(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def scripted_restart():
        port = free_port()
        first = Server(preamble() + epochs(0, 29), port=port, epoch_delay=0.1, linger=-1)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "2-scripted-restart")
        second = None
        try:
            r.check(lt.wait_lines(30, 15), "scripted: 30 epochs before the kill printed", lt.count)
            killed = now()
            first.stop()
            time.sleep(1.0)  # gpsd is down: connections are refused meanwhile
            # The restarted gpsd re-reports the last 2 epochs, then continues to epoch 59.
            second = Server(preamble() + epochs(28, 59), port=port, epoch_delay=0.1, linger=-1)
            lt.wait_for(lambda: any(epoch_time(59) in text for _, text in lt.out), 15)
            lt.drain(0.3, 2)
            times = lt.fix_times()
            expected = [epoch_time(k) for k in range(60)]
            duplicates = sorted({t for t in times if times.count(t) > 1})
            r.check(times == expected, "scripted: every epoch 0..59 printed once, in order (the restarted gpsd "
                    "re-sent 28, 29)", "%d lines, duplicates %s, missing %s" % (
                        len(times), duplicates, sorted(set(expected) - set(times))[:5]))
            watch = second.clients[0].commands if second.clients else []
            r.check(any(command.startswith("?WATCH") and '"enable":false' not in command for command in watch),
                    "scripted: the WATCH is sent again on the new connection", watch)
            reconnected = (second.clients[0].connected_at - killed) if second.clients else None
            errors = lt.stderr_lines()
            waiting = [text for text in errors if "waiting for gpsd" in text]
            connected = [text for text in errors if "connected to gpsd" in text]
            r.check(len(waiting) == 1 and len(connected) == 1 and len(errors) == 2,
                    "scripted: stderr says once that gpsd went away and once that it is back", short(errors, 4))
            figures["scripted"] = "scripted: reconnected %s after the kill (gpsd down 1.0 s), %d/60 epochs, %d twice" % (
                ms(reconnected), len(set(times)), len(duplicates))
        finally:
            lt.stop()
            first.stop()
            if second:
                second.stop()

    def no_reconnect():
        server = Server(preamble() + learning_epochs(0, 9), line_delay=0.05, linger=-1)
        port = server.port
        lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % port], "2-no-reconnect")
        try:
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines), 10)
            time.sleep(0.3)  # epoch 9 is still held (it may grow) when gpsd dies
            killed = now()
            server.stop()
            code = lt.wait_exit(5)
            latency = (lt.exited_at - killed) if lt.exited_at else None
            lt.stop()
            errors = lt.stderr_lines()
            r.check(code == 69, "--no-reconnect: exit 69 when gpsd goes away", code)
            r.check(latency is not None and latency <= 1.0, "--no-reconnect: exits within 1 s", ms(latency))
            r.check(len(errors) == 1 and "lost the connection" in errors[0] and "127.0.0.1:%d" % port in errors[0],
                    "--no-reconnect: one stderr line naming the source", short(errors))
            fixes = [fix for _, fix in lt.fixes()]
            r.check([fix.get("time") for fix in fixes] == [epoch_time(k) for k in range(10)]
                    and all(fix.get("mode") == 3 for fix in fixes),
                    "--no-reconnect: every epoch accepted before the loss written, the held one too (gpsd's last "
                    "TPV of each)", "%d fixes" % len(fixes))
            figures["no-reconnect"] = "--no-reconnect: exit %s %s after the kill" % (code, ms(latency))
        finally:
            lt.stop()
            server.stop()

    def gpsfake_restart():
        log = GPSD_LOGS / "skytraq-dgps.log"
        if shutil.which("gpsfake") is None or not log.exists():
            r.note("gpsfake or %s missing: real-gpsd restart not tested" % log)
            return
        lines = log.read_text(errors="replace").splitlines(keepends=True)
        header = [line for line in lines if line.startswith("#")]
        body = [line for line in lines if not line.startswith("#")]
        starts = [index for index, line in enumerate(body) if line.startswith("$GPGGA")]
        cut = starts[35]
        workdir = Path(tempfile.mkdtemp(prefix="faults-gpsfake-"))
        (workdir / "part1.log").write_text("".join(header + body[:cut]))
        (workdir / "part2.log").write_text("".join(header + body[cut:]))
        port = free_port()
        environment = dict(os.environ, TMPDIR=str(workdir), PYTHONUNBUFFERED="1")
        watcher: Dict[str, List[Tuple[float, dict]]] = {"1": [], "2": []}

        def start_gpsfake(part: str) -> subprocess.Popen:
            release_port(port)
            process = spawn(["gpsfake", "-q", "-1", "-p", "-P", str(port), "-W", "10", "-c", "0.02",
                             "-r", '?WATCH={"json":true}', str(workdir / ("part%s.log" % part))],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=open(ctx.out / ("2-gpsfake%s.err" % part), "wb"), env=environment)

            def read():
                for raw in iter(process.stdout.readline, b""):
                    value = parse_fix(raw.decode("utf-8", "replace"))
                    if value is not None and value.get("class") == "TPV":
                        watcher[part].append((now(), value))
            threading.Thread(target=read, daemon=True).start()
            return process

        fake1 = fake2 = None
        lt = None
        try:
            fake1 = start_gpsfake("1")
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "2-gpsfake-restart")
            started = lt.wait_lines(12, 25)
            r.check(started, "gpsfake: loctrack prints the first gpsd's fixes", lt.count)
            kill_group(fake1)
            killed = now()
            before_kill = set(lt.fix_times())
            fake2 = start_gpsfake("2")
            try:
                fake2.wait(timeout=40)
            except subprocess.TimeoutExpired:
                r.note("the second gpsfake did not finish its log within 40 s")
            lt.drain(0.5, 3)
            fixes = lt.fixes()
            times = [fix.get("time") for _, fix in fixes]
            duplicates = sorted({t for t in times if times.count(t) > 1})
            connected_at = lt.wait_stderr("connected to gpsd", 0, after=killed)

            def is_fix(report):
                return report.get("mode", 0) >= 2 and "time" in report and "lat" in report and "lon" in report
            first_seen: Dict[str, float] = {}
            for stamp, report in watcher["2"]:
                if is_fix(report):
                    first_seen.setdefault(report["time"], stamp)
            margin = 0.15
            after = sorted(t for t, stamp in first_seen.items()
                           if connected_at is not None and stamp > connected_at + margin)
            printed_after_kill = {fix.get("time") for stamp, fix in fixes if stamp > killed}
            missing = [t for t in after if t not in printed_after_kill]
            r.check(connected_at is not None, "gpsfake: loctrack reconnects to the restarted gpsd",
                    "%s after the kill" % (ms(connected_at - killed) if connected_at else "never"))
            r.check(len(after) >= 10 and not missing,
                    "gpsfake: every epoch gpsd reported after the reconnection (watcher time > connect + %.2f s) "
                    "is printed" % margin, "%d of %d, missing %s" % (len(after) - len(missing), len(after),
                                                                     missing[:5]))
            r.check(not duplicates, "gpsfake: no epoch printed twice", duplicates[:5])
            gpsd1 = sorted({report["time"] for stamp, report in watcher["1"]
                            if is_fix(report) and stamp < killed - margin and lt.out and stamp > lt.out[0][0]})
            lost1 = [t for t in gpsd1 if t not in before_kill]
            r.check(not lost1, "gpsfake: before the kill, every epoch the first gpsd reported was printed",
                    "missing %s" % lost1[:5] if lost1 else "%d epochs" % len(gpsd1))
            figures["gpsfake"] = ("gpsfake: reconnected %s after SIGKILL of gpsfake+gpsd, %d/%d epochs after "
                                  "reconnection printed, %d twice" % (
                                      ms(connected_at - killed) if connected_at else "never",
                                      len(after) - len(missing), len(after), len(duplicates)))
        finally:
            kill_group(fake1)
            kill_group(fake2)
            if lt:
                lt.stop()
            shutil.rmtree(workdir, ignore_errors=True)

    parallel(scripted_restart, no_reconnect, gpsfake_restart)
    r.figure = "; ".join(figures[key] for key in ("scripted", "gpsfake", "no-reconnect") if key in figures)


# == fault 3: a peer that is not gpsd, or that closes at once ===================================

def fault_3(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}
    nmea = (b"$GPGGA,213121.000,4404.1295864,N,12118.8685453,W,2,07,1.2,1102.537,M,-20.300,M,,0000*5F\r\n")

    def once_against(kind: str, not_gpsd: Optional[bytes], chatter: Optional[float], send_banner: bool,
                     limit: Tuple[float, float], message, extra: Sequence[str] = ()):
        with Server([], not_gpsd=not_gpsd, chatter=chatter, send_banner=send_banner) as server:
            lt = Loctrack(ctx, ["once", "--timeout", "10"] + list(extra) + ["127.0.0.1:%d" % server.port],
                          "3-once-" + kind)
            code = lt.wait_exit(12)
            lt.stop()
            elapsed = (lt.exited_at or now()) - lt.started
            errors = lt.stderr_lines()
            r.check(code == 69 and limit[0] <= elapsed <= limit[1],
                    "%s: once exits 69 after %g-%g s" % (kind, limit[0], limit[1]),
                    "exit %s after %s" % (code, ms(elapsed)))
            messages = (message,) if isinstance(message, str) else message
            r.check(len(errors) == 1 and any(text in errors[0] for text in messages),
                    "%s: one clear stderr line (%s)" % (kind, " or ".join("'%s'" % text for text in messages)),
                    short(errors))
            figures[kind] = "%s: exit %s in %s" % (kind, code, ms(elapsed))

    def no_reconnect_against(kind: str, not_gpsd: bytes, chatter: Optional[float]):
        with Server([], not_gpsd=not_gpsd, chatter=chatter) as server:
            lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % server.port], "3-noreconnect-" + kind)
            code = lt.wait_exit(8)
            lt.stop()
            elapsed = (lt.exited_at or now()) - lt.started
            r.check(code == 69 and elapsed <= 3.0, "%s: stream --no-reconnect exits 69 within 3 s" % kind,
                    "exit %s after %s" % (code, ms(elapsed)))

    def stream_retries(kind: str, seconds: float, attempts: Tuple[int, int], **options):
        with Server([], **options) as server:
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "3-stream-" + kind)
            try:
                time.sleep(seconds)
                cpu_used = lt.cpu()
                count = len(server.clients)
                stamps = [client.connected_at for client in server.clients]
                gaps = [b - a for a, b in zip(stamps, stamps[1:])]
                errors = lt.stderr_lines()
                r.check(lt.running() and attempts[0] <= count <= attempts[1],
                        "%s: stream keeps retrying with backoff: %d-%d connections in %g s" % (
                            kind, attempts[0], attempts[1], seconds),
                        "%d connections, gaps %s s" % (count, ", ".join("%.2f" % gap for gap in gaps)))
                r.check(cpu_used is not None and cpu_used <= 0.05, "%s: no spin (CPU <= 50 ms in %g s)" % (kind, seconds),
                        cpu_ms(cpu_used))
                r.check(len(errors) == 1 and "waiting for gpsd" in errors[0],
                        "%s: one stderr line, no flood" % kind, short(errors))
                r.check(lt.count == 0, "%s: no output" % kind, lt.count)
                figures["stream-" + kind] = "stream vs %s: %d connections in %g s, CPU %s" % (
                    kind, count, seconds, cpu_ms(cpu_used))
            finally:
                lt.stop()

    def unresponsive_host():
        # The TCP handshake never completes (SYNs dropped): no banner within 2 s either.
        with Unresponsive() as peer:
            lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % peer.port], "3-unresponsive")
            code = lt.wait_exit(6)
            elapsed = (lt.exited_at or now()) - lt.started
            errors = lt.stderr_lines()
            lt.stop()
            r.check(code == 69 and elapsed <= 4.0,
                    "unresponsive host (connect never completes): stream --no-reconnect gives up with 69 "
                    "within 4 s (no banner within 2 s)",
                    "exit %s after %s%s, stderr %s" % (code, ms(elapsed), "" if code is not None else
                                                       " (still connecting: killed)", short(errors)))
            figures["unresponsive"] = "unresponsive host: %s" % (
                "exit %s in %s" % (code, ms(elapsed)) if code is not None else "no exit in 6 s")

    parallel(
        unresponsive_host,
        lambda: once_against("silent peer", b"", None, True, (1.8, 3.0), "is not gpsd: no VERSION banner within 2 s"),
        lambda: once_against("ssh-like banner", b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n", None, True,
                             (1.8, 3.0), "is not gpsd"),
        # An NMEA-over-TCP talker (e.g. a ser2net port): never a VERSION, but a line every 0.25 s.
        lambda: once_against("chatty NMEA talker", nmea, 0.25, True, (1.8, 3.0), "is not gpsd"),
        lambda: no_reconnect_against("chatty NMEA talker", nmea, 0.25),
        # The same talker writing as fast as loctrack reads: data is always waiting, yet no banner.
        lambda: once_against("flooding NMEA talker", nmea * 700, 0, True, (1.8, 4.0), "is not gpsd"),
        # gpsd out of client slots closes at once; loctrack's ?WATCH may already be on its way, so the close
        # reaches loctrack as a FIN or as a RST: either message is clear.
        lambda: once_against("accept-and-close", None, None, False, (0.0, 1.0),
                             ("closed before sending a VERSION", "Connection reset by peer")),
        # Each attempt waits 2 s for the banner, then 0.25-0.5 s, 0.5-1 s, …: 3-4 connections in 8 s.
        lambda: stream_retries("silent peer", 8.0, (3, 4), not_gpsd=b""),
        # Attempts at 0, 0.25-0.5, 0.75-1.5, 1.75-3.5, 3.75-7.5 s: 4-5 connections in 6 s.
        lambda: stream_retries("accept-and-close", 6.0, (4, 5), send_banner=False),
    )
    order = ["silent peer", "ssh-like banner", "chatty NMEA talker", "flooding NMEA talker", "accept-and-close",
             "unresponsive", "stream-silent peer",
             "stream-accept-and-close"]
    r.figure = "; ".join(figures[key] for key in order if key in figures)


# == fault 4: half a line, then nothing ===========================================================

def fault_4(ctx: Context, r: Result) -> None:
    lines = preamble() + epochs(0, 9, with_sky=False) + [tpv(10), tpv(11), tpv(12)]
    split_index = len(preamble()) + 10
    pause = 4.0
    with Server(lines, line_delay=0.05, pauses={split_index: pause}, split_pause=True, linger=-1) as server:
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "4-half-line")
        try:
            ok = lt.wait_for(lambda: bool(server.clients) and bool(server.clients[0].when("pause")), 10)
            r.check(ok, "the server sent half of epoch 10's TPV and paused")
            paused_at = server.clients[0].when("pause")[0] if ok else now()
            time.sleep(max(0.0, paused_at + 0.3 - now()))
            cpu0, switches0, t0 = lt.cpu(), proc_switches(lt.pid), now()
            time.sleep(max(0.0, paused_at + pause - 0.15 - now()))
            cpu1, switches1, t1 = lt.cpu(), proc_switches(lt.pid), now()
            cpu_used = (cpu1 or 0) - (cpu0 or 0)
            switches = (switches1 or 0) - (switches0 or 0)
            printed_during = [text for stamp, text in lt.out if stamp < t1]
            r.check(lt.wait_for(lambda: any(epoch_time(12) in text for _, text in lt.out), 5),
                    "the stream goes on after the pause", lt.count)
            resumed_at = server.clients[0].when("resume")[0] if server.clients[0].when("resume") else None
            completed = [stamp for stamp, text in lt.out if epoch_time(10) in text]
            latency = (completed[0] - resumed_at) if completed and resumed_at else None
            r.check(cpu_used <= 0.02, "no busy loop: CPU over %.1f s of the pause <= 20 ms" % (t1 - t0),
                    "%s, %d context switches" % (cpu_ms(cpu_used), switches))
            r.check(not any(epoch_time(10) in text for text in printed_during),
                    "the half line is not a fix before it completes", "")
            r.check(len(printed_during) == 10, "epochs 0-9 printed before the pause ended", len(printed_during))
            r.check(latency is not None and latency <= 0.3, "epoch 10 printed as soon as its line completes (<= 300 ms)",
                    ms(latency))
            times = lt.fix_times()
            r.check(times == [epoch_time(k) for k in range(13)], "every epoch printed once", len(times))
            r.figure = "CPU %s and %d context switches in %.1f s of a half line; the fix %s after the line completed" % (
                cpu_ms(cpu_used), switches, t1 - t0, ms(latency))
        finally:
            lt.stop()


# == fault 5: many reports in one TCP segment ===================================================

def fault_5(ctx: Context, r: Result) -> None:
    head = preamble()
    lines = head + epochs(0, 49, with_sky=False) + epochs(50, 99, with_sky=True)
    first_burst = len(head)
    second_burst = len(head) + 50
    pause = 3.0
    with Server(lines, burst=True, pauses={first_burst: 0.5, second_burst: pause}, linger=pause) as server:
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "5-burst")
        try:
            ok = lt.wait_for(lambda: bool(server.clients) and len(server.clients[0].when("burst")) >= 3, 10)
            r.check(ok, "the server wrote 50 TPVs in one write, then 50 TPV+SKY in one write")
            lt.wait_lines(100, pause + 1)
            bursts = server.clients[0].when("burst") if server.clients else []
            resume = server.clients[0].when("resume %d" % second_burst) if server.clients else []
            figures = []
            for label, index, sent, pause_end in (("50 TPVs (17 KB)", 50, bursts[1] if len(bursts) > 1 else None,
                                                   resume[0] if resume else None),
                                                  ("50 TPV+SKY (%d KB)" % (sum(len(x) + 1 for x in lines[second_burst:]) // 1024),
                                                   100, bursts[2] if len(bursts) > 2 else None, None)):
                got = [stamp for stamp, _ in lt.out[:index]]
                done = got[-1] if len(got) == index else None
                latency = (done - sent) if done and sent else None
                limit = (pause_end - sent) if pause_end and sent else pause
                r.check(latency is not None and latency <= 1.0 and latency < limit,
                        "%s in one write: all %d fixes printed at once (<= 1 s, before the %g s pause ends)" % (
                            label, 50, pause), ms(latency))
                figures.append("%s: last fix %s after the write" % (label, ms(latency)))
            times = lt.fix_times()
            r.check(times == [epoch_time(k) for k in range(100)], "all 100 epochs printed once, in order", len(times))
            r.figure = "; ".join(figures)
        finally:
            lt.stop()


# == fault 6: lines longer than libgps's 20 KB buffer ============================================

def fault_6(ctx: Context, r: Result) -> None:
    big_sky = sky(0, satellites=400)  # valid JSON, ~30 KB: a SKY with very many satellites
    garbage_50k = b"x" * 50_000  # over libgps's 20 KB; 25 KB arrive with no newline, then a pause
    garbage_200k = bytes((65 + (n * 7) % 26) for n in range(200_000))  # 100 KB (> 64 KiB) before any newline
    padded_tpv = tpv(15)[:-1] + b',"pad":"' + b"p" * 30_000 + b'"}'  # valid JSON TPV of ~30 KB
    good = lambda first, last: [tpv(k) for k in range(first, last + 1)]  # noqa: E731
    lines = (preamble() + good(0, 4) + [big_sky] + good(5, 7) + [garbage_50k] + good(8, 10) + [garbage_200k]
             + good(11, 14) + [padded_tpv] + good(16, 20))
    index_50k = lines.index(garbage_50k)
    index_200k = lines.index(garbage_200k)
    with Server(lines, line_delay=0.02, pauses={index_50k: 1.0, index_200k: 1.0}, split_pause=True,
                linger=-1) as server:
        lt = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % server.port], "6-long-lines")
        try:
            lt.wait_for(lambda: any(epoch_time(20) in text for _, text in lt.out), 12)
            lt.drain(0.3, 3)
            alive = lt.running()
            times = set(lt.fix_times())
            expected = [epoch_time(k) for k in range(21) if k != 15]
            missing = [t for t in expected if t not in times]
            r.check(alive and not missing, "the stream goes on: every good TPV around the long lines is a fix",
                    "missing %s" % missing if missing else "%d of %d" % (len(expected), len(expected)))
            errors = lt.stderr_lines()
            overlong = [text for text in errors if "longer than 65536" in text]
            garbage = [text for text in errors if "not a gpsd report" in text and "xxxx" in text]
            sky_reported = [text for text in errors if '"SKY"' in text]
            r.check(len(overlong) == 1, "the 200 KB line (100 KB before a pause, no newline) is detected once as "
                    "longer than 64 KiB (--verbose)", short(overlong))
            r.check(len(garbage) == 1, "the 50 KB garbage line (25 KB, pause, rest) is skipped and reported once",
                    short(garbage))
            r.check(not sky_reported, "the valid 30 KB SKY (%d bytes) is not reported as skipped" % len(big_sky),
                    short(sky_reported))
            rss = lt.status_kb("VmHWM")
            padded = epoch_time(15) in times
            r.note("a valid %d-byte TPV padded with an unknown 30 KB string key %s" % (
                len(padded_tpv), "became a fix (libgps ignores the unknown key)" if padded else
                "was not a fix: %s" % short([t for t in errors if "15.000Z" in t or "pad" in t], 1)))
            r.figure = "%d/%d good fixes around a 30 KB SKY, a 50 KB and a 200 KB line; the 200 KB line reported " \
                       "%d time(s); peak RSS %s MB" % (len(expected) - len(missing), len(expected), len(overlong),
                                                      "%.1f" % (rss / 1024) if rss else "?")
        finally:
            lt.stop()


# == fault 7: malformed input ======================================================================

def fault_7(ctx: Context, r: Result) -> None:
    """Each case is one line on its own device path /dev/caseNN, so its fate shows in stdout (device)
    and in --verbose stderr (the excerpt starts with it). Good TPVs on /dev/ttyACM0 run between them."""
    def t(k: int, device: str, body: str) -> bytes:
        return ('{"class":"TPV","device":"%s",%s' % (device, body)).encode()
    ok_fields = '"mode":3,"time":"%s","lat":38.5,"lon":-122.5,"altHAE":10.0,"eph":3.0}'
    # (name, line, expectation): "fix" a complete fix; "nofix" never a fix, reported with --verbose;
    # "nofix-quiet" never a fix, reporting optional (not malformed: a TPV that claims no fix); "note" report only.
    cases: List[Tuple[str, bytes, str]] = []

    def case(name: str, body: str, expect: str, raw: Optional[bytes] = None):
        index = len(cases)
        device = "/dev/case%02d" % index
        line = raw.replace(b"DEV", device.encode()) if raw is not None else t(index, device, body % epoch_time(1000 + index)
                                                                            if "%s" in body else body)
        cases.append((name, line, expect))

    case("truncated JSON", '"mode":3,"time":"%s","lat":38.5,"lon":-122', "nofix")
    case("truncated in a string", '"mode":3,"time":"%s","lat":38.5,"lon":-122.5,"alt', "nofix")
    case("unknown class", "", "nofix", raw=b'{"class":"FOO","device":"DEV","mode":3,"lat":38.5,"lon":-122.5}')
    case('"lat":"abc" (wrong type)', '"mode":3,"time":"%s","lat":"abc","lon":-122.5}', "nofix")
    case('"lat":[1,2] (array for a number)', '"mode":3,"time":"%s","lat":[1,2],"lon":-122.5}', "nofix")
    case('"mode":"3" (string)', '"mode":"3","time":"%s","lat":38.5,"lon":-122.5}', "nofix")
    case("lat 123 (out of range)", '"mode":3,"time":"%s","lat":123.0,"lon":-122.5}', "nofix")
    case("lon -200 (out of range)", '"mode":3,"time":"%s","lat":38.5,"lon":-200.0}', "nofix")
    case("lat NaN (bare, not JSON)", '"mode":3,"time":"%s","lat":NaN,"lon":-122.5}', "nofix")
    case('lat "NaN" (string)', '"mode":3,"time":"%s","lat":"NaN","lon":-122.5}', "nofix")
    case("lat 1e999 (infinite)", '"mode":3,"time":"%s","lat":1e999,"lon":-122.5}', "nofix")
    case("mode 9 (no such mode)", '"mode":9,"time":"%s","lat":38.5,"lon":-122.5}', "nofix")
    case("time garbage", '"mode":3,"time":"yesterday","lat":38.5,"lon":-122.5}', "nofix")
    case("no time (gpsd at start-up)", '"mode":3,"lat":38.5,"lon":-122.5}', "nofix")
    case("trailing bytes after the object", '"mode":3,"time":"%s","lat":38.5,"lon":-122.5}xyz', "nofix")
    case("not JSON at all", "", "nofix", raw=b"DEV \xff\xfe\x00garbage {{{")
    case("empty object", "", "nofix", raw=b'{}')
    case("libgps 3.22 hang input 1", "", "nofix", raw=b'{="class":"TPV","device":"DEV"')
    case("libgps 3.22 hang input 2 (nested class)", "", "nofix-quiet",
         raw=b'{"class":"TPV","device":"DEV","a":[{"class":"GST"}]}')
    case("unknown array-valued key before lat/lon", '"mode":3,"time":"%s","foo":[1,[2,{"b":3}]],"lat":38.5,'
         '"lon":-122.5,"altHAE":10.0,"eph":3.0}', "fix")
    case("unknown object-valued key", '"mode":3,"time":"%s","bar":{"x":[1]},"lat":38.5,"lon":-122.5,'
         '"altHAE":10.0,"eph":3.0}', "fix")
    case("unknown key nested 2000 deep", '"mode":3,"time":"%s","deep":' + "[" * 2000 + "]" * 2000 +
         ',"lat":38.5,"lon":-122.5,"altHAE":10.0,"eph":3.0}', "fix")
    case("control: a valid TPV", ok_fields, "fix")
    case("time in 1980 (GPS week 0)", '"mode":3,"time":"1980-01-06T00:00:00.000Z","lat":38.5,"lon":-122.5}',
         "note")
    gst = b'{"class":"GST","device":"/dev/ttyACM0","time":"2025-01-01T00:00:00.000Z","rms":2.0,"major":3.0,' \
          b'"minor":2.0,"orient":0.0,"lat":1.5,"lon":1.6,"alt":2.9}'
    lines = preamble()
    marker = 0
    for _, line, _ in cases:
        lines.append(tpv(marker))
        lines.append(line)
        marker += 1
    lines.append(gst)
    lines += [tpv(k) for k in range(marker, marker + 3)]
    last_marker = marker + 2
    with Server(lines, line_delay=0.01, linger=-1) as server:
        verbose = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % server.port], "7-malformed-verbose")
        quiet = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "7-malformed-quiet")
        try:
            for lt in (verbose, quiet):
                lt.wait_for(lambda lt=lt: any(epoch_time(last_marker) in text for _, text in lt.out), 10)
            time.sleep(1.8)  # a held one-off fix on a case's device is flushed after 1.5 s of quiet
            alive = verbose.running() and quiet.running()
            codes = [verbose.stop(), quiet.stop()]
            r.check(alive and codes == [0, 0], "no crash, no hang: both loctracks ran to the end (SIGTERM: exit 0)",
                    "exit %s" % codes)
            markers = [fix.get("time") for _, fix in verbose.fixes() if fix.get("device") == DEVICE]
            r.check(markers == [epoch_time(k) for k in range(last_marker + 1)],
                    "every good TPV between the bad lines is a fix", "%d of %d" % (len(markers), last_marker + 1))
            by_device: Dict[str, dict] = {}
            for _, fix in verbose.fixes():
                by_device.setdefault(fix.get("device", ""), fix)
            errors = verbose.stderr_lines()
            outcome_lines = []
            wrong_fix, unreported, quiet_leak = [], [], []
            for index, (name, line, expect) in enumerate(cases):
                device = "/dev/case%02d" % index
                fix = by_device.get(device)
                excerpt = line[:60].decode("utf-8", "replace")
                reported = [text for text in errors if device in text or text.endswith(": " + excerpt)]
                outcome = "FIX" if fix else "no fix"
                outcome_lines.append("%-42s -> %-6s%s" % (name, outcome, (" | reported: " + reported[0][10:90])
                                                          if reported else " | not reported"))
                if expect == "fix":
                    complete = fix is not None and fix.get("lat") == 38.5 and fix.get("lon") == -122.5 \
                        and fix.get("altHAE") == 10.0 and fix.get("eph") == 3.0
                    if not complete:
                        wrong_fix.append("%s: expected a complete fix, got %s" % (name, fix))
                elif expect.startswith("nofix"):
                    if fix is not None:
                        wrong_fix.append("%s: became a fix %s" % (name, json.dumps(fix)[:140]))
                    elif not reported and expect == "nofix":
                        unreported.append(name)
                else:
                    r.note("%s: %s%s" % (name, "accepted as a fix: " + json.dumps(fix)[:100] if fix else "no fix",
                                         " (reported: %s)" % reported[0][10:80] if reported else ""))
            for text in outcome_lines:
                r.note(text)
            r.check(not wrong_fix, "exactly the well-formed TPVs become fixes (unknown nested keys are dropped, the "
                    "rest kept); no malformed line is a fix", "; ".join(wrong_fix))
            r.check(not unreported, "--verbose reports every malformed line that is not a fix",
                    "not reported: %s" % unreported if unreported else "")
            quiet_leak = quiet.stderr_lines()
            r.check(not quiet_leak, "without --verbose nothing is printed for them", short(quiet_leak))
            gst_reports = [text for text in errors if '"GST"' in text]
            r.check(not any("not a gpsd report" in text for text in gst_reports),
                    "a report of a gpsd class loctrack does not use (GST) is not called 'not a gpsd report'",
                    short(gst_reports, 1))
            bad = [i for i, (_, _, e) in enumerate(cases) if e.startswith("nofix")]
            must_report = sum(1 for _, _, e in cases if e == "nofix")
            r.figure = ("%d malformed lines: %d became fixes, %d of %d reported with --verbose (0 without); "
                        "%d/%d good fixes; 3 valid TPVs with unknown nested keys: %d fixes" % (
                            len(bad), sum(1 for i in bad if "/dev/case%02d" % i in by_device),
                            must_report - len(unreported), must_report, len(markers), last_marker + 1,
                            sum(1 for i, (n, _, e) in enumerate(cases) if e == "fix" and "unknown" in n
                                and "/dev/case%02d" % i in by_device)))
        finally:
            verbose.stop()
            quiet.stop()


# == fault 8: device lost, receiver silent, --max-age ============================================

def fault_8(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def stream_silence_and_device_loss():
        lost = ('{"class":"DEVICE","path":"%s","activated":0}' % DEVICE).encode()
        back = preamble()[2]
        lines = preamble() + epochs(0, 9)          # 10 epochs, then the receiver goes silent for 7 s
        silent_at = len(lines)
        lines += epochs(10, 14)                     # resumes
        lost_at = len(lines)
        lines += [lost, lost]                        # gpsd reports the device lost (twice), then silence
        back_at = len(lines)
        lines += [back] + epochs(15, 19)
        with Server(lines, epoch_delay=0.1, pauses={silent_at: 7.0, lost_at + 1: 0.5, back_at: 6.5},
                    linger=-1) as server:
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "8-silence-device-lost")
            try:
                done = lt.wait_for(lambda: any(epoch_time(19) in text for _, text in lt.out), 30)
                lt.drain(0.3, 2)
                r.check(done, "the stream resumes when data returns (every time)", lt.count)
                client = server.clients[0]
                silence_start = client.when("pause %d" % silent_at)[0]
                lost_sent = client.when("pause %d" % (lost_at + 1))[0] - 0.0
                back_sent = client.when("resume %d" % back_at)[0]
                errors = lt.stderr_lines()
                with lt.cond:
                    stamped = list(lt.err)
                no_fix = [(stamp, text) for stamp, text in stamped if "no fix from gpsd" in text]
                resumed = [(stamp, text) for stamp, text in stamped if "fixes resumed" in text]
                lost_lines = [(stamp, text) for stamp, text in stamped if "lost device" in text]
                last_fix_before = max((stamp for stamp, text in lt.out if stamp < silence_start + 0.5), default=None)
                first_silence = (no_fix[0][0] - last_fix_before) if no_fix and last_fix_before else None
                r.check(first_silence is not None and 4.8 <= first_silence <= 6.0,
                        "silent receiver: 'no fix from gpsd for 5 s' about 5 s after the last fix",
                        "%s after it" % ms(first_silence))
                lost_delay = (lost_lines[0][0] - lost_sent) if lost_lines else None
                r.check(len(lost_lines) == 1 and lost_delay is not None and lost_delay <= 1.0,
                        "device lost: reported once (gpsd said it twice), within 1 s",
                        "%d lines, %s after DEVICE activated:0" % (len(lost_lines), ms(lost_delay)))
                r.check(lost_lines and DEVICE in lost_lines[0][1], "the report names the device",
                        lost_lines[0][1] if lost_lines else "")
                r.check(len(no_fix) == 2, "'no fix' once per silence (2 silences: 7 s, then 7 s after the loss)",
                        short([text for _, text in no_fix]))
                r.check(len(resumed) == 2 and all(stamp > back_sent - 8 for stamp, _ in resumed),
                        "'fixes resumed' once each time fixes return", short([text for _, text in resumed]))
                times = lt.fix_times()
                r.check(times == [epoch_time(k) for k in range(20)], "every epoch printed once", len(times))
                unexpected = [text for text in errors if not any(key in text for key in
                                                               ("no fix from gpsd", "fixes resumed", "lost device"))]
                r.check(not unexpected, "nothing else on stderr", short(unexpected))
                figures["stream"] = "device loss reported %s after gpsd's DEVICE, silence after %s; resumed each time" % (
                    ms(lost_delay), ms(first_silence))
            finally:
                lt.stop()

    def once_max_age(label: str, age: float, max_age: str, expect_code: int, limit: float):
        # gpsd's last fix is `age` seconds old by its own clock; the receiver has since gone silent
        # (the replay sends only the preamble, then nothing). ?POLL answers with that fix.
        stale = tpv(0, when=iso(time.time() - age))
        with Server(preamble(), poll_tpv=stale, linger=-1) as server:
            lt = Loctrack(ctx, ["once", "--max-age", max_age, "--timeout", "2", "127.0.0.1:%d" % server.port],
                          "8-once-" + label.replace(" ", "-"))
            code = lt.wait_exit(8)
            lt.stop()
            elapsed = (lt.exited_at or now()) - lt.started
            r.check(code == expect_code and elapsed <= limit,
                    "once --max-age %s, gpsd's fix %gs old: %s" % (
                        max_age, age, "exit 0 with it at once" if expect_code == 0 else "never printed; exit 75 at --timeout"),
                    "exit %s after %s, stdout %s" % (code, ms(elapsed), short([text for _, text in lt.out], 1)))
            figures[label] = "%s: exit %s in %s" % (label, code, ms(elapsed))

    parallel(stream_silence_and_device_loss,
             lambda: once_max_age("10 s old", 10.0, "2", 75, 2.6),
             lambda: once_max_age("1 s old", 1.0, "2", 0, 0.5),
             lambda: once_max_age("fresh, max-age 0", 0.2, "0", 75, 2.6))
    r.figure = "; ".join(figures[key] for key in ("stream", "10 s old", "1 s old", "fresh, max-age 0") if key in figures)


# == fault 9: the reader of stdout goes away, or stops reading ====================================

def flood_command(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float,
                  satellites: int = 16) -> List[str]:
    """flood_gpsd: epoch k has time BASE_TIME + k * step_ms; rate 0 floods, else paced at rate Hz."""
    if ctx.flood:
        return [ctx.flood, "-n", str(epochs_count), "-r", str(rate), "-s", str(step_ms), "-l", str(linger),
                "-k", str(satellites), "-C", "1", "-W", "30"]
    return [sys.executable, str(Path(__file__).resolve()), "--python-flood", str(epochs_count), str(rate),
            str(step_ms), str(linger), str(satellites)]


def flood_time(k: int, step_ms: int) -> str:
    return '"time":"%s"' % iso(BASE_TIME + k * step_ms / 1000)


def start_flood(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int = 16):
    process = spawn(flood_command(ctx, epochs_count, rate, step_ms, linger, satellites), stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    port_line = process.stdout.readline().decode().strip()
    if not port_line.isdigit():
        kill_group(process)
        raise RuntimeError("flood emulator did not start: %r %r" % (port_line, process.stderr.read()[:300]))
    return process, int(port_line)


def epoch_index(line: str, step_ms: int) -> Optional[int]:
    """k of a flood_gpsd epoch, from the time in its output line."""
    match = re.search(r'"time":"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z"', line)
    if not match:
        return None
    import calendar
    year, month, day, hour, minute, second, millis = (int(x) for x in match.groups())
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - BASE_TIME
    return int(round((seconds * 1000 + millis) / step_ms))


def fault_9(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def head_one():
        with Server(preamble() + epochs(0, 200), epoch_delay=0.1, linger=-1) as server:
            rc_file = ctx.out / "9-head.rc"
            script = '"$0" stream 127.0.0.1:%d | head -1; echo "${PIPESTATUS[0]}" > %s' % (server.port, rc_file)
            started = now()
            shell = spawn(["bash", "-c", script, ctx.loctrack], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
            try:
                out, err = shell.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                kill_group(shell)
                out, err = b"", b"(timeout)"
            elapsed = now() - started
            code = rc_file.read_text().strip() if rc_file.exists() else "?"
            lines = out.decode().splitlines()
            r.check(len(lines) == 1 and parse_fix(lines[0]) is not None, "| head -1: head gets one fix", lines[:2])
            r.check(code == "0", "| head -1: loctrack exits 0", code)
            r.check(not err.strip(), "| head -1: quietly (nothing on stderr)", err.decode()[:200])
            r.check(elapsed <= 2.0, "| head -1: the pipeline ends within 2 s (epochs every 0.1 s)", ms(elapsed))
            ended = server.clients[0].finished.wait(2) if server.clients else False
            commands = server.clients[0].commands if server.clients else []
            r.check(ended, "| head -1: the gpsd connection is closed", "%s; requests %s" % (
                server.clients[0].ended if server.clients else "no client", commands))
            figures["head"] = "| head -1: exit %s, pipeline %s" % (code, ms(elapsed))

    def stalled_reader():
        rate, run_for = 2000, ctx.stall_seconds + 10
        total = int(rate * run_for)
        flood, port = start_flood(ctx, total, rate, 1, linger=30)
        last_time = flood_time(total - 1, 1)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "9-stalled-reader", store=False)
        samples: List[Tuple[float, int, int]] = []
        stop_sampling = threading.Event()

        def sample():
            while not stop_sampling.is_set() and lt.running():
                rss, hwm = lt.status_kb("VmRSS"), lt.status_kb("VmHWM")
                if rss and hwm:
                    samples.append((now(), rss, hwm))
                time.sleep(0.25)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            lt.wait_lines(1, 10)
            time.sleep(3.0)
            before_rss = lt.status_kb("VmRSS") or 0
            before_count = lt.count
            lt.stall()
            stalled_at = now()
            time.sleep(ctx.stall_seconds)
            stall_hwm = lt.status_kb("VmHWM") or 0
            lt.resume()
            resumed_at = now()
            # How long until the output is live again: the epoch the flood is sending now is about
            # the one at the stall plus rate * elapsed (the output was live when the stall began).
            before_index = epoch_index(lt.last_line, 1)
            caught_up = None
            while now() < resumed_at + 10 and caught_up is None:
                index = epoch_index(lt.last_line, 1)
                live = before_index + rate * (now() - stalled_at)
                if index is not None and before_index is not None and index >= min(live - rate * 0.25, total - 1):
                    caught_up = now() - resumed_at
                time.sleep(0.02)
            got_more = lt.count > before_count + 100
            # the rest of the flood, then quiet
            lt.wait_for(lambda: last_time in lt.last_line, run_for + 10)
            lt.drain(0.5, 5)
            stop_sampling.set()
            peak_hwm = lt.status_kb("VmHWM") or 0
            errors = lt.stderr_lines()
            dropped_lines = [(stamp, text) for stamp, text in lt.err if "dropped the" in text]
            dropped = sum(int(m.group(1)) for _, text in dropped_lines
                          for m in [re.search(r"dropped the (\d+) oldest", text)] if m)
            printed = lt.count
            r.check(got_more and caught_up is not None and caught_up <= 5.0,
                    "stall: output resumes and is live again (the epoch being sent) within 5 s of the reader "
                    "reading again", "%d lines after resuming, live after %s" % (lt.count - before_count,
                                                                                  ms(caught_up)))
            r.check(all(stamp >= resumed_at - 0.5 for stamp, _ in dropped_lines) and len(dropped_lines) <= 1,
                    "stall: lines dropped (if any) are reported in one stderr line once output flows again",
                    short([text for _, text in dropped_lines]) if dropped_lines else "none dropped")
            r.check(printed + dropped == total, "stall: lines written + dropped and reported = fixes from the "
                    "emulator (%d): nothing lost silently" % total,
                    "%d written + %d dropped = %d" % (printed, dropped, printed + dropped))
            live_tail = last_time in lt.last_line
            r.check(live_tail, "stall: the last epoch gpsd sent is written (output live again)", lt.last_line[:90])
            growth_mb = (stall_hwm - before_rss) / 1024
            r.check(growth_mb <= 24, "stall: memory bounded (peak RSS during a %g s stall <= RSS before + 24 MB)"
                    % ctx.stall_seconds, "%.1f MB -> peak %.1f MB (+%.1f MB)" % (before_rss / 1024, stall_hwm / 1024,
                                                                                 growth_mb))
            unexpected = [text for text in errors if "dropped the" not in text]
            r.check(not unexpected, "stall: nothing else on stderr (gpsd kept sending: no 'no fix' report)",
                    short(unexpected))
            r.check(lt.stop() == 0, "stall: SIGTERM at the end: exit 0", lt.returncode)
            figures["stall"] = ("flood emulator, stall %g s at %d fixes/s: RSS %.1f MB before, peak %.1f MB during "
                                "(%.1f MB at the end); %d dropped and reported, %d written; live again %s after "
                                "the stall" % (ctx.stall_seconds, rate, before_rss / 1024, stall_hwm / 1024,
                                               peak_hwm / 1024, dropped, printed, ms(caught_up)))
        finally:
            stop_sampling.set()
            lt.stop()
            kill_group(flood)
            try:
                with open(ctx.out / "9-stalled-reader.rss", "w") as handle:
                    for stamp, rss, hwm in samples:
                        handle.write("%.2f %d %d\n" % (stamp - lt.started, rss, hwm))
            except OSError:
                pass

    def stalled_reader_real_gpsd():
        # The same stall with a real gpsd (gpsfake replaying a 5 Hz log as fast as it can, looped): what
        # the user gets when loctrack stops reading is up to gpsd, which drops what a client cannot take.
        log = GPSD_LOGS / "quectel-l76k-nmea.log"
        if shutil.which("gpsfake") is None or not log.exists():
            r.note("gpsfake or %s missing: stall with a real gpsd not tested" % log)
            return
        port = free_port()
        workdir = Path(tempfile.mkdtemp(prefix="faults-gpsfake-"))
        environment = dict(os.environ, TMPDIR=str(workdir), PYTHONUNBUFFERED="1")
        release_port(port)
        fake = spawn(["gpsfake", "-q", "-p", "-P", str(port), "-c", "0.0005", "-r", '?WATCH={"json":true}', str(log)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=open(ctx.out / "9-gpsfake.err", "wb"), env=environment)
        reported: List[float] = []  # when gpsd's watcher saw each new epoch (a fix TPV with a new time)

        def watch():
            previous = None
            for raw in iter(fake.stdout.readline, b""):
                if b'"class":"TPV"' in raw:
                    report = parse_fix(raw.decode("utf-8", "replace")) or {}
                    if report.get("mode", 0) >= 2 and "time" in report and "lat" in report:
                        if report["time"] != previous:
                            reported.append(now())
                        previous = report["time"]
        threading.Thread(target=watch, daemon=True).start()
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "9-stalled-reader-gpsd")
        try:
            if not lt.wait_lines(100, 20):
                r.note("real-gpsd stall: loctrack got no fixes from gpsfake (%d)" % lt.count)
                return
            control_start = now()
            time.sleep(2.0)
            stalled_at = now()
            control = (sum(1 for stamp, _ in lt.out if control_start <= stamp < stalled_at),
                       sum(1 for stamp in reported if control_start <= stamp < stalled_at))
            lt.stall()
            time.sleep(ctx.stall_gpsd_seconds)
            lt.resume()
            time.sleep(4.0)
            kill_group(fake)
            ended = now()
            lt.drain(0.5, 5)
            sent = sum(1 for stamp in reported if stalled_at <= stamp <= ended)
            written = sum(1 for stamp, _ in lt.out if stamp >= stalled_at)
            dropped = sum(int(m.group(1)) for text in lt.stderr_lines()
                          for m in [re.search(r"dropped the (\d+) oldest", text)] if m)
            silent = max(0, sent - written - dropped)  # (counts at the window's edges may differ by a few)
            false_silence = [text for text in lt.stderr_lines(before=ended) if "no fix from gpsd" in text]
            r.check(silent <= max(50, sent * 0.03),
                    "stall with a real gpsd: fixes gpsd reported during the stall are written or reported dropped "
                    "(none lost silently)", "gpsd reported %d, loctrack wrote %d, reported %d dropped: %d lost "
                    "without a word (before the stall, 2 s: gpsd %d, loctrack %d)" % (
                        sent, written, dropped, silent, control[1], control[0]))
            r.check(not false_silence, "stall with a real gpsd: no 'no fix from gpsd' report while gpsd kept sending",
                    short(false_silence))
            figures["gpsd"] = ("real gpsd (gpsfake, ~%d epochs/s with SKY), stall %g s: gpsd reported %d epochs, "
                               "%d written, %d reported dropped, %d lost silently" % (
                                   control[1] // 2, ctx.stall_gpsd_seconds, sent, written, dropped, silent))
        finally:
            kill_group(fake)
            lt.stop()
            shutil.rmtree(workdir, ignore_errors=True)

    parallel(head_one, stalled_reader, stalled_reader_real_gpsd)
    r.figure = "; ".join(figures[key] for key in ("head", "stall", "gpsd") if key in figures)


# == fault 10: SIGINT / SIGTERM =========================================================================

def timed_signal(r: Result, label: str, make: Callable[[], Tuple["Loctrack", Callable[[], None]]],
                 number: int, expect_code: int, verify: Optional[Callable[["Loctrack"], Tuple[bool, str, str]]] = None,
                 attempts: int = 3, exit_wait: float = 5.0) -> Optional[float]:
    """Starts a loctrack with make() (which returns it and a cleanup), signals it, measures signal -> exit.
    A latency over the limit is retried (a loaded box); every attempt's figure is reported."""
    figures = []
    best = None
    for attempt in range(attempts):
        lt, cleanup = make()
        try:
            sent = lt.send_signal(number)
            code = lt.wait_exit(exit_wait)
            latency = (lt.exited_at - sent) if lt.exited_at else None
            lt.stop(timeout=0.5)
            if attempt == 0 or code != expect_code:
                r.check(code == expect_code, "%s: exit %d" % (label, expect_code), code)
            if verify and attempt == 0:
                ok, what, observed = verify(lt)
                r.check(ok, "%s: %s" % (label, what), observed)
            figures.append(ms(latency))
            if latency is not None and (best is None or latency < best):
                best = latency
            if latency is not None and latency <= SIGNAL_EXIT_LIMIT:
                break
        finally:
            cleanup()
            lt.stop()
    note = "" if len(figures) == 1 else " (attempts %s, load %s)" % (", ".join(figures), load_average())
    r.check(best is not None and best <= SIGNAL_EXIT_LIMIT, "%s: exit within 200 ms of the signal" % label,
            ms(best) + note)
    return best


def fault_10(ctx: Context, r: Result) -> None:
    results: List[str] = []  # appended from several threads (list.append is atomic)

    def streaming(number: int):
        holder = {}

        def make():
            # Two TPVs per epoch: loctrack holds the newest epoch (it may still grow) when the signal comes.
            server = Server(preamble() + learning_epochs(0, 9), line_delay=0.03, linger=-1)
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "10-streaming-%s" % signal.Signals(number).name)
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines), 10)
            time.sleep(0.25)  # all sent and read; epoch 9 is still held (the quiet flush is at 1.5 s)
            holder["server"] = server
            holder["held_before"] = epoch_time(9) not in "".join(text for _, text in lt.out)
            return lt, server.stop

        def verify(lt: Loctrack):
            fixes = [fix for _, fix in lt.fixes()]
            server = holder["server"]
            commands = server.clients[0].commands if server.clients else []
            unwatched = any('"enable":false' in command for command in commands)
            ok = ([fix.get("time") for fix in fixes] == [epoch_time(k) for k in range(10)]
                  and fixes[-1].get("mode") == 3 and unwatched)
            return ok, "every accepted fix written, including the held epoch 9 (gpsd's last TPV of it), and the " \
                       "watch closed (?WATCH enable:false)", "%d fixes, epoch 9 held at the signal: %s, commands %s" % (
                           len(fixes), holder["held_before"], commands)
        best = timed_signal(r, "streaming, %s" % signal.Signals(number).name, make, number, 0, verify)
        results.append("streaming %s %s" % (signal.Signals(number).name, ms(best)))

    def waiting(number: int):
        def make():
            port = free_port()
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-waiting-%s" % signal.Signals(number).name)
            lt.wait_stderr("waiting for gpsd", 5)
            time.sleep(0.6)  # in the middle of a backoff sleep
            return lt, lambda: None
        best = timed_signal(r, "waiting for gpsd, %s" % signal.Signals(number).name, make, number, 0)
        results.append("waiting %s %s" % (signal.Signals(number).name, ms(best)))

    def gpsd_dead(number: int):
        holder = {}

        def make():
            port = free_port()
            server = Server(preamble() + learning_epochs(0, 4), port=port, line_delay=0.03, linger=-1)
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-gpsd-dead-%s" % signal.Signals(number).name)
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines), 10)
            time.sleep(0.2)
            server.stop()
            lt.wait_stderr("waiting for gpsd", 5)
            time.sleep(0.7)
            holder["lt"] = lt
            return lt, lambda: None

        def verify(lt: Loctrack):
            times = lt.fix_times()
            noticed = any("waiting for gpsd" in text for text in lt.stderr_lines())
            return times == [epoch_time(k) for k in range(5)] and noticed, \
                "loctrack had noticed gpsd die, and the fixes from before are all written", \
                "%d fixes, 'waiting for gpsd' on stderr: %s" % (len(times), noticed)
        best = timed_signal(r, "gpsd dead, %s" % signal.Signals(number).name, make, number, 0, verify)
        results.append("gpsd dead %s %s" % (signal.Signals(number).name, ms(best)))

    def connecting(number: int):
        holder = {}

        def make():
            peer = Unresponsive()
            holder["peer"] = peer
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % peer.port], "10-connecting-%s" % signal.Signals(number).name)
            time.sleep(1.0)  # blocked in connect() (gps_open)
            return lt, peer.close
        best = timed_signal(r, "connecting to an unresponsive gpsd host, %s" % signal.Signals(number).name, make,
                            number, 0, attempts=1, exit_wait=3.0)
        results.append("connecting %s %s" % (signal.Signals(number).name, ms(best) if best is not None else
                                             "no exit within 3 s"))

    def stalled_stdout():
        # stdout's reader has stopped: the first SIGTERM waits to write what is queued (every accepted
        # fix is written); a second one ends loctrack at once with 143.
        flood, port = start_flood(ctx, 20_000, 2000, 1, linger=60)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-stalled-stdout", store=False)
        try:
            lt.wait_lines(1, 5)
            lt.stall()
            time.sleep(1.0)  # the pipe is full, lines queue up in loctrack
            lt.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            still = lt.running()
            sent = lt.send_signal(signal.SIGTERM)
            code = lt.wait_exit(5)
            latency = (lt.exited_at - sent) if lt.exited_at else None
            r.check(still and code == 143 and latency is not None and latency <= SIGNAL_EXIT_LIMIT,
                    "stdout stalled: the first SIGTERM waits to write the queued fixes, a second exits 143 within "
                    "200 ms", "running after the first: %s, exit %s %s after the second" % (still, code, ms(latency)))
            results.append("second SIGTERM (stdout stalled) %s" % ms(latency))
        finally:
            lt.resume()
            lt.stop()
            kill_group(flood)

    def once(number: int, code: int):
        def make():
            server = Server(preamble(), linger=-1)  # gpsd up, no fix
            lt = Loctrack(ctx, ["once", "--timeout", "10", "127.0.0.1:%d" % server.port],
                          "10-once-%s" % signal.Signals(number).name)
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].watched, 5)
            time.sleep(0.2)
            return lt, server.stop
        best = timed_signal(r, "once waiting for a fix, %s" % signal.Signals(number).name, make, number, code)
        results.append("once %s %s" % (signal.Signals(number).name, ms(best)))

    # Four light scenarios side by side (nothing else runs meanwhile: this fault runs alone);
    # within each, one signal at a time.
    parallel(lambda: [streaming(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: [waiting(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: [gpsd_dead(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: (once(signal.SIGINT, 130), once(signal.SIGTERM, 143), connecting(signal.SIGTERM)),
             stalled_stdout)
    order = ["streaming", "waiting", "gpsd dead", "once", "second", "connecting"]
    results.sort(key=lambda text: (next(i for i, key in enumerate(order) if text.startswith(key)), text))
    r.figure = "signal -> exit: " + ", ".join(results)


# == fault 12: a million fixes ===========================================================================

def fault_12(ctx: Context, r: Result) -> None:
    total, checkpoint = 1_000_000, 100_000
    flood, port = start_flood(ctx, total, 0, 100, linger=900)
    lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "12-million", store=False)
    try:
        marks: Dict[int, Tuple[float, int, int]] = {}
        for target in (checkpoint, 500_000):
            if lt.wait_lines(target, 600):
                marks[target] = (now() - lt.started, lt.status_kb("VmHWM") or 0, lt.status_kb("VmRSS") or 0)
        last = flood_time(total - 1, 100)
        lt.wait_for(lambda: last in lt.last_line, 600)
        lt.drain(0.5, 5)
        marks[total] = (now() - lt.started, lt.status_kb("VmHWM") or 0, lt.status_kb("VmRSS") or 0)
        cpu_used = lt.cpu()
        errors = lt.stderr_lines()
        r.check(lt.count == total and last in lt.last_line, "all %d fixes written, the last one last" % total,
                "%d lines" % lt.count)
        r.check(not [text for text in errors if "dropped" in text], "none dropped (this reader keeps up)",
                short(errors))
        hwm_100k = marks.get(checkpoint, (0, 0, 0))[1] / 1024
        hwm_end = marks[total][1] / 1024
        r.check(hwm_end <= hwm_100k * 1.10 + 2, "memory flat: peak RSS at 1,000,000 fixes <= peak at 100,000 + 10 % "
                "+ 2 MB", "%.1f MB at 100k, %.1f MB at 500k, %.1f MB at 1M" % (
                    hwm_100k, marks.get(500_000, (0, 0, 0))[1] / 1024, hwm_end))
        r.check(hwm_end <= 64, "memory bounded: peak RSS <= 64 MB", "%.1f MB" % hwm_end)
        r.figure = "flood: peak RSS %.1f MB at 100k fixes (%.1f s), %.1f MB at 500k, %.1f MB at 1M (%.1f s, CPU " \
                   "%.1f s)" % (hwm_100k, marks.get(checkpoint, (0,))[0], marks.get(500_000, (0, 0))[1] / 1024,
                                hwm_end, marks[total][0], cpu_used or 0)
    finally:
        lt.stop()
        kill_group(flood)
    # The same at a pace loctrack keeps up with: does memory stay flat when nothing backs up?
    rate, paced_total = 10_000, 300_000
    flood, port = start_flood(ctx, paced_total, rate, 1, linger=900)
    lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "12-paced", store=False)
    try:
        marks = {}
        for target in (paced_total // 10, paced_total):
            if lt.wait_lines(target, 120):
                marks[target] = lt.status_kb("VmHWM") or 0
        first, end = marks.get(paced_total // 10, 0) / 1024, marks.get(paced_total, 0) / 1024
        r.check(lt.count == paced_total and end <= first * 1.10 + 2,
                "paced at %d fixes/s (no backlog): peak RSS flat from %dk to %dk fixes" % (
                    rate, paced_total // 10000, paced_total // 1000),
                "%.1f MB -> %.1f MB, %d lines" % (first, end, lt.count))
        r.figure += "; paced %d/s: %.1f MB at %dk, %.1f MB at %dk" % (rate, first, paced_total // 10000, end,
                                                                      paced_total // 1000)
    finally:
        lt.stop()
        kill_group(flood)


# == the Python flood (when Benchmarks/emulator/flood_gpsd.c cannot be built) ============================

def python_flood(epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int) -> int:
    """A stand-in for flood_gpsd: the same banner, preamble and epoch times, TPV + SKY per epoch."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    print(listener.getsockname()[1], flush=True)
    connection, _ = listener.accept()
    connection.sendall(b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\r\n')
    request = b""
    while b"?WATCH" not in request or b";" not in request.split(b"?WATCH", 1)[1]:
        chunk = connection.recv(4096)
        if not chunk:
            return 1
        request += chunk
    connection.sendall(b"".join(line + b"\r\n" for line in preamble()))
    sky_line = sky(0, satellites) + b"\r\n"
    started = time.monotonic()
    batch = []
    for k in range(epochs_count):
        batch.append(tpv(k, step=step_ms / 1000) + b"\r\n" + sky_line)
        if rate > 0:
            due = started + k / rate
            delay = due - time.monotonic()
            if delay > 0:
                connection.sendall(b"".join(batch))
                batch = []
                time.sleep(delay)
        elif len(batch) >= 200:
            connection.sendall(b"".join(batch))
            batch = []
    if batch:
        connection.sendall(b"".join(batch))
    time.sleep(linger)
    connection.close()
    return 0


# == runner ==============================================================================================

FAULTS = [
    # (id, function, title, expectation, runs alone)
    ("10", fault_10, "SIGINT/SIGTERM while streaming, waiting, gpsd dead",
     "accepted fixes written, watch closed, exit 0 (once: 130/143) within 200 ms", True),
    ("5", fault_5, "many reports in one TCP segment",
     "all 50 fixes of one write printed at once, before a 3 s pause ends", True),
    ("1", fault_1, "gpsd not running at start",
     "once: 69 in <=1 s, one line; stream: one line, 0.5->30 s jittered backoff, no spin, prints when gpsd appears",
     False),
    ("2", fault_2, "gpsd killed and restarted mid-stream",
     "reconnect + re-WATCH, every later epoch printed, none twice; --no-reconnect: 69", False),
    ("9", fault_9, "reader of stdout gone (| head -1) or stalled",
     "head: exit 0 quietly; stall: memory bounded, nothing lost silently (drops reported once), no false "
     "'no fix', live again after", False),
    ("8", fault_8, "device lost / receiver silent; once --max-age",
     "reported once within seconds, resumes; once never returns a fix older than --max-age", False),
    ("3", fault_3, "peer not gpsd / accept-and-close",
     "clear error (69) or retry with backoff; never a hang or a spin", False),
    ("4", fault_4, "half a line, then nothing",
     "~0 CPU while waiting; the fix printed when its line completes", False),
    ("6", fault_6, "lines over libgps's 20 KB buffer / over 64 KiB",
     "detected and skipped, the stream goes on", False),
    ("7", fault_7, "malformed input",
     "never a fix, never a crash; reported with --verbose only", False),
    ("12", fault_12, "1,000,000 fixes from the flood emulator",
     "peak RSS flat between 100k and 1M fixes", True),
]
DEFAULT = [fault_id for fault_id, *_ in FAULTS if fault_id != "12"]


def run_fault(ctx: Context, entry, sink: Callable[[Result], None]) -> Result:
    fault_id, function, title, expectation, _ = entry
    result = Result(fault_id, title, expectation)
    started = now()
    try:
        function(ctx, result)
    except Exception as error:  # noqa: BLE001 - reported as a failure of the suite
        result.error = "%s: %s" % (type(error).__name__, error)
        with open(ctx.out / ("%s.traceback" % fault_id), "w") as handle:
            traceback.print_exc(file=handle)
    result.seconds = now() - started
    sink(result)
    return result


def wrap(text: str, width: int) -> List[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    return lines or [""]


def print_table(results: List[Result], file=sys.stdout) -> None:
    columns = (("fault", 5), ("expectation", 46), ("figure", 64), ("result", 6))
    rows = []
    for result in sorted(results, key=lambda item: int(item.fault)):
        cells = [wrap(result.fault, 5), wrap(result.expectation, 46), wrap(result.figure or "-", 64),
                 ["PASS" if result.passed else "FAIL"]]
        rows.append(cells)
    rule = "+" + "+".join("-" * (width + 2) for _, width in columns) + "+"
    print(rule, file=file)
    print("|" + "|".join(" %-*s " % (width, name) for name, width in columns) + "|", file=file)
    print(rule.replace("-", "="), file=file)
    for cells in rows:
        height = max(len(cell) for cell in cells)
        for line in range(height):
            print("|" + "|".join(" %-*s " % (width, cell[line] if line < len(cell) else "")
                                 for cell, (_, width) in zip(cells, columns)) + "|", file=file)
        print(rule, file=file)


def markdown_table(results: List[Result]) -> str:
    lines = ["| fault | expectation | figure | result |", "|---|---|---|---|"]
    for result in sorted(results, key=lambda item: int(item.fault)):
        lines.append("| %s | %s | %s | %s |" % (result.fault, result.expectation, (result.figure or "-").replace("|", "\\|"),
                                               "PASS" if result.passed else "**FAIL**"))
    return "\n".join(lines) + "\n"


def find_flood(explicit: Optional[str]) -> Optional[str]:
    for candidate in (explicit, os.environ.get("FLOOD_GPSD"), str(ROOT / ".build-faults" / "flood_gpsd"),
                      str(ROOT / "Benchmarks" / "bin" / "flood_gpsd")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--python-flood"]:
        return python_flood(int(argv[1]), float(argv[2]), int(argv[3]), float(argv[4]), int(argv[5]))
    parser = argparse.ArgumentParser(description="loctrack's fault-injection suite (docs/faults.md).")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(ROOT / ".build-faults/release/loctrack")))
    parser.add_argument("--flood", help="flood_gpsd binary (default: .build-faults/flood_gpsd, then "
                        "Benchmarks/bin/flood_gpsd; else a Python flood)")
    parser.add_argument("--only", help="comma-separated faults, e.g. 1,4,10 (12 is the long one)")
    parser.add_argument("--long", action="store_true", help="also run fault 12 (a million fixes)")
    parser.add_argument("--jobs", type=int, default=4, help="faults run side by side (default 4); the "
                        "timing-sensitive ones always run alone")
    parser.add_argument("--stall", type=float, default=20.0, help="seconds the reader of stdout stops reading "
                        "in fault 9 (default 20; the issue's minute, shortened)")
    parser.add_argument("--stall-gpsd", type=float, default=40.0, help="the same with a real gpsd (default 40: "
                        "the socket buffers hold about 18 s of its output, so a shorter stall cannot show what "
                        "gpsd does then)")
    parser.add_argument("--out", default=str(ROOT / "out" / "faults"), help="artifacts directory")
    args = parser.parse_args(argv)

    # A signal handler that is not SIG_IGN, so loctrack children start with SIGINT at its default.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.access(args.loctrack, os.X_OK):
        print("faults: no loctrack binary at %s (make faults builds it)" % args.loctrack, file=sys.stderr)
        return 2
    selected = args.only.split(",") if args.only else DEFAULT + (["12"] if args.long else [])
    unknown = [fault for fault in selected if fault not in {entry[0] for entry in FAULTS}]
    if unknown:
        print("faults: unknown fault(s) %s; known: %s" % (unknown, ", ".join(entry[0] for entry in FAULTS)),
              file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    flood = find_flood(args.flood)
    ctx = Context(args.loctrack, flood, out, args.stall, args.stall_gpsd)
    print("faults: loctrack %s; flood %s; load %s; artifacts in %s" % (
        args.loctrack, flood or "python (flood_gpsd not built)", load_average(), out), flush=True)
    started = now()
    results: List[Result] = []
    print_lock = threading.Lock()

    def sink(result: Result) -> None:
        with print_lock:
            results.append(result)
            print(result.report(), flush=True)

    entries = [entry for entry in FAULTS if entry[0] in selected]
    try:
        for entry in [e for e in entries if e[4]]:
            run_fault(ctx, entry, sink)
        pending = [e for e in entries if not e[4]]
        running: List[threading.Thread] = []
        while pending or running:
            running = [thread for thread in running if thread.is_alive()]
            while pending and len(running) < max(1, args.jobs):
                entry = pending.pop(0)
                thread = threading.Thread(target=run_fault, args=(ctx, entry, sink), daemon=True)
                thread.start()
                running.append(thread)
            time.sleep(0.1)
    except KeyboardInterrupt:
        print("faults: interrupted", file=sys.stderr)
        cleanup_all()
        return 130
    finally:
        cleanup_all()
    total = now() - started
    print()
    print("loctrack fault injection: %d faults, %d passed, %d failed, %.0f s (load %s)" % (
        len(results), sum(r.passed for r in results), sum(not r.passed for r in results), total, load_average()))
    print_table(results)
    try:
        with open(out / "results.md", "w") as handle:
            handle.write("# make faults: %s\n\n%s\nTotal %.0f s, load %s.\n\n" % (
                time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), markdown_table(results), total, load_average()))
            for result in sorted(results, key=lambda item: int(item.fault)):
                handle.write("```\n%s\n```\n" % result.report())
    except OSError:
        pass
    return 0 if results and all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
