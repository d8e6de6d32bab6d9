"""Child processes, and whether a port listens. Every child runs in a session of its own and is remembered,
so that an interrupted run (or an exception) never leaves an emulator or gpsd behind."""

from __future__ import annotations

import atexit
import os
import select
import signal
import subprocess
import sys
import time

_children: list[subprocess.Popen] = []
KILL_WAIT = 10.0  # seconds a SIGKILLed child has to be reaped


def spawn(argv, **kwargs) -> subprocess.Popen:
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
            try:
                proc.wait(KILL_WAIT)
            except subprocess.TimeoutExpired:  # in uninterruptible sleep: leave it, say so
                print(f"run.py: pid {proc.pid} ({proc.args[0]}) still there {KILL_WAIT:g} s after SIGKILL",
                      file=sys.stderr)
    if proc in _children:
        _children.remove(proc)


def stop_all() -> None:
    for proc in list(_children):
        stop(proc, grace=0.5)


def install_cleanup() -> None:
    atexit.register(stop_all)

    def on_signal(signum, _frame):
        stop_all()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def wait_rusage(proc: subprocess.Popen, timeout: float):
    """wait4 with a timeout (via a pidfd): (exit code, rusage, monotonic ns at exit), or None.
    wait4's rusage is the child's own (plus any children it waited for)."""
    fd = os.pidfd_open(proc.pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        return reap(proc)
    finally:
        os.close(fd)


def reap(proc: subprocess.Popen):
    """wait4 on a child known to have exited: (exit code, rusage, monotonic ns)."""
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.monotonic_ns()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc in _children:
        _children.remove(proc)
    return proc.returncode, usage, end


def listening(port: int) -> bool:
    """Whether something listens on TCP `port`, read from /proc/net/tcp{,6}: no connection is
    made, so a gpsd that must stay without clients (cold `once`) sees none."""
    wanted = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[1].endswith(wanted) and fields[3] == "0A":  # 0A: LISTEN
                        return True
        except OSError:
            continue
    return False


def wait_listening(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if listening(port):
            return True
        time.sleep(0.02)
    return False
