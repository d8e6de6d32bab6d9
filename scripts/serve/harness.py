"""What every test stands on: the run's settings, the recordings, the access token's file,
loctrack processes besides the server (a reference monitor), and the regions the demo drive
crosses.

The processes themselves live in scripts/support, shared with the benchmark: serve_process
(loctrack serve), gpsd_replay (gpsfake + gpsd, and gpspipe as the witness of what gpsd sent),
sse_clients, http_raw, tcp_relay, scripted_gpsd (only for what a real gpsd cannot do on demand).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from support.processes import kill_group, spawn
from support.waiting import wait_until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEMO_TRACK = ROOT / "demo" / "track.nmea"
ZONES = ROOT / "demo" / "zones.geojson"
RTK_LOG = HERE / "fixtures" / "nmea-rtk.log"
# The circle scripts/demo.sh adds: the Port Authority Bus Terminal, 8th Ave and 42nd Street.
PORT_AUTHORITY = ("port-authority", 40.7565588, -73.9888937, 120.0)
LEAFLET = Path("/usr/share/javascript/leaflet")


class Settings:
    """The run's settings: the loctrack binary (and the loctrack-serve it execs), the artifacts
    folder, schemathesis's venv, and where the screenshots go besides the artifacts."""

    def __init__(self, loctrack: str, serve_binary: str, out: Path, venv: Path,
                 figures: Optional[Path] = None, cycle: float = 0.02):
        self.loctrack, self.serve_binary, self.out, self.venv = loctrack, serve_binary, out, venv
        self.figures = figures
        self.cycle = cycle

    def workdir(self, name: str) -> Path:
        path = self.out / name
        path.mkdir(parents=True, exist_ok=True)
        return path


def write_token_file(workdir: Path) -> Tuple[str, Path]:
    """A fresh random access token in workdir/token, mode 600: `loctrack serve --token-file`
    refuses a file others may read (test 4). Returns (token, path)."""
    token = secrets.token_hex(16)
    path = workdir / "token"
    path.write_text(token + "\n")
    os.chmod(path, 0o600)
    return token, path


def run_loctrack(loctrack: str, args: Sequence[str], state_home: Optional[Path] = None,
                 timeout: float = 10) -> subprocess.CompletedProcess:
    """A short loctrack command (monitor add), waited for."""
    env = dict(os.environ)
    if state_home is not None:
        env["XDG_STATE_HOME"] = str(state_home)
    return subprocess.run([loctrack] + list(args), capture_output=True, text=True, timeout=timeout, env=env)


def add_demo_regions(loctrack: str, monitor: str, state_home: Path) -> List[str]:
    """The Port Authority circle and demo/zones.geojson's polygons, added to monitor; their ids."""
    name, lat, lon, radius = PORT_AUTHORITY
    for args in (["monitor", "add", name, "--circle", "%s,%s,%s" % (lat, lon, radius), "--title", "Port Authority"],
                 ["monitor", "add", "--geojson", str(ZONES)]):
        done = run_loctrack(loctrack, args + ["--name", monitor], state_home=state_home)
        if done.returncode != 0:
            raise RuntimeError("loctrack %s: exit %d: %s" % (" ".join(args), done.returncode, done.stderr.strip()))
    zones = json.loads(ZONES.read_text())
    return [name] + [feature["properties"]["id"] for feature in zones["features"]]


class LoctrackProcess:
    """A loctrack besides the server (the reference `monitor run --format json`): each stdout line
    kept with the wall-clock time it arrived (time.time(), the page's Date.now() clock)."""

    def __init__(self, loctrack: str, args: Sequence[str], workdir: Path, name: str,
                 state_home: Optional[Path] = None):
        env = dict(os.environ)
        if state_home is not None:
            env["XDG_STATE_HOME"] = str(state_home)
        self.stdout_path = workdir / (name + ".out")
        self.stderr_path = workdir / (name + ".err")
        self.lines: List[Tuple[float, str]] = []
        with open(self.stderr_path, "wb") as err:
            self.process = spawn([loctrack] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=err, env=env)
        self.thread = threading.Thread(target=self._read, daemon=True, name=name)
        self.thread.start()

    def _read(self) -> None:
        with open(self.stdout_path, "wb") as out:
            for raw in iter(self.process.stdout.readline, b""):
                out.write(raw)
                out.flush()
                self.lines.append((time.time(), raw.decode("utf-8", "replace").rstrip("\n")))

    def objects(self) -> List[Tuple[float, Dict]]:
        found = []
        for at, line in list(self.lines):
            try:
                found.append((at, json.loads(line)))
            except ValueError:
                continue
        return found

    def stop(self) -> None:
        kill_group(self.process)


def start_witnessed(r, replay, workdir: Path, start: Callable[[], Any]) -> Tuple[Any, Any]:
    """Starts the server (start()), waits until it is connected to gpsd (whose device opens at its
    WATCH), then the witness (gpspipe -w, quick to start); checks that the witness watched before
    the server had its first fix, so that both saw every report gpsd sent (the comparisons'
    premise: gpsd spends the log's first half second or more recognising the receiver). Returns
    (server, witness)."""
    from support.gpsd_replay import Witness
    from support.procfs import established_to
    server = start()
    wait_until(lambda: established_to(server.pid, replay.port), 30, 0.01)
    witness = Witness(replay.source, workdir)
    if not witness.wait_watching(30):
        raise RuntimeError("gpspipe got no WATCH answer from gpsd within 30 s")
    response = server.get("/api/track?max=2")
    total = response.json().get("total") if response.status == 200 else None
    r.check(total == 0, "gpspipe watched gpsd before loctrack serve had a fix (both see every report)",
            "serve's track: %s fixes when gpspipe watched" % total)
    return server, witness


def close_to(a: Optional[float], b: Optional[float], tolerance: float) -> bool:
    try:
        return a is not None and b is not None and abs(float(a) - float(b)) <= tolerance
    except (TypeError, ValueError):
        return False


def number(value) -> Optional[float]:
    """A page value as a number: 7, 7.0, "7", "7 of 12" (the first number in a text)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    import re
    match = re.search(r"-?\d+(?:\.\d+)?", str(value))
    return float(match.group(0)) if match else None


def count(value) -> Optional[int]:
    """trackPoints as a number whether the page keeps a count or the points themselves."""
    if isinstance(value, list):
        return len(value)
    found = number(value)
    return None if found is None else int(found)


def elapsed(since: float) -> float:
    return time.monotonic() - since
