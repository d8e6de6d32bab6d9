"""A stand-in for Traccar's OsmAnd port (5055): HTTP/1.1 with keep-alive, the decoder's rules
(osmand_decoder), the positions it stored in arrival order, and faults set at run time.

Traccar needs Java 21 and is neither in Debian 12 nor on PyPI, so the uplink's tests and the bench
run against this (../shared/docs/traccar-facts.md says which rules and why). Every reply has a
Content-Length and is written in one send; the connection stays open (HTTP/1.1) until the client
closes it, or the stand-in closes it without a reply where Traccar would (a disabled device, a bad
number) or where a fault says so.

Two ports: the OsmAnd port, and a control port (JSON over HTTP, for the tests and the bench):
  GET  /positions?since=N    {"positions": [...], "next": M}: stored positions from index N, each
                             with its connection number, request number, arrival (monotonic and
                             wall-clock seconds) and the raw request target
  GET  /requests?since=N     every request: connection, method, target, outcome, status, arrival
  GET  /stats                counts by outcome, connections, requests, positions, dropped (future)
  POST /fault                {"status": 503, "count": N} or {"status": 503, "seconds": T}: answer
                             the next N requests (or those in the next T s) with that status;
                             {"close": N} or {"close_seconds": T}: close without a reply;
                             {"drop_reply": N}: decode and store the next N positions, then
                             close without a reply (a reply lost on the way: the client cannot
                             know it was stored, and sends it again); {"clear": true}: no more
                             faults
  POST /device               {"id": "...", "state": "known"|"unknown"|"disabled"}
  POST /reset                forget positions and requests (faults and devices stay)
A status or close fault takes precedence over decoding: that request is not decoded (nor stored).

Run as a program (scripts/traccar and the bench do, through StandinProcess):
  python3 scripts/support/traccar_standin.py [--port P] [--control-port C] [--device ID]...
      [--any-device] [--journal FILE] [--future S] [--osmand-speed kn|kmh|mps|mph]
      [--certfile PEM --keyfile PEM]
With a certificate, the OsmAnd port speaks TLS (what a reverse proxy in front of Traccar does;
Traccar's port 5055 is plain HTTP by default); the control port stays plain. It prints one JSON line on stdout once both ports listen: {"port": P, "control": C}.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple
from urllib.parse import parse_qs, urlsplit
from urllib.request import Request as UrlRequest, urlopen

if __package__ in (None, ""):  # run as a file: import the decoder beside it
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import osmand_decoder as decoder  # noqa: E402
else:
    from . import osmand_decoder as decoder

REASONS = {200: "OK", 400: "Bad Request", 500: "Internal Server Error", 502: "Bad Gateway",
           503: "Service Unavailable", 504: "Gateway Timeout"}
IDLE_TIMEOUT_S = 1800  # Traccar closes idle connections after this


class Faults:
    """What the next requests get instead of being decoded: a status, or a close without reply,
    for a count of requests or until a moment."""

    def __init__(self):
        self.status, self.status_count, self.status_until = 503, 0, 0.0
        self.close_count, self.close_until = 0, 0.0
        self.drop_reply_count = 0

    def set(self, order: Dict) -> None:
        if order.get("clear"):
            self.__init__()
        if "status" in order:
            self.status = int(order["status"])
            self.status_count = int(order.get("count", 0))
            self.status_until = time.monotonic() + float(order["seconds"]) if "seconds" in order else 0.0
        if "close" in order:
            self.close_count = int(order["close"])
        if "drop_reply" in order:
            self.drop_reply_count = int(order["drop_reply"])
        if "close_seconds" in order:
            self.close_until = time.monotonic() + float(order["close_seconds"])

    def take(self) -> Optional[object]:
        """The fault for this request (a status code, or "close"), consumed; None when none."""
        now = time.monotonic()
        if self.close_count > 0:
            self.close_count -= 1
            return "close"
        if now < self.close_until:
            return "close"
        if self.status_count > 0:
            self.status_count -= 1
            return self.status
        if now < self.status_until:
            return self.status
        return None

    def take_drop_reply(self) -> bool:
        """Whether the reply to this stored position is to be lost (consumed)."""
        if self.drop_reply_count > 0:
            self.drop_reply_count -= 1
            return True
        return False

    def describe(self) -> Dict:
        now = time.monotonic()
        return {"status": self.status, "status_count": self.status_count,
                "status_seconds": max(0.0, self.status_until - now), "close_count": self.close_count,
                "close_seconds": max(0.0, self.close_until - now), "drop_reply_count": self.drop_reply_count}


class Standin:
    """The server's state: devices, faults, what was stored, every request; behind one lock."""

    def __init__(self, devices: Sequence[str] = (), any_device: bool = False, journal: Optional[Path] = None,
                 future_s: int = decoder.FUTURE_LIMIT_S, speed_unit: str = "kn"):
        self.lock = threading.Lock()
        self.devices: Dict[str, str] = {device: decoder.KNOWN for device in devices}
        self.any_device = any_device
        self.future_s, self.speed_unit = future_s, speed_unit
        self.faults = Faults()
        self.distance = decoder.NaiveDistance()
        self.positions: List[Dict] = []
        self.requests: List[Dict] = []
        self.counts: Dict[str, int] = {}
        self.connections = 0
        self.dropped_future = 0
        self.journal = open(journal, "a", encoding="utf-8") if journal else None

    def device_state(self, device: str) -> str:
        state = self.devices.get(device)
        if state is None:
            return decoder.KNOWN if self.any_device else decoder.UNKNOWN
        return state

    def new_connection(self) -> int:
        with self.lock:
            self.connections += 1
            return self.connections

    def handle(self, request: decoder.Request, connection: int):
        """(status, body) to reply, or None to close without a reply."""
        arrival, wall = time.monotonic(), time.time()
        now_ms = int(wall * 1000)
        with self.lock:
            number = len(self.requests) + 1
            record = {"request": number, "connection": connection, "method": request.method,
                      "target": request.target, "arrival": arrival, "wall": wall}
            self.requests.append(record)
            fault = self.faults.take()
            if fault is not None:
                record["outcome"] = "fault-close" if fault == "close" else "fault-%d" % fault
                record["status"] = None if fault == "close" else fault
                self._count(record["outcome"])
                return None if fault == "close" else (fault, b"")
            found = decoder.decode(request, self.device_state, now_ms, self.distance.last_known, self.speed_unit)
            record["outcome"], record["device"], record["reason"] = found.outcome, found.device, found.reason
            self._count(found.outcome)
            if found.outcome == decoder.BAD_REQUEST:
                record["status"] = 400
                return 400, b""
            if found.outcome != decoder.POSITION:
                record["status"] = None
                return None
            record["status"] = 200
            position = found.position
            if decoder.beyond_future(position, now_ms, self.future_s):
                self.dropped_future += 1
                record["outcome"] = "dropped-future"
                self._count("dropped-future")
                return 200, b""
            self.distance.add(position)
            stored = position.as_dict()
            stored.update(index=len(self.positions), request=number, connection=connection, arrival=arrival,
                          wall=wall, target=request.target)
            self.positions.append(stored)
            if self.journal is not None:
                self.journal.write(json.dumps(stored) + "\n")
                self.journal.flush()
            if self.faults.take_drop_reply():
                record["outcome"], record["status"] = "position-reply-dropped", None
                self._count("position-reply-dropped")
                return None
        return 200, b""

    def _count(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    # the control port's answers
    def positions_since(self, index: int) -> Dict:
        with self.lock:
            return {"positions": self.positions[index:], "next": len(self.positions)}

    def requests_since(self, index: int) -> Dict:
        with self.lock:
            return {"requests": self.requests[index:], "next": len(self.requests)}

    def stats(self) -> Dict:
        with self.lock:
            return {"counts": dict(self.counts), "connections": self.connections, "requests": len(self.requests),
                    "positions": len(self.positions), "dropped_future": self.dropped_future,
                    "faults": self.faults.describe(), "devices": dict(self.devices), "any_device": self.any_device}

    def set_fault(self, order: Dict) -> None:
        with self.lock:
            self.faults.set(order)

    def set_device(self, device: str, state: str) -> None:
        if state not in (decoder.KNOWN, decoder.UNKNOWN, decoder.DISABLED):
            raise ValueError("state must be known, unknown or disabled, not %r" % state)
        with self.lock:
            self.devices[device] = state

    def reset(self) -> None:
        with self.lock:
            self.positions.clear()
            self.requests.clear()
            self.counts.clear()
            self.dropped_future = 0
            self.distance = decoder.NaiveDistance()


class OsmAndHandler(BaseHTTPRequestHandler):
    """One connection: requests one after another (keep-alive), any method, each decoded by the
    server's Standin; a reply is one write with a Content-Length, a None from the Standin closes
    the connection without a reply."""

    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT_S
    disable_nagle_algorithm = True  # a reply is one write anyway; no 40 ms delayed-ACK stalls

    def setup(self) -> None:
        super().setup()
        self.connection_number = self.server.standin.new_connection()
        self.server.track(self.request, True)

    def finish(self) -> None:
        self.server.track(self.request, False)
        super().finish()

    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline or len(self.raw_requestline) > 65536:
                self.close_connection = True
                return
            if not self.parse_request():  # answers malformed requests itself (400, closing)
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else b""
            request = decoder.Request(self.command, self.path, body, self.headers.get("Content-Type"))
            reply = self.server.standin.handle(request, self.connection_number)
            if reply is None:
                self.close_connection = True  # handle() returns; the server shuts the socket: a FIN, no reply
                return
            status, payload = reply
            head = "HTTP/1.1 %d %s\r\nContent-Length: %d\r\n" % (status, REASONS.get(status, "Status"), len(payload))
            if self.close_connection:
                head += "Connection: close\r\n"
            self.wfile.write(head.encode("ascii") + b"\r\n" + payload)
        except (OSError, ValueError):  # timeouts, resets, a TLS handshake the client gave up
            self.close_connection = True

    def log_message(self, format, *args) -> None:  # noqa: A002 - http.server's signature
        pass


class OsmAndServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address, standin: Standin):
        self.standin = standin
        self.open_sockets = set()
        self.sockets_lock = threading.Lock()
        super().__init__(address, OsmAndHandler)

    def track(self, connection: socket.socket, open_: bool) -> None:
        with self.sockets_lock:
            (self.open_sockets.add if open_ else self.open_sockets.discard)(connection)

    def close_all(self) -> None:
        """Ends every open connection (server_close() alone leaves keep-alive ones running)."""
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for connection in sockets:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ControlHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        since = int((parse_qs(parts.query).get("since") or ["0"])[0])
        standin = self.server.standin
        if parts.path == "/positions":
            self.reply(200, standin.positions_since(since))
        elif parts.path == "/requests":
            self.reply(200, standin.requests_since(since))
        elif parts.path == "/stats":
            self.reply(200, standin.stats())
        else:
            self.reply(404, {"error": "no such path"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            order = json.loads(self.rfile.read(length) or b"{}")
            path = urlsplit(self.path).path
            if path == "/fault":
                self.server.standin.set_fault(order)
            elif path == "/device":
                self.server.standin.set_device(str(order["id"]), order.get("state", decoder.KNOWN))
            elif path == "/reset":
                self.server.standin.reset()
            else:
                self.reply(404, {"error": "no such path"})
                return
        except (ValueError, KeyError, TypeError) as error:
            self.reply(400, {"error": str(error)})
            return
        self.reply(200, self.server.standin.stats())

    def reply(self, status: int, value: Dict) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:  # noqa: A002
        pass


class ControlServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, standin: Standin):
        self.standin = standin
        super().__init__(address, ControlHandler)


class RunningStandin:
    """The stand-in served from this process (the self-test): both servers on threads."""

    def __init__(self, standin: Standin, port: int = 0, control_port: int = 0, host: str = "127.0.0.1",
                 certificate: Optional[Tuple[str, str]] = None):
        self.standin = standin
        self.osmand = OsmAndServer((host, port), standin)
        if certificate is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*certificate)
            # The handshake on the connection's own thread (its first read), not in accept().
            self.osmand.socket = context.wrap_socket(self.osmand.socket, server_side=True,
                                                     do_handshake_on_connect=False)
        self.control = ControlServer((host, control_port), standin)
        self.port, self.control_port = self.osmand.server_address[1], self.control.server_address[1]
        self.threads = [threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                                         name=name) for server, name in ((self.osmand, "osmand"),
                                                                         (self.control, "control"))]
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        for server in (self.osmand, self.control):
            server.shutdown()
            server.server_close()
        self.osmand.close_all()


class StandinProcess:
    """The stand-in as a process of its own (the end-to-end tests, the bench), so that its CPU is
    measured apart and the test driver's threads do not slow it; driven through its control port."""

    def __init__(self, workdir: Path, devices: Sequence[str] = (), any_device: bool = False, port: int = 0,
                 name: str = "standin", extra: Sequence[str] = (), certificate: Optional[Tuple[Path, Path]] = None):
        from .processes import spawn
        workdir.mkdir(parents=True, exist_ok=True)
        self.journal = workdir / (name + ".jsonl")
        self.stderr_path = workdir / (name + ".err")
        command = [sys.executable, str(Path(__file__).resolve()), "--port", str(port), "--journal", str(self.journal)]
        for device in devices:
            command += ["--device", device]
        if any_device:
            command.append("--any-device")
        if certificate is not None:
            command += ["--certfile", str(certificate[0]), "--keyfile", str(certificate[1])]
        self.scheme = "https" if certificate is not None else "http"
        command += list(extra)
        with open(self.stderr_path, "ab") as err:
            self.process = spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        ready, _, _ = select.select([self.process.stdout], [], [], 15)
        line = self.process.stdout.readline() if ready else b""
        try:
            ports = json.loads(line)
        except ValueError:
            self.stop()
            raise RuntimeError("the Traccar stand-in did not start: %r %s" % (
                line, self.stderr_path.read_text(errors="replace")[-400:]))
        self.port, self.control_port = ports["port"], ports["control"]
        self.pid = self.process.pid

    def url(self, device: str) -> str:
        return "%s://127.0.0.1:%d/?id=%s" % (self.scheme, self.port, device)

    def _call(self, path: str, order: Optional[Dict] = None) -> Dict:
        data = None if order is None else json.dumps(order).encode()
        request = UrlRequest("http://127.0.0.1:%d%s" % (self.control_port, path), data=data,
                             headers={"Content-Type": "application/json"} if data else {})
        with urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def positions(self, since: int = 0) -> List[Dict]:
        return self._call("/positions?since=%d" % since)["positions"]

    def requests(self, since: int = 0) -> List[Dict]:
        return self._call("/requests?since=%d" % since)["requests"]

    def stats(self) -> Dict:
        return self._call("/stats")

    def fault(self, **order) -> Dict:
        return self._call("/fault", order)

    def device(self, device: str, state: str) -> Dict:
        return self._call("/device", {"id": device, "state": state})

    def reset(self) -> Dict:
        return self._call("/reset", {})

    def stop(self) -> None:
        from .processes import terminate
        terminate(self.process, 5)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="the OsmAnd port (default: a free one)")
    parser.add_argument("--control-port", type=int, default=0, help="the control port (default: a free one)")
    parser.add_argument("--device", action="append", default=[], help="a known device id (repeatable)")
    parser.add_argument("--any-device", action="store_true", help="every id is known unless set otherwise")
    parser.add_argument("--journal", help="append each stored position to FILE as a JSON line")
    parser.add_argument("--future", type=int, default=decoder.FUTURE_LIMIT_S,
                        help="filter.future in seconds (default 86400; 0: off)")
    parser.add_argument("--certfile", help="the OsmAnd port speaks TLS with this certificate (PEM)")
    parser.add_argument("--keyfile", help="the certificate's private key (PEM)")
    parser.add_argument("--osmand-speed", choices=sorted(decoder.SPEED_TO_KNOTS), default="kn",
                        help="Traccar's osmand.speed: the unit of `speed` (default kn, knots)")
    args = parser.parse_args(argv)
    standin = Standin(args.device, args.any_device, Path(args.journal) if args.journal else None, args.future,
                      args.osmand_speed)
    if bool(args.certfile) != bool(args.keyfile):
        parser.error("--certfile and --keyfile go together")
    running = RunningStandin(standin, args.port, args.control_port, args.host,
                             (args.certfile, args.keyfile) if args.certfile else None)
    print(json.dumps({"port": running.port, "control": running.control_port}), flush=True)
    stop = threading.Event()
    import signal
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    stop.wait()
    running.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
