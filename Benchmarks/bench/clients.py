"""The clients compared, and how each is started and read.

  loctrack               `loctrack stream --format json` / `loctrack once`
  C client               Benchmarks/c-client/gpsclient.c: libgps as it is meant to be used
  Swift port             Benchmarks/swift-client/: the C client ported to Swift line for line
                         (gps_waiting / gps_read on one thread, vprintf through withVaList)
  gpspipe -w             gpsd's raw copier: no parsing, the cost of the socket and the pipe
  gpspipe -w | jq -c .   the shell pipeline people write: every report parsed and printed by jq
  python gps             Benchmarks/python-client/gps_client.py on gpsd's own Python module

The first five print gpsd-style JSON lines (gpspipe and jq: every report, TPV among
them); the Python client prints "TIME LAT LON" per fix.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from .findings import left_out, log

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_CLIENT = os.path.join(HERE, "python-client", "gps_client.py")

LOCTRACK, C_CLIENT, SWIFT_PORT, GPSPIPE, JQ, PYTHON = ("loctrack", "C client", "Swift port", "gpspipe -w",
                                                       "gpspipe -w | jq -c .", "python gps")
ALL = (LOCTRACK, C_CLIENT, SWIFT_PORT, GPSPIPE, JQ, PYTHON)
TPV_START = b'{"class":"TPV"'
TIME_RE = re.compile(rb'"time":"([^"]+)"')


@dataclass
class Client:
    name: str
    stream: list = field(default_factory=list)  # pipeline stages; "{source}" stands for HOST:PORT
    once: list | None = None                    # argv of a first-fix run, if the client has one
    json_lines: bool = True                     # gpsd-style JSON lines, else "TIME LAT LON"
    exit_code: int | None = None                # expected exit status when gpsd closes

    def stream_stages(self, source: str):
        return [[arg.replace("{source}", source) for arg in argv] for argv in self.stream]

    def once_argv(self, source: str):
        return [arg.replace("{source}", source) for arg in self.once]

    @property
    def file_name(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    def count_fixes(self, data: bytes) -> int:
        return data.count(TPV_START) if self.json_lines else data.count(b"\n")

    def fix_time(self, line: bytes):
        """The fix time text of one output line, or None when the line is not a fix."""
        if not self.json_lines:
            return line.split(b" ", 1)[0].decode() or None
        if not line.startswith(TPV_START):
            return None
        match = TIME_RE.search(line)
        return match.group(1).decode() if match else None


def python_with_gps():
    """The interpreter that has gpsd's `gps` module (Debian's python3-gps installs it for
    /usr/bin/python3, which need not be the python3 first on PATH)."""
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and os.access(candidate, os.X_OK):
            try:
                probe = subprocess.run([candidate, "-c", "import gps"], capture_output=True, timeout=30)
            except subprocess.TimeoutExpired:
                continue
            if probe.returncode == 0:
                return candidate
    return None


def make_clients(opts) -> dict:
    """{name: Client} for every client that can run here; a missing optional one is a note."""
    clients = {
        LOCTRACK: Client(LOCTRACK, [[opts.loctrack, "stream", "--format", "json", "--no-reconnect", "{source}"]],
                         [opts.loctrack, "once", "--format", "json", "--max-age", str(opts.once_max_age),
                          "{source}"], exit_code=69),
        C_CLIENT: Client(C_CLIENT, [[opts.c_client, "{source}"]], [opts.c_client, "--once", "{source}"],
                         exit_code=0),
        SWIFT_PORT: Client(SWIFT_PORT, [[opts.swift_client, "{source}"]], [opts.swift_client, "--once", "{source}"],
                           exit_code=0),
        # gpspipe prints VERSION, DEVICES and WATCH, then the first report: 4 lines.
        GPSPIPE: Client(GPSPIPE, [["gpspipe", "-w", "{source}"]], ["gpspipe", "-w", "-n", "4", "{source}"]),
    }
    if shutil.which("jq"):
        clients[JQ] = Client(JQ, [["gpspipe", "-w", "{source}"], ["jq", "-c", "."]], exit_code=None)
    else:
        left_out("jq is not installed: the `gpspipe -w | jq -c .` client is left out")
    python = opts.python or python_with_gps()
    if python:
        clients[PYTHON] = Client(PYTHON, [[python, PYTHON_CLIENT, "{source}"]], [python, PYTHON_CLIENT, "--once",
                                                                                 "{source}"],
                                 json_lines=False, exit_code=0)
    else:
        left_out("python3-gps is not installed: the Python gps client is left out")
    return clients


def rotate(items, k):
    """The clients in a different order each round, so that none always runs first."""
    items = list(items)
    k %= len(items)
    return items[k:] + items[:k]


def rounds_of(opts, variants, run_one, describe):
    """[{variant: measurements or None}, one per round]: every variant once a round, in an
    order rotated round by round; `describe(m)` is the log line's tail for a finished run."""
    width = max(len(v) for v in variants)
    rounds = []
    for r in range(opts.rounds):
        result = {}
        for variant in rotate(variants, r):
            m = run_one(variant)
            result[variant] = m
            if m:
                log(f"  round {r + 1} {variant:{width}s} {describe(m)}")
        rounds.append(result)
    return rounds
