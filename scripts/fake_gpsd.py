#!/usr/bin/env python3
"""fake_gpsd: a scripted gpsd on loopback TCP (Python 3 standard library only).

It speaks just enough of gpsd's JSON protocol (`man gpsd_json`) for a client
such as loctrack, and replays a recorded JSON-lines file (e.g. everything
`gpspipe -w` printed) byte for byte, so a test is deterministic:

  1. on connect, send the VERSION banner, as gpsd does;
  2. wait for the client's ?WATCH (enable true, the default);
  3. send the file's lines in order, optionally paced;
  4. after the last line (or after --hangup-after N lines) hang up, as gpsd
     does when it stops: FIN by default, RST with --reset, or keep the
     connection open and silent with --linger (a device that went away).

Fault options (scripts/faults uses them; none changes the default replay):
--pause N:S stays silent S seconds after N replay lines (a receiver that goes
quiet; with --split-pause the next line is cut in two around the pause: half a
line, then nothing), --burst sends the lines between pauses in one write (many
reports in one TCP segment), --not-gpsd TEXT greets with TEXT instead of a
VERSION banner and then says nothing more or, with --chatter S, repeats TEXT
every S seconds (a peer that is not gpsd), --poll-tpv LINE is the TPV that
?POLL answers before the replay has sent one (gpsd's last fix of a receiver
that has since gone silent).

The banner is the file's first line when that line is a VERSION report (it is
then not sent a second time), else --banner, else gpsd 3.22's banner.  Every
client gets its own replay from the start.  Other requests get gpsd-like
answers: ?VERSION the banner, ?DEVICES an empty device list, ?POLL the last
TPV/SKY sent to that client, anything else an ERROR.

Command line (prints the port it listens on as one line on stdout, then serves
until --max-clients clients have come and gone, or SIGINT/SIGTERM):

  fake_gpsd.py [--host 127.0.0.1] [--port 0] [--port-file F]
               [--line-delay S] [--epoch-delay S]
               [--hangup-after N] [--partial-line] [--reset] [--linger S]
               [--no-banner] [--no-watch] [--max-clients N] [-v]
               [--pause N:S ...] [--split-pause] [--burst]
               [--not-gpsd TEXT [--chatter S]] [--poll-tpv LINE] FILE

As a library:

  from fake_gpsd import FakeGpsd
  with FakeGpsd.from_file("x.log.gpsd.jsonl", hangup_after=10) as server:
      run_client("127.0.0.1:%d" % server.port)
      server.wait_idle(timeout=5)
      print(server.clients[0].commands, server.clients[0].lines_sent)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional

DEFAULT_BANNER = b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}'

_CLASS_RE = re.compile(rb'"class"\s*:\s*"([A-Za-z0-9_]+)"')
_TIME_RE = re.compile(rb'"time"\s*:\s*"([^"]*)"')
_REQUEST_RE = re.compile(rb'\?([A-Za-z]+)')


def report_class(line: bytes) -> Optional[str]:
    """The `class` of a gpsd JSON line, read from its text (no full parse)."""
    match = _CLASS_RE.search(line)
    return match.group(1).decode("ascii") if match else None


def load_lines(path: str) -> List[bytes]:
    """The non-empty lines of a JSON-lines file, as bytes without line ends ('-' = stdin)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
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
    ended: str = ""  # why the connection ended: "replay done", "hung up after N", "client closed", ...
    finished: threading.Event = field(default_factory=threading.Event)
    connected_at: float = 0.0  # time.monotonic() at accept
    # (time.monotonic(), event) at the replay's milestones: "watch", "burst N" (N lines
    # written at once), "pause N S" (silent after N lines), "resume N", "hangup N".
    timeline: List[tuple] = field(default_factory=list)

    def mark(self, event: str) -> None:
        self.timeline.append((time.monotonic(), event))

    def when(self, prefix: str) -> List[float]:
        """The times of the timeline events that start with prefix."""
        return [stamp for stamp, event in self.timeline if event.startswith(prefix)]


class FakeGpsd:
    """A loopback TCP server that replays gpsd JSON lines to each watching client.

    Parameters (all keyword-only except `lines`):
      lines         replay lines (bytes or str, without the newline)
      host, port    where to listen; port 0 picks a free port (see `.port`)
      banner        the VERSION line sent on connect
      line_delay    seconds to sleep before every replay line after the first
      epoch_delay   seconds to sleep before a TPV whose time differs from the
                    previous TPV's (paces a replay by GPS epoch)
      hangup_after  hang up after this many replay lines (None: after all)
      partial_line  with hangup_after: first send half of the next line, no newline
      reset         hang up with a TCP RST instead of an orderly FIN
      linger        after the last line keep the connection open and silent for
                    this many seconds (-1: until the client closes), then hang up
      send_banner   False: accept and close at once, no banner (gpsd out of client slots)
      require_watch False: start the replay right after the banner, without ?WATCH
      max_clients   stop accepting after this many connections (None: unlimited)
      log           callable(str) for progress messages, or None
      pauses        {N: S}: after N replay lines stay connected and silent S seconds
      split_pause   with pauses: send the first half of the line after a pause before it
                    (half a line, then nothing), the rest after it
      burst         write the lines between pauses (and before a hang-up) with one
                    sendall; line_delay and epoch_delay are then not applied
      not_gpsd      bytes: greet with these instead of a VERSION banner, answer
                    nothing, keep the connection until the client closes (b"": silent)
      chatter       with not_gpsd: send not_gpsd again every `chatter` seconds (0: without pause)
      poll_tpv      the TPV line ?POLL answers before the replay has sent a TPV
    """

    def __init__(self, lines: Iterable, *, host: str = "127.0.0.1", port: int = 0,
                 banner: bytes = DEFAULT_BANNER, line_delay: float = 0.0, epoch_delay: float = 0.0,
                 hangup_after: Optional[int] = None, partial_line: bool = False, reset: bool = False,
                 linger: Optional[float] = None, send_banner: bool = True, require_watch: bool = True,
                 max_clients: Optional[int] = None, log=None, pauses: Optional[dict] = None,
                 split_pause: bool = False, burst: bool = False, not_gpsd: Optional[bytes] = None,
                 chatter: Optional[float] = None, poll_tpv: Optional[bytes] = None):
        self.lines = [line.encode() if isinstance(line, str) else bytes(line) for line in lines]
        self.host = host
        self.requested_port = port
        self.banner = banner.encode() if isinstance(banner, str) else bytes(banner)
        self.line_delay = line_delay
        self.epoch_delay = epoch_delay
        self.hangup_after = hangup_after
        self.partial_line = partial_line
        self.reset = reset
        self.linger = linger
        self.send_banner = send_banner
        self.require_watch = require_watch
        self.max_clients = max_clients
        self.log = log
        self.pauses = {int(after): float(seconds) for after, seconds in (pauses or {}).items()}
        self.split_pause = split_pause
        self.burst = burst
        self.not_gpsd = not_gpsd.encode() if isinstance(not_gpsd, str) else not_gpsd
        self.chatter = chatter
        self.poll_tpv = poll_tpv.encode() if isinstance(poll_tpv, str) else poll_tpv
        self.clients: List[ClientRecord] = []
        self.port: Optional[int] = None
        self._listener: Optional[socket.socket] = None
        self._stopping = threading.Event()
        self._accept_thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._sockets: List[socket.socket] = []
        self._accepting_done = threading.Event()

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
        self._accept_thread = threading.Thread(target=self._accept_loop, name="fake_gpsd-accept", daemon=True)
        self._accept_thread.start()
        self._say("listening on %s:%d" % (self.host, self.port))
        return self.port

    def stop(self) -> None:
        """Stops accepting and closes every connection still open."""
        self._stopping.set()
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
            _close_quietly(sock)

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Waits until every client so far has finished; True if they all did."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for record in list(self.clients):
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not record.finished.wait(remaining):
                return False
        return True

    def serve_until_done(self) -> None:
        """Blocks until max_clients clients have been served (or stop() / a signal)."""
        while not self._stopping.is_set():
            if self._accepting_done.is_set() and self.wait_idle(timeout=0):
                break
            time.sleep(0.05)

    def __enter__(self) -> "FakeGpsd":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- internals ---------------------------------------------------------

    def _say(self, message: str) -> None:
        if self.log:
            self.log("fake_gpsd: " + message)

    def _accept_loop(self) -> None:
        accepted = 0
        try:
            while not self._stopping.is_set():
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
                                 name="fake_gpsd-client", daemon=True).start()
        finally:
            self._accepting_done.set()
            _close_quietly(self._listener)

    def _serve(self, sock: socket.socket, record: ClientRecord) -> None:
        session = _Session(self, sock, record)
        try:
            session.run()
        except OSError as error:  # the client went away mid-write
            record.ended = record.ended or ("socket error: %s" % error)
        finally:
            _close_quietly(sock)
            with self._lock:
                if sock in self._sockets:
                    self._sockets.remove(sock)
            self._say("client %s:%s done: %s, %d lines sent" %
                      (record.address[0], record.address[1], record.ended, record.lines_sent))
            record.finished.set()


class _Session:
    """One client connection: a reader thread answers requests, run() replays."""

    def __init__(self, server: FakeGpsd, sock: socket.socket, record: ClientRecord):
        self.server = server
        self.sock = sock
        self.record = record
        self.send_lock = threading.Lock()
        self.watch = threading.Event()
        self.client_closed = threading.Event()
        self.last = {}  # class -> last line sent, for ?POLL
        if server.poll_tpv:
            self.last["TPV"] = server.poll_tpv
        self.pending = b""  # --burst: lines not written yet

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.sock.sendall(data)

    def run(self) -> None:
        server, record = self.server, self.record
        if not server.send_banner:
            record.ended = "closed without banner"
            return
        if server.not_gpsd is not None:
            self._not_gpsd()
            return
        self.send(server.banner + b"\n")
        threading.Thread(target=self._read_requests, name="fake_gpsd-reader", daemon=True).start()
        if server.require_watch:
            while not self.watch.wait(0.1):
                if self.client_closed.is_set() or server._stopping.is_set():
                    record.ended = "client closed before ?WATCH"
                    return
        record.watched = True
        record.mark("watch")
        previous_time = None
        rest_of_split = b""
        for index, line in enumerate(server.lines):
            if server.hangup_after is not None and index >= server.hangup_after:
                self._flush_burst(index)
                if server.partial_line:
                    self.send(line[: max(1, len(line) // 2)])
                record.ended = "hung up after %d lines" % index
                record.mark("hangup %d" % index)
                self._hang_up()
                return
            if server._stopping.is_set():
                record.ended = "server stopped"
                return
            if self.client_closed.is_set():
                record.ended = "client closed"
                return
            if index > 0 and server.line_delay > 0 and not server.burst:
                time.sleep(server.line_delay)
            kind = report_class(line)
            if kind == "TPV" and server.epoch_delay > 0 and not server.burst:
                match = _TIME_RE.search(line)
                current = match.group(1) if match else None
                if current is not None and previous_time is not None and current != previous_time:
                    time.sleep(server.epoch_delay)
                if current is not None:
                    previous_time = current
            if index in server.pauses:
                self._flush_burst(index)
                if server.split_pause:
                    half = max(1, len(line) // 2)
                    self.send(line[:half])
                    line, rest_of_split = line[:half], line[half:]
                record.mark("pause %d %g" % (index, server.pauses[index]))
                if not self._sleep(server.pauses[index]):
                    record.ended = "client closed" if self.client_closed.is_set() else "server stopped"
                    return
                record.mark("resume %d" % index)
            if rest_of_split:
                self.send(rest_of_split + b"\n")
                line, rest_of_split = line + rest_of_split, b""
            elif server.burst:
                self.pending += line + b"\n"
            else:
                self.send(line + b"\n")
            record.lines_sent += 1
            if kind:
                self.last[kind] = line
        self._flush_burst(len(server.lines))
        if server.linger is not None:
            deadline = None if server.linger < 0 else time.monotonic() + server.linger
            while not self.client_closed.is_set() and not server._stopping.is_set():
                if deadline is not None and time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
            if self.client_closed.is_set():
                record.ended = "client closed"
                return
        record.ended = "replay done"
        self._hang_up()

    def _flush_burst(self, index: int) -> None:
        """--burst: writes the lines gathered since the last pause in one sendall."""
        if self.pending:
            data, self.pending = self.pending, b""
            self.send(data)
            self.record.mark("burst %d" % data.count(b"\n"))

    def _sleep(self, seconds: float) -> bool:
        """Stays silent `seconds`; False if the client closed or the server stopped meanwhile."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.client_closed.is_set() or self.server._stopping.is_set():
                return False
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        return True

    def _not_gpsd(self) -> None:
        """A peer that is not gpsd: its own greeting (or nothing), no answers, never a VERSION."""
        server, record = self.server, self.record
        threading.Thread(target=self._discard_requests, name="fake_gpsd-discard", daemon=True).start()
        next_chatter = time.monotonic()
        while not self.client_closed.is_set() and not server._stopping.is_set():
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
        record.ended = "client closed" if self.client_closed.is_set() else "server stopped"

    def _receive(self, consume: Callable[[bytes], None]) -> None:
        """Passes what the client sends to consume(), chunk by chunk, until it closes (then marks it closed)."""
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
        if self.server.reset:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return  # the close in _serve sends the RST
        # Orderly: FIN after everything sent, then wait (briefly) for the client to
        # close, so a request it sends meanwhile cannot turn the close into an RST
        # that would discard data it has not read yet.
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            return
        self.client_closed.wait(5.0)

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
        server = self.server
        try:
            if name == "WATCH":
                enable = not (isinstance(argument, dict) and argument.get("enable") is False)
                if enable and not self.watch.is_set():
                    self.watch.set()  # the replay carries gpsd's own DEVICES/WATCH answer
                elif not enable:
                    self.send(b'{"class":"WATCH","enable":false}\n')
            elif name == "VERSION":
                self.send(server.banner + b"\n")
            elif name == "DEVICES":
                self.send(b'{"class":"DEVICES","devices":[]}\n')
            elif name == "POLL":
                tpv = self.last.get("TPV", b"")
                sky = self.last.get("SKY", b"")
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
                self.send(b'{"class":"POLL","time":"%s","active":%d,"tpv":[%s],"gst":[],"sky":[%s]}\n'
                          % (stamp.encode(), 1 if tpv else 0, tpv, sky))
            else:
                self.send(b'{"class":"ERROR","message":"Unrecognized request \'%s\'"}\n' % name.encode())
        except OSError:
            pass


def _close_quietly(sock: Optional[socket.socket]) -> None:
    if sock is None:
        return
    try:
        sock.close()
    except OSError:
        pass


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description="A scripted gpsd: replays a gpsd JSON-lines file to each client after its ?WATCH.")
    parser.add_argument("file", help="JSON lines to replay ('-' = stdin), e.g. NAME.log.gpsd.jsonl")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: a free one, printed on stdout)")
    parser.add_argument("--port-file", help="also write the port to this file once listening")
    parser.add_argument("--banner", help="VERSION line to send on connect (default: the file's first "
                        "line if it is a VERSION report, else gpsd 3.22's)")
    parser.add_argument("--line-delay", type=float, default=0.0, metavar="S", help="sleep S seconds between lines")
    parser.add_argument("--epoch-delay", type=float, default=0.0, metavar="S",
                        help="sleep S seconds before each TPV with a new time")
    parser.add_argument("--hangup-after", type=int, metavar="N", help="hang up after N replay lines")
    parser.add_argument("--partial-line", action="store_true",
                        help="with --hangup-after: send half of the next line (no newline) first")
    parser.add_argument("--reset", action="store_true", help="hang up with TCP RST instead of FIN")
    parser.add_argument("--linger", type=float, metavar="S",
                        help="after the last line stay connected and silent S seconds (-1: until the client closes)")
    parser.add_argument("--no-banner", action="store_true", help="accept and close at once (gpsd out of slots)")
    parser.add_argument("--no-watch", action="store_true", help="replay right after the banner, without ?WATCH")
    parser.add_argument("--max-clients", type=int, metavar="N", help="exit after serving N clients")
    parser.add_argument("-v", "--verbose", action="store_true", help="log connections to stderr")
    parser.add_argument("--pause", action="append", default=[], metavar="N:S",
                        help="after N replay lines stay connected and silent S seconds (repeatable)")
    parser.add_argument("--split-pause", action="store_true",
                        help="with --pause: send half of the next line before the pause, the rest after it")
    parser.add_argument("--burst", action="store_true",
                        help="write the lines between pauses with one write (delays are not applied)")
    parser.add_argument("--not-gpsd", metavar="TEXT",
                        help="greet with TEXT (\\n and \\r understood; '' = nothing) instead of a VERSION "
                        "banner and answer nothing: a peer that is not gpsd")
    parser.add_argument("--chatter", type=float, metavar="S", help="with --not-gpsd: repeat TEXT every S seconds (0: as fast as the client reads)")
    parser.add_argument("--poll-tpv", metavar="LINE",
                        help="the TPV that ?POLL answers before the replay has sent one")
    args = parser.parse_args(argv)
    pauses = {}
    for spec in args.pause:
        try:
            after, seconds = spec.split(":", 1)
            pauses[int(after)] = float(seconds)
        except ValueError:
            parser.error("--pause wants N:S, e.g. 10:4.5, not %r" % spec)

    options = dict(host=args.host, port=args.port, line_delay=args.line_delay, epoch_delay=args.epoch_delay,
                   hangup_after=args.hangup_after, partial_line=args.partial_line, reset=args.reset,
                   linger=args.linger, send_banner=not args.no_banner, require_watch=not args.no_watch,
                   max_clients=args.max_clients, pauses=pauses, split_pause=args.split_pause, burst=args.burst,
                   not_gpsd=(args.not_gpsd.replace("\\r", "\r").replace("\\n", "\n").encode()
                             if args.not_gpsd is not None else None),
                   chatter=args.chatter, poll_tpv=args.poll_tpv.encode() if args.poll_tpv else None,
                   log=(lambda message: print(message, file=sys.stderr, flush=True)) if args.verbose else None)
    if args.banner is not None:
        options["banner"] = args.banner.encode()
    try:
        server = FakeGpsd.from_file(args.file, **options)
    except OSError as error:
        print("fake_gpsd: %s" % error, file=sys.stderr)
        return 66
    try:
        port = server.start()
    except OSError as error:
        print("fake_gpsd: cannot listen on %s:%d: %s" % (args.host, args.port, error), file=sys.stderr)
        return 69
    print(port, flush=True)
    if args.port_file:
        temporary = args.port_file + ".tmp"
        with open(temporary, "w") as handle:
            handle.write("%d\n" % port)
        os.replace(temporary, args.port_file)

    def on_signal(number, _frame):
        server._stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    server.serve_until_done()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
