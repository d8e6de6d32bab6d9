"""Test 8: a crowd of slow clients cannot lock others out (plain sockets, no browser), against
`loctrack serve` fed by the scripted gpsd at 10 fixes a second (feed.py).

5 event streams read along from before the crowd. Then the crowd, more than the 256-connection
limit: 300 connections each sending part of a request head and no more (a slowloris), and 20
event streams that stop reading. Then a normal request from another client:

- it is answered 200 within 2 s: right after the 300 half-open ones (every connection has only
  just come, and none may be closed before it has waited 1 s), after the 20 stalled streams,
  and again 1 s later;
- the server closed crowd connections to make room, only those that had sent no whole head,
  and the ones opened first: the connections it closed are exactly the first N of the 300;
- none of the 5 reading streams and none of the 20 stalled ones was closed, and the 5 got every
  event without a gap in their ids, during the crowd as before it.

All of it well within the 10 s a head may take, so that the closes counted are the server's
making room, not its head timeout. (Before the server made room, the first normal request got
no answer within 5 s, and the stalled streams got in after 5 s, when the first heads timed out.)
"""

from __future__ import annotations

import socket
import time
from typing import List, Optional

from support import http_raw
from support.results import Result
from support.serve_process import Serve
from support.sse_clients import Fleet, SseClient, gaps, gpsd_unreachable
from support.waiting import wait_until

from .feed import Feed
from .harness import Settings

TITLE = "a crowd of slow clients: 300 half-open requests and 20 stalled streams"
EXPECTATION = "a normal request answered within 2 s; the oldest half-open connections closed to make room, never a " \
              "stream; the 5 reading streams see no gap"

RATE = 10.0
READERS = 5
HALF_OPEN = 300
STALLED = 20
LIMIT = 256  # the server's connection limit (docs/http.md, "Limits")
HEAD_TIME = 10.0  # ... and the time a request head may take
# The bound. The server lets a newcomer in in another's place once that one has waited
# 1 s for its head, so right after the crowd the answer takes about 1 s (docs/performance.md,
# "Figures behind the tests' bounds").
ANSWER_WITHIN = 2.0
PARTIAL_HEAD = b"GET /api/status HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n"  # no blank line: never complete


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("8-crowd")
    feed = Feed(RATE)
    feed.start()
    serve = fleet = None
    crowd: List[socket.socket] = []
    stalled: List[SseClient] = []
    try:
        serve = Serve(settings.loctrack, [feed.source], workdir)
        wait_until(lambda: serve.get("/api/status").status == 200, 10)
        readers = [SseClient(serve.port, timeout=10) for _ in range(READERS)]
        fleet = Fleet(readers).start()
        feed.go()
        if not r.check(wait_until(lambda: all(len(c.events) >= 5 for c in readers), 10),
                       "the %d reading streams get events before the crowd" % READERS,
                       [len(c.events) for c in readers]):
            return
        before = [len(c.events) for c in readers]

        crowd_started = time.monotonic()
        crowd = open_half_open(serve.port, HALF_OPEN)
        crowd_in = time.monotonic() - crowd_started
        normal = [serve.get("/api/status", timeout=5)]
        streams_started = time.monotonic()
        stalled = [SseClient(serve.port, stalled=True, timeout=10) for _ in range(STALLED)]
        r.note("the %d half-open connections were opened in %.2f s, the %d stalled streams in %.2f s" % (
            HALF_OPEN, crowd_in, STALLED, time.monotonic() - streams_started))
        r.check(all(client.ok for client in stalled), "the %d stalled streams got their 200 in the crowd" % STALLED,
                sorted({client.response.summary() for client in stalled}))
        normal.append(serve.get("/api/status", timeout=5))
        time.sleep(1.0)
        normal.append(serve.get("/api/status", timeout=5))
        r.check(all(response.status == 200 and response.seconds <= ANSWER_WITHIN for response in normal),
                "a normal request from another client, after the half-open ones, after the stalled streams, and 1 s "
                "later: 200 within %g s" % ANSWER_WITHIN,
                ["%s in %.3f s" % (response.status, response.seconds) for response in normal])

        closed = [index for index, sock in enumerate(crowd) if closed_by_server(sock)]
        elapsed = time.monotonic() - crowd_started
        # Each normal request closes before the next one comes: one place among them.
        expected_at_least = HALF_OPEN + STALLED + READERS + 1 - LIMIT
        # Counted before any head could time out: each close was the server making room.
        r.check(elapsed < HEAD_TIME and len(closed) >= expected_at_least and closed == list(range(len(closed))),
                "the server made room by closing half-open connections, the ones opened first "
                "(at least %d: %d + %d + %d + 1 over %d), within the %g s a head may take" % (
                    expected_at_least, HALF_OPEN, STALLED, READERS, LIMIT, HEAD_TIME),
                "%d closed, %s; %.1f s after the crowd began" % (len(closed), span(closed), elapsed))
        cut = [client.local_port for client in stalled if client.cut_off()]
        r.check(not cut, "none of the %d stalled streams was closed to make room" % STALLED, cut[:5])

        during = [len(c.events) for c in readers]
        feed.stop()
        # The run's last event: the status of gpsd's hang-up (gpsd_unreachable).
        hung_up = fleet.wait_for(gpsd_unreachable, timeout=30)
        fleet.stop()
        ended = [client.local_port for client in readers if client.eof]
        gapped = [(client.local_port, gaps(client.numbers())[:3]) for client in readers if gaps(client.numbers())]
        r.check(hung_up and not ended and not gapped,
                "the %d reading streams stayed open and got every event without a gap, through the status "
                "event of gpsd's hang-up" % READERS,
                "ended %s, gaps %s, all got the hang-up: %s" % (ended, gapped, hung_up))
        r.check(all(now > then for now, then in zip(during, before)),
                "... and got events during the crowd", "%s before, %s after" % (before, during))
        r.figure = "a normal request answered in %s s (after the half-open ones, after the stalled streams, 1 s " \
                   "later); %d of %d half-open connections closed to make room" % (
                       ", ".join("%.3f" % response.seconds for response in normal), len(closed), HALF_OPEN)
        r.check(serve.running() and serve.get("/api/status").status == 200, "the server still answers at the end")
    finally:
        for sock in crowd:
            sock.close()
        for client in stalled:
            client.close()
        if fleet is not None:
            fleet.close()
        feed.close()
        if serve is not None:
            serve.stop()


def open_half_open(port: int, count: int) -> List[socket.socket]:
    """`count` connections, one after another, each with part of a request head and no more."""
    sockets = []
    for _ in range(count):
        sock = http_raw.connect(port, timeout=5)
        sock.sendall(PARTIAL_HEAD)
        sockets.append(sock)
    return sockets


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed this connection (its FIN, or a reset), at once and without
    taking data (a socket with a timeout would first wait up to that long for something to read)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def span(indices: List[int]) -> str:
    if not indices:
        return "none"
    return "indices %d..%d" % (indices[0], indices[-1]) if indices == list(range(indices[0], indices[-1] + 1)) \
        else "not the first ones: %s" % indices[:10]
