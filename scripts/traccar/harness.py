"""What every end-to-end test stands on: the run's settings, the uplink under test as a process
(loctrack), the recordings, and the checks of what the stand-in stored
against what gpsd reported.

The processes themselves live in scripts/support, shared with the other suites and the bench:
traccar_standin (the server, as a process with a control port), gpsd_replay (gpsfake + gpsd, and
gpspipe as the witness of what gpsd sent), processes (spawning, ports), procfs.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from support.gpsd_replay import Replay, Witness, time_ms, with_lead_in
from support.processes import kill_group, spawn, terminate
from support.procfs import established_to
from support.waiting import wait_until

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEMO_TRACK = ROOT / "demo" / "track.nmea"
KNOTS_PER_MPS = 1.943844
SPEED_TOLERANCE_KN = 0.005  # what formatting the speed may round away (2.6 mm/s); m/s sent as knots is off by 94 %


class Settings:
    """The run's settings: loctrack's binary, the artifacts folder, gpsfake's cycle, the flood
    emulator."""

    def __init__(self, loctrack: str, out: Path, cycle: float, flood: Optional[str]):
        self.loctrack, self.out, self.cycle, self.flood = loctrack, out, cycle, flood

    def command(self) -> List[str]:
        return [self.loctrack]

    def workdir(self, name: str) -> Path:
        path = self.out / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def missing_uplink(self) -> Optional[str]:
        """Why the uplink cannot be tested here, or None: loctrack must say http:// in stream --help.
        A binary without it fails the run (it is never skipped: the uplink is part of loctrack)."""
        if not os.access(self.loctrack, os.X_OK):
            return "%s is not an executable (make build)" % self.loctrack
        try:
            shown = subprocess.run([self.loctrack, "stream", "--help"], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError) as error:
            return "%s stream --help: %s" % (self.loctrack, error)
        if "http://" not in shown.stdout + shown.stderr:
            return "%s stream --help does not mention http://: a loctrack without its Traccar uplink" % self.loctrack
        return None


class Uplink:
    """`stream --publish URL --spool DIR SOURCE` as a process: stdout to a file, stderr lines kept with
    the moment each arrived (the test counts what the uplink said, and when)."""

    def __init__(self, settings: Settings, url: str, spool: Path, source: str, workdir: Path, name: str,
                 extra: Sequence[str] = ()):
        self.argv = settings.command() + ["stream", "--publish", url, "--spool", str(spool)] + list(extra) + [source]
        self.stdout_path, self.stderr_path = workdir / (name + ".out"), workdir / (name + ".err")
        self.errors: List[Tuple[float, str]] = []
        self.lock = threading.Lock()
        # The test's own state folder: the odometer persists there (the same one across a restart in
        # the same test), never in the user's.
        environment = dict(os.environ, XDG_STATE_HOME=str(workdir / "state"))
        with open(self.stdout_path, "ab") as out:
            self.process = spawn(self.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                                 env=environment)
        self.pid = self.process.pid
        self.reader = threading.Thread(target=self._read_stderr, daemon=True, name=name + "-stderr")
        self.reader.start()

    def _read_stderr(self) -> None:
        with open(self.stderr_path, "ab") as copy:
            for raw in iter(self.process.stderr.readline, b""):
                copy.write(raw)
                copy.flush()
                with self.lock:
                    self.errors.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))

    def stderr_lines(self) -> List[str]:
        with self.lock:
            return [line for _, line in self.errors]

    def connected_to(self, port: int) -> bool:
        return established_to(self.pid, port)

    def kill(self) -> None:
        """SIGKILL: a crash, or a power cut as far as the spool is concerned."""
        kill_group(self.process)
        self.reader.join(5)

    def terminate(self, timeout: float = 15) -> Optional[int]:
        """SIGTERM, the clean stop (a bounded drain, then exit 0); the exit code, None if it hung."""
        code = terminate(self.process, timeout)
        self.reader.join(5)
        return code


def start_replay(settings: Settings, workdir: Path, log: Path = DEMO_TRACK) -> Tuple[Replay, Witness]:
    """gpsfake replaying log (after a lead-in) into a real gpsd, and gpspipe watching it."""
    replay = Replay(workdir, with_lead_in(log, workdir, settings.cycle), cycle=settings.cycle, wait_after=300)
    witness = Witness(replay.source, workdir)
    if not witness.wait_watching(30):
        raise RuntimeError("gpspipe got no WATCH answer from gpsd within 30 s")
    return replay, witness


def connect_uplink(r, uplink: Uplink, replay: Replay, witness: Witness) -> None:
    """Waits until the uplink is connected to gpsd; checks it was before gpsd's first fix (so it
    was sent every fix the witness saw)."""
    connected = wait_until(lambda: uplink.connected_to(replay.port), 30, 0.01)
    fixes_then = len(witness.fixes())
    r.check(connected and fixes_then == 0, "the uplink watched gpsd before its first fix",
            "connected: %s, fixes gpsd had sent by then: %d" % (bool(connected), fixes_then))


def wait_replay_end(replay: Replay, witness: Witness, log: Path = DEMO_TRACK) -> bool:
    """Waits until gpsd has reported the log's last fix time (what the uplink did with it, the
    caller waits for: stored, or spooled)."""
    from support.gpsd_replay import last_nmea_time, nmea_sentences
    last = last_nmea_time(log)
    timeout = nmea_sentences(replay.log) * max(replay.cycle, 0.05) * 3 + 30
    return witness.wait_time(last, timeout) if last else False


def wait_stored(standin, count: int, timeout: float) -> List[Dict]:
    """The stand-in's positions once at least count are stored (or the timeout passed). Polls the
    count alone: the positions themselves, fetched while a backlog drains, would slow the stand-in."""
    wait_until(lambda: standin.stats()["positions"] >= count, timeout, 0.1)
    return standin.positions()


# -- checks of what was stored --------------------------------------------------------------------

def stored_times(positions: Sequence[Dict]) -> List[int]:
    return [p["time_ms"] for p in positions]


def order_problem(positions: Sequence[Dict], allowed_repeats: Sequence[int] = ()) -> Optional[str]:
    """None when the stored times never go back and repeat only where allowed (the times whose reply
    was lost, each at most once per loss); else the first place they do."""
    repeats = list(allowed_repeats)
    newest = None
    for index, position in enumerate(positions):
        stamp = position["time_ms"]
        if newest is not None and stamp < newest:
            return "position %d (%d ms) is older than one stored before it (%d ms)" % (index, stamp, newest)
        if stamp == newest:
            if stamp not in repeats:
                return "position %d (%d ms) repeats one with no lost reply" % (index, stamp)
            repeats.remove(stamp)
        newest = stamp if newest is None else max(newest, stamp)
    return None


def missing_and_extra(positions: Sequence[Dict], expected_ms: Sequence[int]) -> Tuple[List[int], List[int]]:
    got, wanted = set(stored_times(positions)), set(expected_ms)
    return sorted(wanted - got), sorted(got - wanted)


def query_of(position: Dict) -> Dict[str, str]:
    """The raw parameters the uplink sent (the request target, before the decoder's parsing)."""
    from urllib.parse import unquote_plus
    _, _, query = position["target"].partition("?")
    return {unquote_plus(k): unquote_plus(v) for k, _, v in (pair.partition("=") for pair in query.split("&") if pair)}


def gpsd_times(fixes: Sequence[Dict]) -> List[int]:
    return [time_ms(fix["time"]) for fix in fixes]
