"""One client of the scripted gpsd (scripted_gpsd.py): gpsd's side of the wire.

What gpsd says (the VERSION banner, the replay, the answers to requests) and what it
reads (the client's requests, parsed as gpsd parses them). Every wait here ends when the
client closes, when the server stops, or at a deadline (the ?WATCH wait: the server's
watch_timeout; a pause or a linger: its length; the wait after a hang-up, and for the reader
at the close: 5 s).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from typing import Callable, List, Optional

DEFAULT_BANNER = b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}'

_CLASS_RE = re.compile(rb'"class"\s*:\s*"([A-Za-z0-9_]+)"')
_TIME_RE = re.compile(rb'"time"\s*:\s*"([^"]*)"')
_REQUEST_RE = re.compile(rb'\?([A-Za-z]+)')

HANGUP_WAIT = 5.0  # seconds an orderly hang-up waits for the client to close its end


def report_class(line: bytes) -> Optional[str]:
    """The `class` of a gpsd JSON line, read from its text (no full parse)."""
    match = _CLASS_RE.search(line)
    return match.group(1).decode("ascii") if match else None


def report_time(line: bytes) -> Optional[bytes]:
    """The `time` of a gpsd JSON line, as its text (no full parse)."""
    match = _TIME_RE.search(line)
    return match.group(1) if match else None


def close_quietly(sock: Optional[socket.socket]) -> None:
    if sock is None:
        return
    try:
        sock.close()
    except OSError:
        pass


class Session:
    """One client connection: a reader thread answers requests, run() replays.

    `server` is the FakeGpsd (its options and its stop event), `record` the connection's
    ClientRecord."""

    def __init__(self, server, sock: socket.socket, record):
        self.server = server
        self.sock = sock
        self.record = record
        self.end = b"\n"
        self.send_lock = threading.Lock()
        self.watch = threading.Event()
        self.client_closed = threading.Event()
        self.last = {}  # class -> last line sent, for ?POLL
        if server.poll_tpv:
            self.last["TPV"] = server.poll_tpv
        self.readers: List[threading.Thread] = []  # the threads that recv() on sock: close() waits for them

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.sock.sendall(data)

    def _stopping(self) -> bool:
        return self.server.stopping.is_set()

    def _gone(self) -> str:
        return "client closed" if self.client_closed.is_set() else "server stopped"

    def run(self) -> None:
        server, record = self.server, self.record
        if not server.send_banner:
            record.ended = "closed without banner"
            return
        if server.not_gpsd is not None:
            self._not_gpsd()
            return
        self.send(server.banner + self.end)
        self._start_reader(self._read_requests, "scripted_gpsd-reader")
        if not self._wait_watch():
            return
        record.watched = True
        record.mark("watch")
        if not self._replay():
            return
        if server.linger is not None:
            self._sleep(None if server.linger < 0 else server.linger)
            if self.client_closed.is_set():
                record.ended = "client closed"
                return
        record.ended = "replay done"
        self._hang_up()

    def _wait_watch(self) -> bool:
        """Waits for the client's ?WATCH: True once it came; False (and why, in the record) if
        the client closed, the server stopped or watch_timeout passed first."""
        deadline = time.monotonic() + self.server.watch_timeout
        while not self.watch.wait(0.1):
            if self.client_closed.is_set() or self._stopping():
                self.record.ended = "client closed before ?WATCH"
                return False
            if time.monotonic() >= deadline:
                self.record.ended = "no ?WATCH within %g s" % self.server.watch_timeout
                return False
        return True

    def _replay(self) -> bool:
        """Sends the script's lines; False if the session ended during it (client closed,
        server stopped: the record says which)."""
        server, record = self.server, self.record
        previous_time = None
        rest_of_split = b""
        for index, line in enumerate(server.script()):
            if self._stopping():
                record.ended = "server stopped"
                return False
            if self.client_closed.is_set():
                record.ended = "client closed"
                return False
            if index > 0 and server.line_delay > 0:
                time.sleep(server.line_delay)
            kind = report_class(line)
            if kind == "TPV" and server.epoch_delay > 0:
                current = report_time(line)
                if current is not None and current != previous_time and previous_time is not None:
                    time.sleep(server.epoch_delay)
                if current is not None:
                    previous_time = current
            if index in server.pauses:
                if server.split_pause:
                    half = max(1, len(line) // 2)
                    self.send(line[:half])
                    line, rest_of_split = line[:half], line[half:]
                record.mark("pause %d %g" % (index, server.pauses[index]))
                if not self._sleep(server.pauses[index]):
                    record.ended = self._gone()
                    return False
                record.mark("resume %d" % index)
            if rest_of_split:
                self.send(rest_of_split + self.end)
                line, rest_of_split = line + rest_of_split, b""
            else:
                self.send(line + self.end)
            record.lines_sent += 1
            if kind:
                self.last[kind] = line
        return True

    def _sleep(self, seconds: Optional[float]) -> bool:
        """Stays silent `seconds` (None: until the client closes or the server stops); False if
        the client closed or the server stopped meanwhile."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while deadline is None or time.monotonic() < deadline:
            if self.client_closed.is_set() or self._stopping():
                return False
            left = 0.05 if deadline is None else deadline - time.monotonic()
            time.sleep(min(0.05, max(0.0, left)))
        return True

    def _not_gpsd(self) -> None:
        """A peer that is not gpsd: its own greeting (or nothing), no answers, never a VERSION."""
        server, record = self.server, self.record
        self._start_reader(self._discard_requests, "scripted_gpsd-discard")
        next_chatter = time.monotonic()
        while not self.client_closed.is_set() and not self._stopping():
            if server.not_gpsd and time.monotonic() >= next_chatter:
                try:
                    self.send(server.not_gpsd)
                except OSError:
                    break
                record.lines_sent += 1
                if server.chatter is None:
                    next_chatter = float("inf")
                elif server.chatter == 0:
                    continue  # as fast as the client reads
                else:
                    next_chatter += server.chatter
            time.sleep(0.02)
        record.ended = self._gone()

    def close(self) -> None:
        """Closes the connection however the session ended (hung up, client gone, server stopped
        mid-replay), so that the client sees it end now.

        A plain close() while the reader thread is blocked in recv() does not release the socket:
        the kernel sends no FIN until that recv returns, which for a client
        waiting silently for gpsd is never, and stop() no longer lists the socket once the session
        is over. shutdown(SHUT_RD) ends the recv and sends nothing; the reader is joined, so no
        thread uses the descriptor's number after the close (it may be another socket's by then)."""
        try:
            self.sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass  # closed already by the server's stop()
        for reader in self.readers:
            reader.join(HANGUP_WAIT)
        close_quietly(self.sock)

    def _start_reader(self, target: Callable[[], None], name: str) -> None:
        reader = threading.Thread(target=target, name=name, daemon=True)
        self.readers.append(reader)
        reader.start()

    def _receive(self, consume: Callable[[bytes], None]) -> None:
        """Passes what the client sends to consume(), chunk by chunk, until it closes (then marks
        it closed). The server's stop() and close() shut the socket down, which ends the recv."""
        try:
            while True:
                try:
                    chunk = self.sock.recv(4096)
                except OSError:
                    break
                if not chunk:
                    break
                consume(chunk)
        finally:
            self.client_closed.set()

    def _discard_requests(self) -> None:
        self._receive(lambda chunk: self.record.commands.append(chunk.decode("utf-8", "replace").strip()))

    def _hang_up(self) -> None:
        # Orderly: FIN after everything sent, then wait (briefly) for the client to
        # close, so a request it sends meanwhile cannot turn the close into an RST
        # that would discard data it has not read yet.
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            return
        self.client_closed.wait(HANGUP_WAIT)

    def _read_requests(self) -> None:
        pending = [b""]  # what has come of a request not yet complete

        def handle(chunk: bytes) -> None:
            pending[0] = self._handle(pending[0] + chunk)
        self._receive(handle)

    def _handle(self, buffer: bytes) -> bytes:
        """Handles every complete request in buffer; returns the unconsumed rest."""
        decoder = json.JSONDecoder()
        while True:
            match = _REQUEST_RE.search(buffer)
            if not match:
                return buffer[-1:] if buffer.endswith(b"?") else b""
            name = match.group(1).decode("ascii", "replace").upper()
            end = match.end()
            argument = None
            if buffer[end:end + 1] == b"=":
                text = buffer[end + 1:].decode("utf-8", "replace")
                try:
                    argument, used = decoder.raw_decode(text)
                except ValueError:
                    if b";" not in buffer[end:] and b"\n" not in buffer[end:]:
                        return buffer[match.start():]  # incomplete: wait for more
                    argument, used = None, len(text.split(";")[0].split("\n")[0])
                end = end + 1 + len(text[:used].encode("utf-8"))
            elif end == len(buffer):
                return buffer[match.start():]  # might be a longer name: wait for ';'
            if buffer[end:end + 1] == b";":
                end += 1
            self.record.commands.append(buffer[match.start():end].decode("utf-8", "replace").rstrip(";"))
            self._answer(name, argument)
            buffer = buffer[end:]

    def _answer(self, name: str, argument) -> None:
        server, end = self.server, self.end
        try:
            if name == "WATCH":
                enable = not (isinstance(argument, dict) and argument.get("enable") is False)
                if enable and not self.watch.is_set():
                    self.watch.set()  # the replay carries gpsd's own DEVICES/WATCH answer
                elif not enable:
                    self.send(b'{"class":"WATCH","enable":false}' + end)
            elif name == "VERSION":
                self.send(server.banner + end)
            elif name == "DEVICES":
                self.send(b'{"class":"DEVICES","devices":[]}' + end)
            elif name == "POLL":
                tpv = self.last.get("TPV", b"")
                sky = self.last.get("SKY", b"")
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
                self.send(b'{"class":"POLL","time":"%s","active":%d,"tpv":[%s],"gst":[],"sky":[%s]}'
                          % (stamp.encode(), 1 if tpv else 0, tpv, sky) + end)
            else:
                self.send(b'{"class":"ERROR","message":"Unrecognized request \'%s\'"}' % name.encode() + end)
        except OSError:
            pass
