"""Clients of a server-sent-events stream (`GET /events`), many at once, read by one thread.

Each client is a plain socket: it writes its request, reads the response head, then either reads
the events as they come (each with the CLOCK_MONOTONIC nanoseconds at which its bytes arrived) or,
when stalled, never reads again, so that the server's writes to it pile up (its receive buffer
is made small first). One selector thread reads every reading client, so a hundred clients cost
one thread, and the time stamps are taken as the bytes leave the kernel.

Used by `make serve-test` (scripts/serve) and by the serve part of the benchmark.
"""

from __future__ import annotations

import re
import selectors
import socket
import threading
import time
from typing import Callable, Dict, List, Optional, Set, Tuple

from .http_raw import Response, connect, read_response
from .procfs import tcp_sockets
from .waiting import wait_until

_EVENT_END = re.compile(rb"\r?\n\r?\n")
_TIME = re.compile(r'"time"\s*:\s*"([^"]+)"')
TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
              "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN",
              "0B": "CLOSING"}


class Event:
    __slots__ = ("at_ns", "id", "name", "data")

    def __init__(self, at_ns: int, ident: Optional[str], name: str, data: Optional[str]):
        self.at_ns, self.id, self.name, self.data = at_ns, ident, name, data

    def number(self) -> Optional[int]:
        """N of an id RUN-N (docs/http.md), or None."""
        if self.id is None:
            return None
        try:
            return int(self.id.rsplit("-", 1)[-1])
        except ValueError:
            return None


class Dechunker:
    """Transfer-Encoding: chunked, undone as the bytes come (a stream's chunks may split anywhere)."""

    def __init__(self):
        self.pending = b""
        self.left = 0  # bytes of the current chunk still to come
        self.skip = 0  # the CRLF after a chunk's data still to skip
        self.done = False

    def feed(self, data: bytes) -> bytes:
        self.pending += data
        out = []
        while self.pending and not self.done:
            if self.skip:
                taken = min(self.skip, len(self.pending))
                self.pending = self.pending[taken:]
                self.skip -= taken
                continue
            if self.left:
                piece = self.pending[:self.left]
                out.append(piece)
                self.pending = self.pending[len(piece):]
                self.left -= len(piece)
                if not self.left:
                    self.skip = 2
                continue
            line_end = self.pending.find(b"\r\n")
            if line_end < 0:
                break
            size_text = self.pending[:line_end].split(b";")[0].strip()
            self.pending = self.pending[line_end + 2:]
            try:
                self.left = int(size_text, 16)
            except ValueError:
                self.done = True  # not chunked after all: stop here rather than invent data
                break
            if self.left == 0:
                self.done = True
        return b"".join(out)


class SseClient:
    """One stream. `keep_data`: keep each event's data (True: the text; a function: what it returns
    for the text, e.g. only the fix's time); otherwise only ids and names are kept, so a long
    flood costs little memory here. A `status` event's text is always kept: there are few, and
    one of them tells that a run is over (gpsd_unreachable)."""

    def __init__(self, port: int, path: str = "/events", headers: Optional[Dict[str, str]] = None,
                 keep_data=False, stalled: bool = False, rcvbuf: Optional[int] = None,
                 host: str = "127.0.0.1", timeout: float = 10.0):
        self.port, self.path, self.keep_data, self.stalled = port, path, keep_data, stalled
        self.events: List[Event] = []
        self.comments = 0
        self.eof = False
        self.error: Optional[str] = None
        self.buffer = b""
        self.bytes = 0
        self.eof_at_ns: Optional[int] = None
        self.sock = connect(port, host, timeout, rcvbuf=rcvbuf if rcvbuf is not None else (4096 if stalled else None))
        lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (host, port), "Accept: text/event-stream",
                 "Cache-Control: no-cache"]
        lines += ["%s: %s" % item for item in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        self.response: Response = read_response(self.sock, timeout, head_only=True)
        self.local_port = self.sock.getsockname()[1]
        chunked = "chunked" in (self.response.header("Transfer-Encoding") or "").lower()
        self.dechunker: Optional[Dechunker] = Dechunker() if chunked else None
        self._leftover_from_head()

    def _leftover_from_head(self) -> None:
        # The reads that brought the head may have brought the stream's first bytes too.
        if self.response.leftover:
            self.feed(self.response.leftover, time.monotonic_ns())

    @property
    def ok(self) -> bool:
        return self.response.status == 200 and "text/event-stream" in (self.response.header("Content-Type") or "")

    def feed(self, chunk: bytes, at_ns: int) -> None:
        self.bytes += len(chunk)
        if self.dechunker is not None:
            chunk = self.dechunker.feed(chunk)
        self.buffer += chunk
        if b"\n\n" not in self.buffer and b"\r\n\r\n" not in self.buffer:
            return
        blocks = _EVENT_END.split(self.buffer)
        self.buffer = blocks.pop()
        for block in blocks:
            self._event(block, at_ns)

    def _event(self, block: bytes, at_ns: int) -> None:
        ident, name, lines = None, "message", []
        seen_field = False
        for line in block.split(b"\n"):
            line = line.rstrip(b"\r")
            if not line:
                continue
            if line.startswith(b":"):
                self.comments += 1
                continue
            key, _, value = line.partition(b":")
            if value.startswith(b" "):
                value = value[1:]
            seen_field = True
            if key == b"id":
                ident = value.decode("utf-8", "replace")
            elif key == b"event":
                name = value.decode("utf-8", "replace")
            elif key == b"data":
                lines.append(value)
        if not seen_field:
            return
        data = None
        if lines and (self.keep_data or name == "status"):
            data = b"\n".join(lines).decode("utf-8", "replace")
            if name != "status" and callable(self.keep_data):
                data = self.keep_data(data)
        self.events.append(Event(at_ns, ident, name, data))

    def read_until_eof(self, timeout: float) -> bool:
        """Reads (blocking) until the server closes, or timeout seconds; True at EOF."""
        deadline = time.monotonic() + timeout
        while not self.eof and time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(262144)
            except socket.timeout:
                break
            except OSError as error:
                self.error = str(error)
                self.eof = True
                break
            if not chunk:
                self.eof = True
                self.eof_at_ns = time.monotonic_ns()
                break
            self.feed(chunk, time.monotonic_ns())
        return self.eof

    def tcp_state(self) -> Optional[str]:
        """This connection's state as the kernel sees it from our side: CLOSE_WAIT once the server
        has closed its end (what a stalled client that does not read shows), ESTABLISHED while open."""
        return tcp_state_of(self.local_port, self.port)

    def server_state(self) -> Optional[str]:
        """The server's end of this connection as the kernel sees it (loopback: both ends are here)."""
        return tcp_state_of(self.port, self.local_port)

    def cut_off(self) -> bool:
        """Whether the server has ended this stream. A stalled client does not see the server's FIN
        until it has read everything queued before it (megabytes on loopback), so the server's end
        tells first: FIN_WAIT1 with its send queue still full, or gone after a reset."""
        mine, theirs = self.tcp_state(), self.server_state()
        return mine in ("CLOSE_WAIT", "CLOSE", None) or theirs in (
            "FIN_WAIT1", "FIN_WAIT2", "CLOSING", "LAST_ACK", "TIME_WAIT", "CLOSE", None)

    def numbers(self, last: Optional[Callable[[Event], bool]] = None) -> List[Optional[int]]:
        """The events' id numbers; with `last`, only through the first event it picks."""
        return [event.number() for event in self.through(last)]

    def through(self, last: Optional[Callable[[Event], bool]]) -> List[Event]:
        """The events up to and including the first that `last` picks (all of them when none does,
        or when `last` is None)."""
        if last is not None:
            for index, event in enumerate(self.events):
                if last(event):
                    return self.events[:index + 1]
        return self.events

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def tcp_state_of(local_port: int, remote_port: int) -> Optional[str]:
    for parts in tcp_sockets():
        if len(parts) < 4:
            continue
        local, remote = parts[1], parts[2]
        if int(local.rsplit(":", 1)[1], 16) == local_port and int(remote.rsplit(":", 1)[1], 16) == remote_port:
            return TCP_STATES.get(parts[3], parts[3])
    return None


class Fleet:
    """Many SseClients; the reading ones read by one selector thread from start() to stop()."""

    def __init__(self, clients: List[SseClient]):
        self.clients = clients
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.thread: Optional[threading.Thread] = None
        self.lock = threading.Lock()

    def start(self) -> "Fleet":
        for client in self.clients:
            if not client.stalled and client.ok:
                client.sock.setblocking(False)
                self.selector.register(client.sock, selectors.EVENT_READ, client)
        self.thread = threading.Thread(target=self._run, name="sse-fleet", daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self.stopping.is_set():
            ready = self.selector.select(0.1)
            now = time.monotonic_ns()
            for key, _ in ready:
                client: SseClient = key.data
                try:
                    chunk = client.sock.recv(262144)
                except BlockingIOError:
                    continue
                except OSError as error:
                    chunk = b""
                    client.error = str(error)
                if not chunk:
                    client.eof = True
                    client.eof_at_ns = now
                    self.selector.unregister(client.sock)
                    continue
                with self.lock:
                    client.feed(chunk, now)

    def wait_for(self, last: Callable[[Event], bool], timeout: float = 30.0) -> bool:
        """Waits until every reading stream that is still open has got an event that `last` picks
        (the run's last event, e.g. gpsd_unreachable); False after timeout, and the caller's checks
        then show which streams lack what. Compare the streams through that event (numbers(last)):
        what the server publishes after it may be on its way to some streams when the fleet stops."""
        got: Set[int] = set()  # id() of the streams that have it
        looked: Dict[int, int] = {}  # id() of a stream -> how many of its events were looked at

        def all_got_it() -> bool:
            with self.lock:
                open_streams = [client for client in self.reading() if client.ok and not client.eof]
                for client in open_streams:
                    key = id(client)
                    if key not in got:
                        if any(last(event) for event in client.events[looked.get(key, 0):]):
                            got.add(key)
                        looked[key] = len(client.events)
                return all(id(client) in got for client in open_streams)

        return bool(wait_until(all_got_it, timeout))

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        self.selector.close()

    def close(self) -> None:
        self.stop()
        for client in self.clients:
            client.close()

    def reading(self) -> List[SseClient]:
        return [client for client in self.clients if not client.stalled]

    def stalled(self) -> List[SseClient]:
        return [client for client in self.clients if client.stalled]

    def event_count(self) -> int:
        with self.lock:
            return sum(len(client.events) for client in self.clients)


def gaps(numbers: List[Optional[int]]) -> List[Tuple[Optional[int], Optional[int]]]:
    """(previous, next) wherever a stream's ids do not count up by one (or an id is missing)."""
    found = []
    for before, after in zip(numbers, numbers[1:]):
        if before is None or after is None or after != before + 1:
            found.append((before, after))
    return found


def gpsd_unreachable(event: Event) -> bool:
    """Whether this is the server's status event that gpsd is unreachable. A run fed by the scripted
    gpsd or the flood emulator ends with their hang-up, and this event is the run's last: every
    reading stream gets it. The server goes on publishing a status at each attempt to reconnect
    (each names its next delay, drawn from 0.25-0.5 s, then 0.5-1 s, 1-2 s, ... up to 30 s), so
    the streams never stay quiet for good, and such a status may be on its way to some of them
    when the fleet stops reading."""
    return event.name == "status" and '"gpsd":"unreachable"' in (event.data or "")


def fix_time(data: str) -> Optional[str]:
    """The "time" of a fix event's data, for SseClient's keep_data: a hundred streams keep only the
    fix's time, not each whole event, and a fix is matched to gpsd's by its time."""
    match = _TIME.search(data)
    return match.group(1) if match else None


def watch_cut_offs(stalled: List[SseClient], rss_kb: Callable[[], Optional[int]], samples: List[int], cap: float,
                   grace: float, feeding: Callable[[], bool] = lambda: True) -> Tuple[Dict[int, float], Optional[int]]:
    """Waits for the server to cut off the stalled streams, sampling its memory meanwhile: every
    0.25 s rss_kb() (0 when unreadable) is appended to samples and each stalled stream checked.
    Stops `grace` seconds after the last cut (what the memory does once every stalled stream is gone
    belongs to the measure), after `cap` seconds, or when feeding() turns false.

    Returns {index in stalled: seconds from the start to its cut} and the sample at the moment the
    last one was cut (None unless all were)."""
    cut: Dict[int, float] = {}
    last_cut_rss: Optional[int] = None
    start = time.monotonic()
    while feeding() and time.monotonic() - start < cap:
        time.sleep(0.25)
        samples.append(rss_kb() or 0)
        for index, client in enumerate(stalled):
            if index not in cut and client.cut_off():
                cut[index] = time.monotonic() - start
                if len(cut) == len(stalled):
                    last_cut_rss = samples[-1]
        if len(cut) == len(stalled) and time.monotonic() - start > max(cut.values()) + grace:
            break
    return cut, last_cut_rss
