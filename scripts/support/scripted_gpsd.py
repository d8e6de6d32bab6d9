"""The scripted gpsd: gpsd on loopback TCP, saying what a script says (standard library only).

The one scripted gpsd of the Python tools: scripts/quirks.py, the fault-injection suite
(scripts/faults) and scripts/serve's load test run it in their own process. (The Swift tests
have theirs in process, Tests/LocTrackTests/Support/SocketpairGPSD.swift; floods come from
scripts/support/flood_gpsd.c.) The client's side of the wire (banner, replay, answers to
requests): gpsd_session.py.

It speaks just enough of gpsd's JSON protocol (`man gpsd_json`) for a client
such as loctrack, and replays a recorded JSON-lines file (e.g. everything
`gpspipe -w` printed) byte for byte, so a test is deterministic:

  1. on connect, send the VERSION banner, as gpsd does;
  2. wait for the client's ?WATCH (enable true, the default);
  3. send the script's lines in order, optionally paced;
  4. after the last line hang up, as gpsd does when it stops (FIN), or keep
     the connection open and silent with linger (a device that went away).

The script is a list of lines, or a function that returns an iterable of them (lines
generated as they are sent: a million epochs need not be held in memory).  The banner
is a capture's first line when that line is a VERSION report (from_file), else
`banner`, else gpsd 3.22's banner.  Every client gets its own replay from the start.
Other requests get gpsd-like answers: ?VERSION the banner, ?DEVICES an empty device
list, ?POLL the last TPV/SKY sent to that client, anything else an ERROR.

Every wait is bounded: a session waits for ?WATCH at most watch_timeout seconds, and
stop() ends every session (with a `with` block, at the block's end).

  from support.scripted_gpsd import FakeGpsd
  with FakeGpsd.from_file("x.log.gpsd.jsonl", epoch_delay=0.1) as server:
      run_client("127.0.0.1:%d" % server.port)
      server.wait_idle(timeout=5)
      print(server.clients[0].commands, server.clients[0].lines_sent)
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional

from .gpsd_session import DEFAULT_BANNER, Session, close_quietly, report_class

__all__ = ["DEFAULT_BANNER", "ClientRecord", "FakeGpsd", "load_lines", "report_class"]


def load_lines(path: str) -> List[bytes]:
    """The non-empty lines of a JSON-lines file, as bytes without line ends."""
    with open(path, "rb") as handle:
        data = handle.read()
    return [line.rstrip(b"\r") for line in data.split(b"\n") if line.strip()]


@dataclass
class ClientRecord:
    """What happened on one client connection (inspect after the fact)."""

    address: tuple
    commands: List[str] = field(default_factory=list)  # requests received, e.g. '?WATCH={"enable":true}'
    watched: bool = False
    lines_sent: int = 0  # replay lines sent (banner and answers not counted)
    ended: str = ""  # why the connection ended: "replay done", "client closed", ...
    finished: threading.Event = field(default_factory=threading.Event)
    connected_at: float = 0.0  # time.monotonic() at accept
    # (time.monotonic(), event) at the replay's milestones: "watch", "pause N S" (silent
    # after N lines), "resume N".
    timeline: List[tuple] = field(default_factory=list)

    def mark(self, event: str) -> None:
        self.timeline.append((time.monotonic(), event))

    def when(self, prefix: str) -> List[float]:
        """The times of the timeline events that start with prefix."""
        return [stamp for stamp, event in self.timeline if event.startswith(prefix)]


class FakeGpsd:
    """A loopback TCP server that replays gpsd JSON lines to each watching client.

    Parameters (all keyword-only except `lines`):
      lines         replay lines (bytes or str, without the newline), or a function
                    that returns an iterable of bytes lines (called once per client)
      host, port    where to listen; port 0 picks a free port (see `.port`)
      banner        the VERSION line sent on connect
      line_delay    seconds to sleep before every replay line after the first
      epoch_delay   seconds to sleep before a TPV whose time differs from the
                    previous TPV's (paces a replay by GPS epoch)
      linger        after the last line keep the connection open and silent for
                    this many seconds (-1: until the client closes), then hang up
      send_banner   False: accept and close at once, no banner (gpsd out of client slots)
      max_clients   stop accepting after this many connections (None: unlimited)
      pauses        {N: S}: after N replay lines stay connected and silent S seconds
      split_pause   with pauses: send the first half of the line after a pause before it
                    (half a line, then nothing), the rest after it
      not_gpsd      bytes: greet with these instead of a VERSION banner, answer
                    nothing, keep the connection until the client closes (b"": silent)
      chatter       with not_gpsd: send not_gpsd again every `chatter` seconds (0: without pause)
      poll_tpv      the TPV line ?POLL answers before the replay has sent a TPV
      watch_timeout seconds a session waits for the client's ?WATCH (then it hangs up)
    """

    def __init__(self, lines: Iterable, *, host: str = "127.0.0.1", port: int = 0,
                 banner: bytes = DEFAULT_BANNER, line_delay: float = 0.0, epoch_delay: float = 0.0,
                 linger: Optional[float] = None, send_banner: bool = True,
                 max_clients: Optional[int] = None, pauses: Optional[dict] = None,
                 split_pause: bool = False, not_gpsd: Optional[bytes] = None,
                 chatter: Optional[float] = None, poll_tpv: Optional[bytes] = None,
                 watch_timeout: float = 120.0):
        if callable(lines):
            self.lines: Optional[List[bytes]] = None  # generated: see script()
            self._generate: Callable[[], Iterable[bytes]] = lines
        else:
            self.lines = [line.encode() if isinstance(line, str) else bytes(line) for line in lines]
            self._generate = lambda: self.lines
        self.host = host
        self.requested_port = port
        self.banner = banner.encode() if isinstance(banner, str) else bytes(banner)
        self.line_delay = line_delay
        self.epoch_delay = epoch_delay
        self.linger = linger
        self.send_banner = send_banner
        self.max_clients = max_clients
        self.pauses = {int(after): float(seconds) for after, seconds in (pauses or {}).items()}
        self.split_pause = split_pause
        self.not_gpsd = not_gpsd.encode() if isinstance(not_gpsd, str) else not_gpsd
        self.chatter = chatter
        self.poll_tpv = poll_tpv.encode() if isinstance(poll_tpv, str) else poll_tpv
        self.watch_timeout = watch_timeout
        self.clients: List[ClientRecord] = []
        self.port: Optional[int] = None
        self._listener: Optional[socket.socket] = None
        self.stopping = threading.Event()
        self._accept_thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._sockets: List[socket.socket] = []

    def script(self) -> Iterable[bytes]:
        """The lines one client is sent (a fresh iteration for each)."""
        return self._generate()

    @classmethod
    def from_file(cls, path: str, **options) -> "FakeGpsd":
        """Replays a capture; its leading VERSION line (if any) becomes the banner."""
        lines = load_lines(path)
        if lines and report_class(lines[0]) == "VERSION" and "banner" not in options:
            options["banner"] = lines[0]
            lines = lines[1:]
        return cls(lines, **options)

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> int:
        """Starts listening and serving in background threads; returns the port."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.requested_port))
        listener.listen(16)
        listener.settimeout(0.2)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._accept_thread = threading.Thread(target=self._accept_loop, name="scripted_gpsd-accept", daemon=True)
        self._accept_thread.start()
        return self.port

    def stop(self) -> None:
        """Stops accepting and closes every connection still open."""
        self.stopping.set()
        if self._accept_thread:
            self._accept_thread.join(timeout=2)
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            # shutdown first: a plain close() does not end a recv() blocked in the session's reader
            # thread, and the kernel then keeps the connection open (no FIN) until that recv returns.
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            close_quietly(sock)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Waits until every client so far has finished; True if they all did."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for record in list(self.clients):
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not record.finished.wait(remaining):
                return False
        return True

    def __enter__(self) -> "FakeGpsd":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- internals ---------------------------------------------------------

    def _accept_loop(self) -> None:
        accepted = 0
        try:
            while not self.stopping.is_set():
                if self.max_clients is not None and accepted >= self.max_clients:
                    break
                try:
                    sock, address = self._listener.accept()
                except socket.timeout:
                    continue
                except OSError:
                    break
                accepted += 1
                record = ClientRecord(address=address, connected_at=time.monotonic())
                with self._lock:
                    self.clients.append(record)
                    self._sockets.append(sock)
                threading.Thread(target=self._serve, args=(sock, record),
                                 name="scripted_gpsd-client", daemon=True).start()
        finally:
            close_quietly(self._listener)

    def _serve(self, sock: socket.socket, record: ClientRecord) -> None:
        session = Session(self, sock, record)
        try:
            session.run()
        except OSError as error:  # the client went away mid-write
            record.ended = record.ended or ("socket error: %s" % error)
        finally:
            session.close()
            with self._lock:
                if sock in self._sockets:
                    self._sockets.remove(sock)
            record.finished.set()
