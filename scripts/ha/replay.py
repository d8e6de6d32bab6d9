"""The demo drive (demo/track.nmea: 285 fixes on 42nd Street) replayed by gpsfake into a real
gpsd on a free loopback port, the way scripts/demo.sh does it: `gpsfake -q -1 -W 5 -P PORT -c CYCLE`,
which ends gpsd when the log ends (-1), 5 s after its last sentence (-W; the default is 60 s), so
a test can wait for the replay's end. gpsd opens the device when the first client watches; the
drive comes after a lead-in of $GPTXT sentences (support/gpsd_replay.with_lead_in), so the
test's other clients, started after it, still miss no fix. Starting gpsfake and waiting for its
gpsd is support/gpsd_replay's, shared with scripts/serve and scripts/traccar.

Also: loctrack processes (stdout and stderr to files in the test's folder, a monitor's state in
the test's own XDG_STATE_HOME) and the fixes `loctrack stream --format json` printed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from support import gpsd_replay
from support.processes import spawn, terminate

ROOT = Path(__file__).resolve().parent.parent.parent
TRACK = ROOT / "demo" / "track.nmea"
ZONES = ROOT / "demo" / "zones.geojson"
# The circle scripts/demo.sh adds: the Port Authority Bus Terminal, 8th Ave and 42nd Street.
PORT_AUTHORITY = ("port-authority", 40.7565588, -73.9888937, 120.0)


class Replay(gpsd_replay.Replay):
    """gpsfake replaying track into gpsd on self.port; started at once, listening when this returns,
    and ending 5 s after the track's last sentence."""

    def __init__(self, workdir: Path, cycle: float = 0.02, track: Path = TRACK):
        super().__init__(workdir, gpsd_replay.with_lead_in(track, workdir, cycle), cycle=cycle, wait_after=5)

    def wait_end(self, timeout: Optional[float] = None) -> bool:
        """Waits for gpsfake to end (the log's end: gpsd gone); default deadline: 3x the replay at 0.05 s a sentence or slower (gpsfake takes about that per sentence on a busy machine) + 60 s."""
        if timeout is None:
            timeout = gpsd_replay.nmea_sentences(self.log) * max(self.cycle, 0.05) * 3 + 60
        try:
            self.process.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False


class Loctrack:
    """One loctrack process; stdout and stderr in workdir/NAME.out and .err."""

    def __init__(self, binary: str, args: Sequence[str], workdir: Path, name: str,
                 state_home: Optional[Path] = None, timestamped: bool = False):
        self.args = [binary] + list(args)
        self.stdout_path = workdir / (name + ".out")
        self.stderr_path = workdir / (name + ".err")
        self.arrivals: List[Tuple[float, str]] = []  # timestamped: (time.time(), line) as each line came
        environment = dict(os.environ)
        if state_home is not None:
            environment["XDG_STATE_HOME"] = str(state_home)
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            self.process = spawn(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if timestamped else out,
                                 stderr=err, env=environment)
        if timestamped:
            self._reader = threading.Thread(target=self._read, daemon=True, name="loctrack-stdout")
            self._reader.start()

    def _read(self) -> None:
        with open(self.stdout_path, "ab") as out:
            for raw in iter(self.process.stdout.readline, b""):
                self.arrivals.append((time.time(), raw.decode("utf-8", "replace").rstrip("\n")))
                out.write(raw)
                out.flush()

    def lines(self) -> List[str]:
        try:
            return self.stdout_path.read_text(errors="replace").splitlines()
        except OSError:
            return []

    def timed_objects(self) -> List[Tuple[float, Dict]]:
        """(arrival, object) for each JSON line of stdout so far (needs timestamped=True)."""
        return [(at, parsed[0]) for at, parsed in ((at, json_objects([line])) for at, line in list(self.arrivals))
                if parsed]

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def running(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL (loctrack only, not a group: what a crash looks like; its last will then fires)."""
        try:
            self.process.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)

    def terminate(self, timeout: float = 10) -> Optional[int]:
        """SIGTERM, the clean exit; the exit code, or None if it had to be killed after timeout."""
        return terminate(self.process, timeout)


def json_objects(lines: Sequence[str]) -> List[Dict]:
    """The JSON objects of loctrack's output lines (fixes of stream --format json, EVENTs of monitor run)."""
    objects = []
    for line in lines:
        try:
            objects.append(json.loads(line))
        except ValueError:
            continue
    return objects


def run(binary: str, args: Sequence[str], timeout: float = 10,
        state_home: Optional[Path] = None) -> subprocess.CompletedProcess:
    """A short loctrack command (monitor add/remove, --help, a usage error), waited for."""
    environment = dict(os.environ)
    if state_home is not None:
        environment["XDG_STATE_HOME"] = str(state_home)
    return subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=timeout, env=environment)
