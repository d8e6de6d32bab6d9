"""A reference client of the uplink's contract, in Python, so that the end-to-end tests can be checked
before loctrack has its Traccar sink (and to tell a fault of the tests from a fault of loctrack):
`python3 scripts/traccar --uplink reference`. It is not loctrack and is not shipped.

  reference_uplink.py stream --publish http[s]://HOST:PORT/?id=DEVICE --spool DIR [--cafile PEM] [-v]
                            [HOST:PORT]

The contract it follows (the one `loctrack stream --publish http://…` is built to): each fix gpsd
reports (mode 2 or 3, a time, finite coordinates not both 0, dated after 2000 and not over a day
ahead) becomes one OsmAnd GET with id, timestamp in milliseconds, lat and lon as gpsd printed them,
speed in knots, bearing, altitude, accuracy (eph), hdop, odometer (metres), motion, status and
device; it is appended to a spool (DIR/queue, one query per line, fsynced; DIR/head, the number
sent) before it is sent; one keep-alive connection, one request in flight, oldest first. A 2xx
retires it; a 5xx, a refused connection or a close without a reply is retried with jittered backoff
capped at 5 s; a 400 is said once on stderr (naming the device and the 400) and probed every 30 s,
nothing dropped. https:// verifies the server against the system's CAs, or --cafile's. A URL
without an id, with another scheme, without a host or with a bad port: exit 64 and one line on
stderr, before gpsd is asked for anything. SIGTERM: reading stops, the spool drains for up to 2 s, exit 0; what is left stays
in the spool for the next start. Its odometer is the chord sum while gpsd's speed is at least
0.5 m/s: a stand-in for loctrack's, enough for a test that the attribute is there and grows.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import random
import signal
import socket
import ssl
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional
from urllib.parse import quote, urlsplit

KNOTS_PER_MPS = 1.943844
EARLIEST_MS = 946_684_800_000  # 2000-01-01
MOVING_MPS = 0.5
EPOCH_QUIET_S = 0.3
HEAD_EVERY_S = 0.2  # a fix's epoch is closed when gpsd says nothing more about that time for this long


class Spool:
    """DIR/queue: one query a line, appended and fsynced; DIR/head: how many lines were sent."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.queue_path, self.head_path = folder / "queue", folder / "head"
        self.lines: List[str] = self.queue_path.read_text().splitlines() if self.queue_path.exists() else []
        self.head = int(self.head_path.read_text() or 0) if self.head_path.exists() else 0
        self.queue = open(self.queue_path, "a")
        self.unsynced: List[str] = []
        self.head_on_disk, self.head_written = self.head, 0.0
        self.condition = threading.Condition()

    def append(self, query: str) -> None:
        """Written, not yet durable: sync() makes what gpsd's last read brought durable at once."""
        self.queue.write(query + "\n")
        self.unsynced.append(query)

    def sync(self) -> None:
        if not self.unsynced:
            return
        self.queue.flush()
        os.fsync(self.queue.fileno())
        with self.condition:
            self.lines.extend(self.unsynced)
            self.condition.notify_all()
        self.unsynced = []

    def oldest(self, timeout: float) -> Optional[str]:
        with self.condition:
            if self.head >= len(self.lines):
                self.condition.wait(timeout)
            return self.lines[self.head] if self.head < len(self.lines) else None

    def retire(self) -> None:
        with self.condition:
            self.head += 1
        if time.monotonic() - self.head_written >= HEAD_EVERY_S:
            self.write_head()

    def write_head(self) -> None:
        """The head on disk lags by at most HEAD_EVERY_S of acknowledgements, and by none while the
        server fails or the queue is empty: a crash sends again only what was sent in that lag."""
        with self.condition:
            head = self.head
        if head != self.head_on_disk:
            temporary = self.head_path.with_suffix(".new")
            temporary.write_text(str(head))
            os.replace(temporary, self.head_path)
            self.head_on_disk = head
        self.head_written = time.monotonic()

    def pending(self) -> int:
        with self.condition:
            return len(self.lines) - self.head


class Fixes:
    """gpsd's TPVs to fixes: one per distinct time, the last report of that time, finite, in range."""

    def __init__(self, device: str, spool: Spool):
        self.device, self.spool = device, spool
        self.pending: Optional[Dict] = None
        self.pending_since = 0.0
        self.odometer = 0.0
        self.previous: Optional[Dict] = None

    def report(self, report: Dict) -> None:
        if report.get("class") != "TPV" or report.get("mode", 0) < 2 or not report.get("time"):
            return
        if "lat" not in report or "lon" not in report:
            return
        if self.pending is not None and self.pending["time"] != report["time"]:
            self.commit()
        self.pending, self.pending_since = report, time.monotonic()

    def tick(self) -> None:
        if self.pending is not None and time.monotonic() - self.pending_since >= EPOCH_QUIET_S:
            self.commit()

    def commit(self) -> None:
        fix, self.pending = self.pending, None
        latitude, longitude = float(fix["lat"]), float(fix["lon"])
        stamp = milliseconds(fix["time"])
        if not (math.isfinite(latitude) and math.isfinite(longitude)) or (latitude == 0 and longitude == 0):
            return
        if stamp < EARLIEST_MS or stamp > time.time() * 1000 + 86_400_000:
            return
        speed = float(fix["speed"]) if "speed" in fix else None
        moving = speed is not None and speed >= MOVING_MPS
        if self.previous is not None and moving:
            self.odometer += chord(float(self.previous["lat"]), float(self.previous["lon"]), latitude, longitude)
        self.previous = fix
        fields = [("id", self.device), ("timestamp", str(stamp)), ("lat", fix["lat"]), ("lon", fix["lon"])]
        if speed is not None:
            fields.append(("speed", "%.4f" % (speed * KNOTS_PER_MPS)))
        for key, name in (("track", "bearing"), ("altHAE", "altitude"), ("eph", "accuracy")):
            if key in fix:
                fields.append((name, str(fix[key])))
        fields += [("odometer", "%.1f" % self.odometer), ("motion", "true" if moving else "false"),
                   ("status", str(fix.get("status", 1))), ("device", fix.get("device", ""))]
        self.spool.append("&".join("%s=%s" % (key, quote(str(value), safe="")) for key, value in fields))


def milliseconds(text: str) -> int:
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int(round(moment.timestamp() * 1000))


def chord(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1.0, math.sqrt(a)))


def read_gpsd(source: str, fixes: Fixes, stop: threading.Event) -> None:
    host, _, port = source.rpartition(":")
    while not stop.is_set():
        try:
            connection = socket.create_connection((host or "127.0.0.1", int(port)), timeout=1)
        except OSError:
            stop.wait(0.5)
            continue
        connection.sendall(b'?WATCH={"enable":true,"json":true};\n')
        buffered = b""
        while not stop.is_set():
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                fixes.tick()
                fixes.spool.sync()
                continue
            except OSError:
                break
            if not chunk:
                break
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                try:
                    fixes.report(json.loads(line, parse_float=str))
                except ValueError:
                    continue
            fixes.tick()
            fixes.spool.sync()
        fixes.tick()
        if fixes.pending is not None:
            fixes.commit()
        fixes.spool.sync()
        connection.close()


class Connection:
    """One keep-alive HTTP/1.1 connection, one request at a time (a few lines of socket code rather
    than http.client, whose overhead made this client the slowest part of a 10,000-fix drain)."""

    def __init__(self, host: str, port: int, tls: Optional[ssl.SSLContext]):
        self.host = host
        self.socket = socket.create_connection((host, port), timeout=10)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_hostname=host)
        self.buffered = b""

    def get(self, target: str) -> int:
        """The reply's status; ConnectionError when the server closed without a (whole) reply."""
        self.socket.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, self.host)).encode())
        while b"\r\n\r\n" not in self.buffered:
            self._receive()
        head, _, self.buffered = self.buffered.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
        while len(self.buffered) < length:
            self._receive()
        self.buffered = self.buffered[length:]
        return int(lines[0].split()[1])

    def _receive(self) -> None:
        chunk = self.socket.recv(65536)
        if not chunk:
            raise ConnectionError("closed without a reply")
        self.buffered += chunk

    def close(self) -> None:
        self.socket.close()


def send(url: str, device: str, spool: Spool, stop: threading.Event, draining: threading.Event,
         tls: Optional[ssl.SSLContext]) -> None:
    parts = urlsplit(url)
    connection: Optional[Connection] = None
    failures, said_unknown = 0, False
    while True:
        query = spool.oldest(0.2)
        if query is None:
            spool.write_head()
            if draining.is_set():
                return
            continue
        try:
            if connection is None:
                connection = Connection(parts.hostname, parts.port or (443 if tls else 80), tls)
            status = connection.get((parts.path or "/") + "?" + query)
        except (OSError, ValueError, IndexError):
            if connection is not None:
                connection.close()
            connection, status = None, None
        if status is not None and 200 <= status < 300:
            spool.retire()
            failures = 0
            continue
        spool.write_head()  # before waiting: a crash while the server fails sends nothing acknowledged again
        if status == 400:
            if not said_unknown:
                print("traccar: %s://%s does not know device %s (HTTP 400): add it in Traccar; fixes stay in the "
                      "spool, asking again every 30 s" % (parts.scheme, parts.netloc, device), file=sys.stderr,
                      flush=True)
                said_unknown = True
            if stop.wait(30):
                return
            continue
        failures += 1
        if stop.wait(min(5.0, 0.2 * 2 ** failures) * random.uniform(0.5, 1.0)):
            return


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["stream"])
    parser.add_argument("--publish", required=True)
    parser.add_argument("--spool", required=True)
    parser.add_argument("--cafile")
    parser.add_argument("--traccar-interval", type=float)
    parser.add_argument("--traccar-distance", type=float)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("source", nargs="?", default="127.0.0.1:2947")
    args = parser.parse_intermixed_args(argv)
    url = urlsplit(args.publish)
    device = dict(pair.partition("=")[::2] for pair in url.query.split("&")).get("id")
    try:
        port_ok = url.port is None or 0 < url.port
    except ValueError:
        port_ok = False
    if url.scheme not in ("http", "https") or not url.hostname or not port_ok or not device:
        print("reference uplink: %s: a URL http[s]://HOST[:PORT]/?id=DEVICE is needed" % args.publish, file=sys.stderr)
        return 64
    tls = ssl.create_default_context(cafile=args.cafile) if url.scheme == "https" else None
    spool = Spool(Path(args.spool))
    stop, draining = threading.Event(), threading.Event()
    reader = threading.Thread(target=read_gpsd, args=(args.source, Fixes(device, spool), stop), daemon=True)
    sender = threading.Thread(target=send, args=(args.publish.split("?")[0], device, spool, stop, draining, tls),
                              daemon=True)
    reader.start()
    sender.start()
    terminated = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: terminated.set())
    signal.signal(signal.SIGINT, lambda *_: terminated.set())
    terminated.wait()
    draining.set()
    sender.join(2.0)  # the bounded drain; what is left stays in the spool
    stop.set()
    spool.write_head()
    return 0


if __name__ == "__main__":
    sys.exit(main())
