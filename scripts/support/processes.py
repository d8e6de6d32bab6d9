"""Child processes and loopback ports for the test scripts.

Every child starts in a session of its own, so killing its process group also ends
what it started (gpsfake's gpsd, the commands of a shell pipeline), and is remembered,
so that whatever is still running when the script ends is killed rather than left
behind holding a port.
"""

from __future__ import annotations

import atexit
import os
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .procfs import listening

_live: List[subprocess.Popen] = []
_live_lock = threading.Lock()


def spawn(command: Sequence[str], **options) -> subprocess.Popen:
    """Popen in a session of its own (so killpg reaches everything it starts), remembered for cleanup_all()."""
    process = subprocess.Popen(list(command), start_new_session=True, **options)
    with _live_lock:
        # Forget the ones already reaped, so a long run does not keep every Popen it ever made.
        _live[:] = [known for known in _live if known.returncode is None]
        _live.append(process)
    return process


def kill_group(process: Optional[subprocess.Popen]) -> None:
    """SIGKILLs the child's whole process group (gpsfake can hang on SIGTERM) and reaps it."""
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


def terminate(process: subprocess.Popen, timeout: float = 10.0) -> Optional[int]:
    """SIGTERM, the clean exit the program is asked for; its exit code, or None if it was still
    running after timeout seconds and had to be killed (its whole group, as kill_group does)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(process)
            return None
    return process.returncode


def cleanup_all() -> None:
    """Kills every child spawn() started that is still running (also run at exit)."""
    with _live_lock:
        processes = list(_live)
    for process in processes:
        if process.poll() is None:
            kill_group(process)


atexit.register(cleanup_all)


def cleanup_on_signals() -> None:
    """SIGTERM and SIGINT end every child spawn() started, then the program (exit 128 + signal)."""
    def on_signal(number, _frame):
        cleanup_all()
        sys.exit(128 + number)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def wait_rusage(process: subprocess.Popen, timeout: float):
    """wait4 with a timeout (via a pidfd): (exit code, rusage, monotonic ns at exit), or None.
    wait4's rusage is the child's own (plus any children it waited for)."""
    descriptor = os.pidfd_open(process.pid)
    try:
        ready, _, _ = select.select([descriptor], [], [], timeout)
        return reap(process) if ready else None
    finally:
        os.close(descriptor)


def reap(process: subprocess.Popen):
    """wait4 on a child known to have exited: (exit code, rusage, monotonic ns)."""
    _, status, usage = os.wait4(process.pid, 0)
    end = time.monotonic_ns()
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage, end


# -- loopback ports ----------------------------------------------------------------------------

_port_lock = threading.Lock()
_ports_given: Set[int] = set()
_reservations: Dict[int, socket.socket] = {}
_claims: Dict[int, socket.socket] = {}


def _claim(port: int) -> Optional[socket.socket]:
    """The port claimed among the test tools running side by side (CI runs the suites at once):
    an abstract Unix socket named after it, which the kernel lets one process at a time bind and
    frees when that process ends, however it ends. The reservation's TCP socket alone cannot do
    this: two processes may both bind a port with SO_REUSEADDR while neither listens. None when
    another process holds it."""
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        claim.bind("\0loctrack-test-port-%d" % port)
    except OSError:
        claim.close()
        return None
    return claim


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
    set SO_REUSEADDR: call release_port() just before starting gpsfake on it.

    The port is also claimed (_claim) for the rest of the run, so that no other test tool running
    at the same time picks it, even after the reservation ended and while its program has it."""
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
            claim = _claim(port)
            if claim is None:
                holder.close()
                continue
            _ports_given.add(port)
            _reservations[port] = holder
            _claims[port] = claim
            return port
    raise RuntimeError("no free port")


def release_port(port: int) -> None:
    """Ends free_port()'s reservation (for a program that binds without SO_REUSEADDR)."""
    with _port_lock:
        holder = _reservations.pop(port, None)
    if holder is not None:
        holder.close()


def wait_listening(port: int, timeout: float) -> bool:
    """Whether something listens on loopback port within timeout seconds, read from /proc: no
    connection is made, so a gpsd that must stay without clients (a cold `once`) sees none."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if listening(port):
            return True
        time.sleep(0.02)
    return False


def wait_port(port: int, timeout: float) -> bool:
    """Whether something accepts connections on loopback port within timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False
