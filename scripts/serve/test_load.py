"""Test 6: many connections, and streams that stop reading (plain sockets, no browser), against
`serve --max-streams 100` fed by the scripted gpsd at 100 fixes a second (feed.py: what a real
gpsd cannot do on demand).

- 1,000 connections opened at once and held 3 s: the server survives, its memory stays bounded
  (VmRSS at most 100 MB above where it started), and once they are gone it answers within 5 s;
  then 1,000 requests at once (Connection: close): every one answered 200 within 60 s.
- 100 streams (GET /events) connected before the first fix, the 101st refused with 503 and
  Retry-After: 5; 10 of them stop reading (a 4 KB receive buffer, never read): the server cuts
  each of them off (their connection half-closed by the server) while the 90 others get every
  event in order (ids RUN-1, RUN-2, ... without a gap, the same sequence for all 90 up to the status
  event of gpsd's hang-up, one fix event per TPV the gpsd sent; how long after gpsd wrote them is
  noted); what a stalled
  stream got before it was cut off is a gapless prefix of the same sequence; the server's VmRSS
  stays within 100 MB of where it started and grows by at most 16 MB after the last cut.
"""

from __future__ import annotations

import selectors
import socket
import time
from typing import Dict, List, Optional

from support.gpsd_replay import time_ms
from support.results import Result
from support.serve_process import Serve
from support.sse_clients import Fleet, SseClient, fix_time, gaps, gpsd_unreachable, watch_cut_offs
from support.waiting import wait_until

from .feed import Feed
from .harness import Settings

TITLE = "1,000 connections; 100 streams of which 10 stop reading"
EXPECTATION = "survives 1,000 connections, answers all 1,000 requests; the 90 get every event in order, the 10 are " \
              "cut off; memory bounded"

# Epochs per second, each a TPV and a SKY. 50, not more: the 90 readers are one Python thread,
# which on a slow machine can fall more than the server's 10 s behind a faster stream; the server
# then rightly cuts it as a stalled reader (its rule, not a lost event). What 100 Hz did:
# docs/performance.md, "Figures behind the tests' bounds".
RATE = 50.0
SATELLITES = 40  # a SKY of 3.3 KB: a stalled stream's kernel buffers (about 3 MB on loopback) fill in 16 s
STREAMS = 100
STALLED = 10
MEMORY_BOUND_MB = 100
CUT_CAP_SECONDS = 60.0


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("6-load")
    feed = Feed(RATE, SATELLITES)
    feed.start()
    serve = None
    try:
        serve = Serve(settings.loctrack, ["--max-streams", str(STREAMS), feed.source], workdir)
        wait_until(lambda: serve.get("/api/status").status == 200, 10)
        check_connections(r, serve)
        check_streams(r, serve, feed)
        r.check(serve.running() and serve.get("/api/status").status == 200, "the server still answers at the end")
    finally:
        feed.close()
        if serve is not None:
            serve.stop()


def mb(kb: Optional[int]) -> float:
    return (kb or 0) / 1024.0


def check_connections(r: Result, serve: Serve) -> None:
    base = serve.rss_kb() or 0
    address = ("127.0.0.1", serve.port)
    sockets: List[socket.socket] = []
    for _ in range(1000):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex(address)
        sockets.append(sock)
    peak = base
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        peak = max(peak, serve.rss_kb() or 0)
        time.sleep(0.1)
    connected = sum(1 for sock in sockets if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0)
    alive = serve.running()
    for sock in sockets:
        sock.close()
    gone_at = time.monotonic()
    answered = wait_until(lambda: serve.get("/api/status", timeout=2).status == 200, 10, 0.1)
    answer_after = time.monotonic() - gone_at
    r.check(alive, "1,000 connections held 3 s: the server survives", "%d connected (handshake done)" % connected)
    r.check(bool(answered) and answer_after <= 5, "once they are gone it answers within 5 s", "%.2f s" % answer_after)
    r.check(mb(peak - base) <= MEMORY_BOUND_MB, "VmRSS stays within %d MB of where it started" % MEMORY_BOUND_MB,
            "%.1f MB -> peak %.1f MB" % (mb(base), mb(peak)))

    statuses, seconds, peak2 = thousand_requests(serve)
    codes: Dict = {}
    for status in statuses:
        codes[status] = codes.get(status, 0) + 1
    r.check(codes.get(200, 0) == 1000, "1,000 requests at once: every one answered 200", "%s in %.1f s" % (codes, seconds))
    r.check(mb(peak2 - base) <= MEMORY_BOUND_MB, "... VmRSS within %d MB of the start" % MEMORY_BOUND_MB,
            "peak %.1f MB" % mb(peak2))
    r.figure = "1,000 requests in %.1f s; " % seconds


def thousand_requests(serve: Serve, timeout: float = 60.0):
    """1,000 GET /api/status at once, each on its own connection; their statuses (None: none came)."""
    selector = selectors.DefaultSelector()
    request = b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    states = []
    for index in range(1000):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", serve.port))
        state = {"sock": sock, "sent": False, "data": b"", "done": False}
        states.append(state)
        selector.register(sock, selectors.EVENT_WRITE, state)
    started = time.monotonic()
    open_count = len(states)
    peak = serve.rss_kb() or 0
    last_sample = 0.0
    while open_count and time.monotonic() - started < timeout:
        for key, events in selector.select(0.2):
            state = key.data
            sock = state["sock"]
            if not state["sent"]:
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    state["done"] = True
                else:
                    try:
                        sock.sendall(request)
                        state["sent"] = True
                        selector.modify(sock, selectors.EVENT_READ, state)
                        continue
                    except OSError:
                        state["done"] = True
            else:
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    state["data"] += chunk
                    continue
                state["done"] = True
            if state["done"]:
                selector.unregister(sock)
                sock.close()
                open_count -= 1
        if time.monotonic() - last_sample > 0.2:
            last_sample = time.monotonic()
            peak = max(peak, serve.rss_kb() or 0)
    seconds = time.monotonic() - started
    statuses = []
    for state in states:
        head = state["data"].split(b"\r\n", 1)[0].split(b" ")
        statuses.append(int(head[1]) if len(head) > 1 and head[1].isdigit() else None)
        if not state["done"]:
            try:
                selector.unregister(state["sock"])
            except (KeyError, ValueError):
                pass
            state["sock"].close()
    selector.close()
    return statuses, seconds, peak


def check_streams(r: Result, serve: Serve, feed: Feed) -> None:
    clients = [SseClient(serve.port, keep_data=fix_time, stalled=index >= STREAMS - STALLED, timeout=10)
               for index in range(STREAMS)]
    fleet = Fleet(clients)
    try:
        refused = [c for c in clients if not c.ok]
        if not r.check(not refused, "%d streams open (GET /events, 200 text/event-stream)" % STREAMS,
                       [c.response.summary() for c in refused[:3]]):
            return
        extra = SseClient(serve.port, timeout=10)
        r.check(extra.response.status == 503 and (extra.response.header("Retry-After") or "").strip() == "5",
                "stream %d: 503 with Retry-After: 5 (--max-streams %d)" % (STREAMS + 1, STREAMS),
                "%s, Retry-After %r" % (extra.response.summary(), extra.response.header("Retry-After")))
        extra.close()
        fleet.start()
        offset_ns = time.time_ns() - time.monotonic_ns()
        base = serve.rss_kb() or 0
        samples = [base]
        feed.go()
        started = time.monotonic()
        cut_at, last_cut_rss = watch_cut_offs(fleet.stalled(), serve.rss_kb, samples, cap=CUT_CAP_SECONDS, grace=3)
        feed.stop()
        # The run's last event: the status of gpsd's hang-up. The statuses of the server's attempts
        # to reconnect follow it, and the streams are compared through it (gpsd_unreachable).
        r.check(fleet.wait_for(gpsd_unreachable, timeout=30),
                "every reading stream got the status event of gpsd's hang-up (within 30 s)")
        samples.append(serve.rss_kb() or 0)
        fleet.stop()
        seconds = time.monotonic() - started
        check_readers(r, fleet.reading(), feed, offset_ns)
        check_stalled(r, fleet, cut_at, seconds)
        peak = max(samples)
        r.check(mb(peak - base) <= MEMORY_BOUND_MB, "VmRSS within %d MB of where it started" % MEMORY_BOUND_MB,
                "%.1f MB -> peak %.1f MB" % (mb(base), mb(peak)))
        if last_cut_rss is not None:
            r.check(mb(samples[-1] - last_cut_rss) <= 16, "after the last cut, VmRSS grows by at most 16 MB",
                    "%.1f MB at the last cut, %.1f MB at the end" % (mb(last_cut_rss), mb(samples[-1])))
        r.figure += "%d fixes at %g Hz to 90 readers in %.1f s; stalled streams cut after %s s; VmRSS %.1f -> peak %.1f MB" % (
            feed.sent, RATE, seconds, sorted(round(v, 1) for v in cut_at.values()), mb(base), mb(peak))
    finally:
        fleet.close()


def check_readers(r: Result, readers: List[SseClient], feed: Feed, offset_ns: int) -> None:
    sequences = set()
    gapped, short = [], []
    lags: List[float] = []
    fix_ms: Dict[str, int] = {}  # the same times for every reader: parse each once
    for client in readers:
        numbers = client.numbers(gpsd_unreachable)
        if gaps(numbers):
            gapped.append((client.local_port, gaps(numbers)[:3]))
        sequences.add((numbers[0] if numbers else None, numbers[-1] if numbers else None, len(numbers)))
        fixes = [event for event in client.through(gpsd_unreachable) if event.name == "fix"]
        if len(fixes) != feed.sent:
            short.append((client.local_port, len(fixes)))
        for event in fixes:
            if event.data:
                if event.data not in fix_ms:
                    fix_ms[event.data] = time_ms(event.data)
                lags.append((event.at_ns + offset_ns) / 1e6 - fix_ms[event.data])
    r.check(not gapped, "the %d reading streams: ids without a gap" % len(readers), gapped[:3])
    r.check(len(sequences) == 1 and all(first is not None and last - first + 1 == n for first, last, n in sequences),
            "the %d reading streams got the same events, the first to gpsd's hang-up" % len(readers),
            sorted(sequences)[:5])
    r.check(not short and feed.sent > 0, "each reading stream got one fix event per TPV gpsd sent (%d)" % feed.sent,
            short[:5])
    lags.sort()
    if not r.check(bool(lags), "the fix events carry the fix's time (the delays can be measured)"):
        return
    p50, p99 = lags[len(lags) // 2], lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    # A figure, not a check: on a loaded machine the readers here (90 sockets, one Python thread)
    # fall behind before the server does. The benchmark measures the latency (make bench, serve-sse).
    r.note("the readers got the fixes p50 %.1f ms, p99 %.1f ms, max %.1f ms after gpsd wrote them" % (p50, p99, lags[-1]))


def check_stalled(r: Result, fleet: Fleet, cut_at: Dict[int, float], seconds: float) -> None:
    stalled = fleet.stalled()
    r.check(len(cut_at) == len(stalled), "the %d streams that stopped reading were cut off by the server" % len(stalled),
            "%d of %d within %.0f s" % (len(cut_at), len(stalled), seconds))
    reference = fleet.reading()[0].numbers(gpsd_unreachable) if fleet.reading() else []
    problems = []
    for client in stalled:
        client.sock.setblocking(True)
        eof = client.read_until_eof(10)
        numbers = client.numbers()
        prefix = reference[:len(numbers)]
        if not eof or gaps(numbers) or numbers != prefix or len(numbers) >= len(reference):
            problems.append("port %d: eof %s, %d events, gaps %s, prefix %s" % (
                client.local_port, eof, len(numbers), gaps(numbers)[:2], numbers == prefix))
    r.check(not problems, "what each stalled stream got before the cut is a gapless prefix of the readers' events, "
            "then the end of the stream", problems[:3])
