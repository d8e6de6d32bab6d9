"""`loctrack serve` as a test or the benchmark runs it: one process on a free loopback port (or the
address given), stdout and stderr in files, its CPU time and memory read from /proc.

`loctrack serve` execs loctrack-serve, found next to its own binary (docs/http.md, the brief of
issue 20): the process keeps its pid, so /proc/PID is the server's own.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import http_raw
from .procfs import listening, proc_cpu, proc_status_kb
from .processes import free_port, kill_group, release_port, spawn, terminate


def serve_binary(loctrack: str) -> Optional[str]:
    """Where `loctrack serve` finds loctrack-serve ($LOCTRACK_SERVE, next to loctrack, or
    ../lib/loctrack/), or None when it is nowhere (the serve suite and the bench then fail)."""
    candidates = [os.environ.get("LOCTRACK_SERVE", "")]
    here = os.path.dirname(os.path.abspath(loctrack))
    candidates += [os.path.join(here, "loctrack-serve"), os.path.join(here, "..", "lib", "loctrack", "loctrack-serve")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


class Serve:
    """loctrack serve ARGS --listen HOST:PORT; started and listening when the constructor returns.

    `listen`: the host of --listen (127.0.0.1 unless given); the port is a free one unless `port`
    is given. `args`: everything else (SOURCE last, as the user writes it)."""

    def __init__(self, loctrack: str, args: Sequence[str], workdir: Path, name: str = "serve",
                 listen_host: str = "127.0.0.1", port: Optional[int] = None, state_home: Optional[Path] = None,
                 environment: Optional[Dict[str, str]] = None, start_timeout: float = 20.0):
        self.port = port if port is not None else free_port()
        release_port(self.port)
        self.host = "127.0.0.1" if listen_host in ("0.0.0.0", "::", "[::]") else listen_host
        listen = "%s:%d" % (listen_host, self.port)
        self.args = [loctrack, "serve", "--listen", listen] + list(args)
        workdir.mkdir(parents=True, exist_ok=True)
        self.stdout_path = workdir / (name + ".out")
        self.stderr_path = workdir / (name + ".err")
        env = dict(os.environ)
        if state_home is not None:
            env["XDG_STATE_HOME"] = str(state_home)
        env.update(environment or {})
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = spawn(self.args, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        self.started = time.monotonic()
        deadline = self.started + start_timeout
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                code = self.process.poll()
                self.stop()
                raise RuntimeError("%s did not listen on %s within %g s (%s): %s" % (
                    " ".join(self.args), listen, start_timeout,
                    "exit %s" % code if code is not None else "still running", self.stderr()[-400:]))
            time.sleep(0.02)
        self.listening_after = time.monotonic() - self.started

    @property
    def pid(self) -> int:
        return self.process.pid

    def url(self, path: str = "/") -> str:
        return "http://%s:%d%s" % (self.host, self.port, path)

    def get(self, path: str, headers: Optional[Dict[str, str]] = None, timeout: float = 10.0,
            method: str = "GET") -> http_raw.Response:
        return http_raw.get(self.port, path, headers, timeout, method=method, host=self.host)

    def running(self) -> bool:
        return self.process.poll() is None

    def rss_kb(self) -> Optional[int]:
        return proc_status_kb(self.pid, "VmRSS")

    def hwm_kb(self) -> Optional[int]:
        return proc_status_kb(self.pid, "VmHWM")

    def cpu(self) -> Optional[float]:
        return proc_cpu(self.pid)

    def threads(self) -> Optional[int]:
        return proc_status_kb(self.pid, "Threads")

    def open_files(self) -> Optional[int]:
        try:
            return len(os.listdir("/proc/%d/fd" % self.pid))
        except OSError:
            return None

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def terminate(self, timeout: float = 10.0) -> Optional[int]:
        """SIGTERM; the exit code, or None if it had to be killed."""
        return terminate(self.process, timeout)

    def stop(self) -> None:
        kill_group(self.process)


def run_once(loctrack: str, args: Sequence[str], timeout: float = 10.0,
             environment: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """`loctrack serve ARGS` expected to end by itself (a refused start): waited for, output captured.
    A run still going after timeout is killed; its returncode is then None."""
    env = dict(os.environ)
    env.update(environment or {})
    process = spawn([loctrack, "serve"] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, env=env)
    try:
        out, err = process.communicate(timeout=timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        kill_group(process)
        out, err = process.communicate()
        code = None
    return subprocess.CompletedProcess(process.args, code, out.decode("utf-8", "replace"),
                                       err.decode("utf-8", "replace"))


def sample_memory(serve: Serve, samples: List[int]) -> None:
    """Appends the server's VmRSS (kB) to samples (the callers' sampling loops)."""
    value = serve.rss_kb()
    if value is not None:
        samples.append(value)
