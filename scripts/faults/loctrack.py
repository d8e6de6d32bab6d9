"""A loctrack process under test: its stdout and stderr lines timestamped as they arrive, /proc
figures, signals, and a reader of stdout that can stop reading."""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import threading
import termios
import time
from typing import Callable, List, Optional, Sequence, Tuple

from support.processes import kill_group, spawn
from support.procfs import proc_cpu, proc_status_kb, sockets_to, unread_bytes

from .harness import Context, now
from .reports import parse_fix


# Seconds a loctrack under test may live (fault 12's million fixes take about a minute); then it
# is killed, and a line in its stderr says so.
LIFETIME = 1200


class Loctrack:
    """One loctrack process: stdout lines and stderr lines timestamped as they arrive.

    stdout is read by a thread that can be paused (`stall()`), for a reader of
    stdout that stops reading. With store=False only a count and the last line are
    kept (a million fixes)."""

    def __init__(self, ctx: Context, args: Sequence[str], name: str, store: bool = True):
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
        try:
            code = self.process.wait(timeout=LIFETIME)
        except subprocess.TimeoutExpired:
            with self.cond:
                self.err.append((now(), "faults: loctrack %s still running after %d s (the harness's limit): "
                                        "killed" % (self.name, LIFETIME)))
            kill_group(self.process)
            code = self.process.wait(timeout=10)
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

    def stdout_unread(self) -> int:
        """The bytes waiting in its stdout pipe, unread."""
        try:
            return struct.unpack("i", fcntl.ioctl(self.process.stdout.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
        except (OSError, ValueError):
            return 0

    def blocked_writing(self) -> bool:
        """Whether one of its threads sleeps in a write to a full pipe (its wchan, in /proc)."""
        try:
            tasks = os.listdir("/proc/%d/task" % self.pid)
        except OSError:
            return False
        for task in tasks:
            try:
                with open("/proc/%d/task/%s/wchan" % (self.pid, task)) as handle:
                    if handle.read().endswith("pipe_write"):  # pipe_write, anon_pipe_write (newer kernels)
                        return True
            except OSError:
                continue
        return False

    def has_read_all_from(self, port: int) -> bool:
        """Whether it is connected to loopback port and the kernel holds nothing it has not read."""
        rows = sockets_to(self.pid, port)
        return bool(rows) and all(unread_bytes(row) == 0 for row in rows)

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
        self.resume()  # a stalled reader of stdout reads again, to its end
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
