"""A real gpsd fed by gpsfake from a recording, and gpsd's own account of what it sent (gpspipe).

Replay: `gpsfake -q -1 -W WAIT -P PORT -c CYCLE LOG` on a free loopback port, listening when the
constructor returns. gpsd opens the device when its first client watches, and the log's first
half second or more goes to recognising the receiver before gpsd reports anything, so clients
that watch within that time see the same reports; with_lead_in() makes that time long enough for
every client of a test to start and watch on a loaded machine (LEAD_IN_SECONDS of $GPTXT
sentences before the log). scripts/serve starts loctrack, then the witness as soon as loctrack
is connected, and checks that the witness watched before loctrack had a fix.
After the log's last sentence gpsd stays up for WAIT seconds (the test kills it when it wants
gpsd gone, and measures from that moment).

Witness: `gpspipe -w` on the same gpsd, each line kept with the time it arrived: the reports a
client of that gpsd got, so a test compares what loctrack shows with what gpsd said, not with
what loctrack says it got. Its fixes follow the conformance rule (fix_check.expected_epochs):
one per distinct time among TPVs with mode >= 2, lat, lon and time, with the last such report's
values.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .fix_check import expected_epochs
from .processes import free_port, kill_group, release_port, spawn
from .procfs import listening


def nmea(body: str) -> str:
    """An NMEA 0183 sentence with its checksum."""
    checksum = 0
    for byte in body.encode():
        checksum ^= byte
    return "$%s*%02X" % (body, checksum)


# The lead-in: the seconds between the first client's watch (gpsd then opens the device, and
# gpsfake starts feeding it) and the log's first sentence. Every other client of a test must start
# and watch within it, on a loaded machine too (2 cores, other suites and builds beside): the
# tests then check that they did.
LEAD_IN_SECONDS = 8.0


def with_lead_in(log: Path, workdir: Path, cycle: float, seconds: float = LEAD_IN_SECONDS) -> Path:
    """A copy of log (in workdir) that starts with `seconds` of $GPTXT sentences at gpsfake's `cycle`
    (at least that long: a busy gpsfake is slower): gpsd reads them, recognises an NMEA receiver
    and reports nothing, so clients that connect during them see every report of the log that
    follows."""
    sentences = max(1, math.ceil(seconds / cycle)) if cycle > 0 else 1
    lead = [nmea("GPTXT,01,01,02,loctrack test lead-in %d" % index) for index in range(sentences)]
    path = workdir / ("%s-lead-in%s" % (log.stem, log.suffix))
    path.write_text("\n".join(lead + log.read_text().splitlines()) + "\n")
    return path


def nmea_sentences(log: Path) -> int:
    return sum(1 for line in log.read_text(errors="replace").splitlines() if line.startswith("$"))


class Replay:
    """gpsfake + gpsd replaying log on self.port."""

    def __init__(self, workdir: Path, log: Path, cycle: float = 0.02, wait_after: float = 120.0):
        self.log = log
        self.cycle = cycle
        self.port = free_port()
        release_port(self.port)  # gpsd binds without SO_REUSEADDR
        workdir.mkdir(parents=True, exist_ok=True)
        self.errors_path = workdir / ("gpsfake-%s.err" % log.stem)
        self.errors = open(self.errors_path, "wb")
        self.process = spawn(["gpsfake", "-q", "-1", "-W", "%g" % wait_after, "-P", str(self.port), "-c", str(cycle),
                              str(log)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.errors,
                             env=dict(os.environ, TMPDIR=str(workdir)))
        deadline = time.monotonic() + 15
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("gpsfake's gpsd did not listen on 127.0.0.1:%d within 15 s: %s"
                                   % (self.port, self.errors_path.read_text(errors="replace")[-500:]))
            time.sleep(0.02)

    @property
    def source(self) -> str:
        return "127.0.0.1:%d" % self.port

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> float:
        """SIGKILLs gpsfake and its gpsd (one process group); returns the monotonic time just before."""
        at = time.monotonic()
        kill_group(self.process)
        if not self.errors.closed:
            self.errors.close()
        return at


class Witness:
    """gpspipe -w on gpsd at source: every line gpsd sent to a watching client, as it arrived."""

    def __init__(self, source: str, workdir: Path, name: str = "gpspipe"):
        self.path = workdir / (name + ".jsonl")
        self.lines: List[Tuple[float, str]] = []  # (time.monotonic(), line)
        self.lock = threading.Lock()
        self.process = spawn(["gpspipe", "-w", source], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        self.thread = threading.Thread(target=self._read, daemon=True, name="gpspipe")
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "wb") as out:
            for raw in iter(self.process.stdout.readline, b""):
                out.write(raw)
                with self.lock:
                    self.lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))

    def wait_watching(self, timeout: float) -> bool:
        """Waits for gpsd's WATCH answer: from then on gpsd sends this client every report."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if any('"class":"WATCH"' in line for _, line in self.lines):
                    return True
            time.sleep(0.02)
        return False

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for _, line in self.lines if '"class":"%s"' % kind in line)

    def reports(self, kind: str) -> List[Dict]:
        with self.lock:
            lines = [line for _, line in self.lines]
        found = []
        for line in lines:
            if '"class":"%s"' % kind not in line:
                continue
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def fixes(self) -> List[Dict]:
        """gpsd's epochs with a fix, oldest first: the last fix report of each distinct time."""
        with self.lock:
            lines = [line for _, line in self.lines]
        epochs, _ = expected_epochs(lines)
        ordered = sorted(epochs.values(), key=lambda epoch: epoch.first_index)
        return [_plain(epoch.report) for epoch in ordered]

    def last_sky(self) -> Optional[Dict]:
        skies = self.reports("SKY")
        return skies[-1] if skies else None

    def seen_time(self, text: str) -> bool:
        with self.lock:
            return any(('"time":"%s"' % text) in line for _, line in self.lines)

    def wait_time(self, text: str, timeout: float) -> bool:
        """Waits until gpsd has sent a report with this time (the log's last epoch, say)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.seen_time(text):
                return True
            time.sleep(0.1)
        return False

    def quiet_for(self) -> float:
        """Seconds since the last line arrived (since the start if none)."""
        with self.lock:
            last = self.lines[-1][0] if self.lines else None
        return time.monotonic() - last if last is not None else float("inf")

    def stop(self) -> None:
        kill_group(self.process)


def _plain(report: Dict) -> Dict:
    """fix_check keeps numbers as their text (Num, a str): back to floats and ints."""
    plain = {}
    for key, value in report.items():
        if type(value).__name__ == "Num":
            text = str(value)
            plain[key] = float(text) if any(c in text for c in ".eE") else int(text)
        else:
            plain[key] = value
    return plain


def last_nmea_time(log: Path) -> Optional[str]:
    """The time of the log's last RMC sentence with a date, as gpsd prints it (ISO 8601, UTC, ms):
    when gpsd has sent a TPV with it, the whole log has been read."""
    last = None
    for line in log.read_text(errors="replace").splitlines():
        fields = line.split(",")
        if len(fields) > 9 and fields[0][3:] == "RMC" and fields[1] and fields[9]:
            clock, date = fields[1], fields[9]
            seconds = float(clock[4:])
            year = 2000 + int(date[4:6])
            last = "%04d-%s-%sT%s:%s:%06.3fZ" % (year, date[2:4], date[0:2], clock[0:2], clock[2:4], seconds)
    return last


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance on WGS 84's mean radius (as loctrack's monitor measures)."""
    radius = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * radius * math.asin(min(1.0, math.sqrt(a)))


def time_ms(text: str) -> int:
    """Milliseconds since 1970 of an ISO 8601 UTC time such as gpsd's TPV time."""
    import datetime
    stamp = text.rstrip("Z")
    whole, _, fraction = stamp.partition(".")
    moment = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp()) * 1000 + int((fraction + "000")[:3] or 0)
