"""What every fault uses: the run's settings, a scripted gpsd in this process, a host that never
answers, gpsfake with a real gpsd, the result of a fault with its checks, and the figures' format."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from support.scripted_gpsd import FakeGpsd
from support.processes import release_port, spawn
from support.procfs import tcp_sockets
from support.waiting import wait_until
from support.results import Result  # noqa: F401 (the faults import it from here)

from .reports import parse_fix

ROOT = Path(__file__).resolve().parent.parent.parent
GPSD_LOGS = Path(os.environ.get("GPSD_LOGS", str(ROOT.parent / "shared" / "gpsd-logs")))


def now() -> float:
    return time.monotonic()


def load_average() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


class Context:
    """The run's settings: the binaries, the artifacts folder, how long the stalls last, the seed
    of random choices (None: a random one, which the fault reports)."""

    def __init__(self, loctrack: str, flood: str, out: Path, stall: float, stall_gpsd: float = 40.0,
                 seed: Optional[int] = None):
        self.loctrack = loctrack
        self.flood = flood
        self.out = out
        self.stall_seconds = stall
        self.stall_gpsd_seconds = stall_gpsd
        self.seed = seed


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
        # Full once a filler's SYN goes unanswered (SYN_SENT, "02").
        ports = {filler.getsockname()[1] for filler in self.fillers}
        wait_until(lambda: any(int(row[1].rsplit(":", 1)[1], 16) in ports and row[2].endswith(":%04X" % self.port)
                               and row[3] == "02" for row in tcp_sockets()), 10, 0.02)

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

def parallel(*calls: Callable[[], None], timeout: float = 600.0) -> None:
    """Runs the calls on threads and waits for all, at most timeout seconds (then RuntimeError);
    the first exception is re-raised."""
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
    deadline = now() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - now()))
    if errors:
        raise errors[0]
    late = [thread.name for thread in threads if thread.is_alive()]
    if late:
        raise RuntimeError("%d of %d parallel parts still running after %.0f s" % (len(late), len(threads), timeout))


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


# -- gpsfake: a real gpsd fed from a recorded log -----------------------------------------------------

def gpsfake_log(r: Result, name: str, what: str) -> Optional[Path]:
    """GPSD_LOGS/name when it and gpsfake are there; else None, and a failed check: `what` could not
    be tested (a part of a fault is never skipped)."""
    log = GPSD_LOGS / name
    if shutil.which("gpsfake") is None or not log.exists():
        r.check(False, "%s: needs gpsfake (make deps) and %s" % (what, log))
        return None
    return log


def start_gpsfake(ctx: Context, port: int, log: Path, options: Sequence[str], workdir: Path, err_name: str,
                  on_tpv: Callable[[float, dict], None]) -> subprocess.Popen:
    """gpsfake replaying log into a real gpsd on loopback port (its control socket in workdir, its
    stderr in out/err_name). Each TPV gpsfake's own watcher (-r ?WATCH) gets goes to on_tpv with its
    arrival time: what gpsd reported, and when, to compare loctrack's output with."""
    release_port(port)  # gpsd binds without SO_REUSEADDR
    environment = dict(os.environ, TMPDIR=str(workdir), PYTHONUNBUFFERED="1")
    with open(ctx.out / err_name, "wb") as errors:
        process = spawn(["gpsfake", "-q", "-p", "-P", str(port)] + list(options)
                        + ["-r", '?WATCH={"json":true}', str(log)],
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, env=environment)

    def watch():
        for raw in iter(process.stdout.readline, b""):
            if b'"class":"TPV"' not in raw:  # SKY lines are most of the bytes: no need to parse them
                continue
            report = parse_fix(raw.decode("utf-8", "replace"))
            if report is not None:
                on_tpv(now(), report)
    threading.Thread(target=watch, daemon=True).start()
    return process
