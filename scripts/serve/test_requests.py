"""Test 5: hostile and malformed requests (plain sockets, the bytes written as they are), against
`serve` on loopback over gpsfake's gpsd.

- Path traversal (`/../etc/passwd`, `/%2e%2e/`, `/leaflet/../../../etc/passwd`,
  `/leaflet/images/%2e%2e%2fx`, `//etc/passwd`, NUL, backslashes, ...): 404, a short text/plain
  body, no file's content; the fixed list still serves Leaflet byte for byte as Debian installed it.
- Methods other than GET and HEAD: 405 with `Allow: GET, HEAD`; HEAD: GET's headers, no body
  (HEAD /events opens no stream); the page's ETag gives 304.
- A 64 KiB header, 80 KiB of headers, a 64 KiB request line: 431 or 400, or the connection closed;
  a 12 KiB head is still served.
- Malformed request lines and headers: 4xx.
- A request with a body (Content-Length or chunked): 413, also when the body never comes.
- Bad parameters of /api/track: 400, one line (empty ones are the defaults, unknown ones ignored).
- A slowloris (20 connections trickling a head, 5 sending nothing): each closed within 12 s (the
  limit is 10 s), while a normal request is answered within 1 s; an idle kept-alive connection
  is closed within 12 s.
After all of it the server answers and is still the same process.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import List, Optional

from support import http_raw
from support.gpsd_replay import Replay
from support.results import Result
from support.serve_process import Serve
from support.waiting import wait_until

from .harness import DEMO_TRACK, LEAFLET, Settings

TITLE = "hostile and malformed requests, slowloris"
EXPECTATION = "traversal 404 without content; 405 + Allow; oversized 431/400/closed; malformed 4xx; body 413; " \
              "slowloris closed within 12 s without delaying others"

TRAVERSALS = ["/../etc/passwd", "/%2e%2e/etc/passwd", "/%2e%2e/", "/%2E%2E/%2E%2E/etc/passwd", "/leaflet/../../../etc/passwd",
              "/leaflet/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/leaflet/images/%2e%2e%2fx",
              "/leaflet/images/..%2f..%2f..%2f..%2fetc%2fpasswd", "/leaflet/images/%2e%2e%2f%2e%2e%2fleaflet.js",
              "//etc/passwd", "/leaflet//etc/passwd", "/etc/passwd", "/%00", "/app.js%00", "/leaflet/leaflet.js%00.png",
              "/leaflet/images/marker-icon.png%00", "/..%5c..%5cetc%5cpasswd", "/leaflet/..\\..\\..\\etc\\passwd",
              "/leaflet/", "/leaflet", "/leaflet/images/", "/leaflet/images", "/index.html", "/web/index.html",
              "/.git/config", "/Package.swift", "/proc/self/environ", "/leaflet/images/../../../../proc/self/environ",
              "/api/../../etc/passwd", "/api/", "/api", "/%2fetc%2fpasswd", "/leaflet/%2fetc%2fpasswd",
              "/leaflet/leaflet.js/", "/leaflet/images/layers.png/../../../../etc/passwd"]
SECRETS = [b"root:x:0:0", b"root:*:", b"[core]", b"swift-tools-version", b"PATH="]


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("5-requests")
    replay = serve = None
    try:
        replay = Replay(workdir, DEMO_TRACK, cycle=0.05)
        serve = Serve(settings.loctrack, [replay.source], workdir)
        wait_until(lambda: serve.get("/api/status").status == 200, 10)
        check_fixed_list(r, serve)
        check_traversal(r, serve)
        check_methods(r, serve)
        check_oversized(r, serve)
        check_malformed(r, serve)
        check_bodies(r, serve)
        check_parameters(r, serve)
        check_slowloris(r, serve)
        final = serve.get("/api/status")
        r.check(serve.running() and final.status == 200, "after all of it the server answers /api/status",
                final.summary())
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()


def check_fixed_list(r: Result, serve: Serve) -> None:
    for name, kind in (("leaflet.js", "javascript"), ("leaflet.css", "text/css"), ("images/marker-icon.png", "image/png"),
                       ("images/layers.png", "image/png")):
        path = LEAFLET / name
        if not path.exists():
            r.note("%s is not installed (libjs-leaflet): not compared" % path)
            continue
        response = serve.get("/leaflet/" + name)
        r.check(response.status == 200 and response.body == path.read_bytes() and kind in (response.header("Content-Type") or ""),
                "/leaflet/%s: 200, %s, byte for byte Debian's %s" % (name, kind, path),
                "%s, %s" % (response.summary(), response.header("Content-Type")))


def check_traversal(r: Result, serve: Serve) -> None:
    bad = []
    for path in TRAVERSALS:
        response = http_raw.exchange(serve.port, ("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        leaked = [secret for secret in SECRETS if secret in response.body]
        if response.status != 404 or leaked or len(response.body) > 512:
            bad.append("%s: %s%s" % (path, response.summary(), " LEAKED %s" % leaked if leaked else ""))
    r.check(not bad, "%d traversal attempts: each 404, a short body, no file's content" % len(TRAVERSALS), bad[:5])
    raw_nul = http_raw.exchange(serve.port, b"GET /app.js\x00.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    r.check(raw_nul.status in (400, 404) and not any(s in raw_nul.body for s in SECRETS) and len(raw_nul.body) < 512,
            "a raw NUL byte in the path: 400 or 404, no content", raw_nul.summary())


def check_methods(r: Result, serve: Serve) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW"):
        for path in ("/", "/api/fix", "/events"):
            response = http_raw.exchange(serve.port, ("%s %s HTTP/1.1\r\nHost: x\r\n"
                                                      "Connection: close\r\n\r\n" % (method, path)).encode())
            allow = [part.strip() for part in (response.header("Allow") or "").split(",")]
            if method == "BREW" and response.status == 400:
                # A method the HTTP parser does not know (llhttp knows a fixed list) is refused as
                # malformed before any route sees it: that is a 4xx too, and no less safe.
                r.check(True, "BREW %s: 400 (the parser does not know the method)" % path)
                continue
            r.check(response.status == 405 and sorted(allow) == ["GET", "HEAD"],
                    "%s %s: 405, Allow: GET, HEAD" % (method, path), "%s, Allow %r" % (response.summary(), response.header("Allow")))
    get = serve.get("/")
    head = http_raw.exchange(serve.port, b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", method="HEAD",
                             then_probe_close=1.0)
    r.check(head.status == 200 and head.header("Content-Length") == get.header("Content-Length")
            and head.header("Content-Type") == get.header("Content-Type") and head.closed,
            "HEAD /: 200 with GET's Content-Length and Content-Type, and no body", head.summary())
    etag = get.header("ETag")
    if r.check(bool(etag), "GET / has an ETag", get.header("ETag")):
        again = serve.get("/", {"If-None-Match": etag})
        r.check(again.status == 304 and not again.body, "GET / with If-None-Match: its ETag: 304 without a body",
                again.summary())
        other = serve.get("/", {"If-None-Match": '"not-the-etag"'})
        r.check(other.status == 200 and other.body == get.body, "... with another ETag: 200 and the page", other.summary())
    head_events = http_raw.exchange(serve.port, b"HEAD /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                    method="HEAD", then_probe_close=3.0)
    r.check(head_events.status == 200 and "text/event-stream" in (head_events.header("Content-Type") or "")
            and head_events.closed, "HEAD /events: 200 text/event-stream, no stream (closed at once)", head_events.summary())
    head_api = http_raw.exchange(serve.port, b"HEAD /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                 method="HEAD", then_probe_close=1.0)
    r.check(head_api.status == 200 and head_api.closed, "HEAD /api/status: 200, no body", head_api.summary())


def check_oversized(r: Result, serve: Serve) -> None:
    cases = [
        ("a 64 KiB header", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n"),
        ("80 KiB of headers (2,000 lines)", b"GET / HTTP/1.1\r\nHost: x\r\n"
         + b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 30) for i in range(2000)) + b"\r\n"),
        ("a 64 KiB request line", b"GET /" + b"c" * 65536 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("a 1 MiB header", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"d" * (1 << 20) + b"\r\n\r\n"),
    ]
    for what, raw in cases:
        response = http_raw.exchange(serve.port, raw, timeout=15)
        ok = response.status in (400, 414, 431) or (response.status is None and response.closed)
        r.check(ok, "%s: 431 or 400 (or 414), or the connection closed" % what, response.summary())
        after = serve.get("/api/status")
        r.check(after.status == 200 and after.seconds < 2, "... then a normal request is answered", after.summary())
    fine = http_raw.exchange(serve.port, b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Ok: "
                             + b"e" * 12288 + b"\r\n\r\n")
    r.check(fine.status == 200, "a 12 KiB head (under the 16 KiB limit) is served", fine.summary())


def check_malformed(r: Result, serve: Serve) -> None:
    cases = [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", b"GET / FTP/1.0\r\n\r\n",
             b"GET / HTTP/1.1\r\nHost x\r\n\r\n", b"GET / HTTP/1.1\r\n: novalue\r\n\r\n",
             b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
             b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
             b"GET / HTTP/1.1\r\nHo\x00st: x\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 32 + b"\r\n\r\n",
             b"G\xffT / HTTP/1.1\r\n\r\n", b" / HTTP/1.1\r\n\r\n"]
    for raw in cases:
        response = http_raw.exchange(serve.port, raw, timeout=12)
        r.check(response.status is not None and 400 <= response.status < 500,
                "malformed %r: 4xx" % raw[:40], response.summary())
    r.check(serve.get("/api/status").status == 200, "the server answers after the malformed requests")


def check_bodies(r: Result, serve: Serve) -> None:
    cases = [("GET / with Content-Length: 10", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"),
             ("GET /api/status chunked", b"GET /api/status HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
              b"5\r\nhello\r\n0\r\n\r\n"),
             ("GET /api/fix announcing 100 MB that never come", b"GET /api/fix HTTP/1.1\r\nHost: x\r\n"
              b"Content-Length: 100000000\r\n\r\n"),
             ("GET /events with a body", b"GET /events HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")]
    for what, raw in cases:
        response = http_raw.exchange(serve.port, raw, timeout=12)
        r.check(response.status == 413 and response.seconds < 5, "%s: 413 (at once)" % what, response.summary())


def check_parameters(r: Result, serve: Serve) -> None:
    for query in ("format=xml", "max=abc", "max=-5", "max=0", "since=yesterday", "since=2026-13-45T99:00:00Z"):
        response = serve.get("/api/track?" + query)
        r.check(response.status == 400 and response.body.strip().count(b"\n") == 0 and response.body.strip(),
                "/api/track?%s: 400 with one line" % query, "%s %r" % (response.summary(), response.body[:100]))
    for query in ("max=", "format=", "max=10&max=20", "nonsense=1"):  # docs/http.md: empty = default, others ignored
        response = serve.get("/api/track?" + query)
        r.check(response.status == 200, "/api/track?%s: 200" % query, response.summary())


def check_slowloris(r: Result, serve: Serve) -> None:
    closed_after: List[Optional[float]] = [None] * 25
    started = time.monotonic()

    def trickle(index: int) -> None:
        try:
            sock = http_raw.connect(serve.port, timeout=20)
        except OSError:
            return
        begin = time.monotonic()
        try:
            if index < 20:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            sock.settimeout(0.5)
            while time.monotonic() - begin < 20:
                if index < 20:
                    try:
                        sock.sendall(b"X")  # one byte of a header every 0.5 s, never a line's end
                    except OSError:
                        closed_after[index] = time.monotonic() - begin
                        return
                try:
                    if sock.recv(4096) == b"":
                        closed_after[index] = time.monotonic() - begin
                        return
                except socket.timeout:
                    continue
                except OSError:
                    closed_after[index] = time.monotonic() - begin
                    return
        finally:
            sock.close()

    def idle_keepalive() -> None:
        sock = http_raw.connect(serve.port, timeout=20)
        try:
            sock.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = http_raw.read_response(sock, 5)
            begin = time.monotonic()
            sock.settimeout(20)
            try:
                end = sock.recv(1)
            except OSError:
                end = b""
            keepalive.append((answer.status, time.monotonic() - begin if end == b"" else None))
        finally:
            sock.close()

    keepalive: List = []
    threads = [threading.Thread(target=trickle, args=(i,), daemon=True) for i in range(25)]
    threads.append(threading.Thread(target=idle_keepalive, daemon=True))
    for thread in threads:
        thread.start()
    normal = []
    for at in (2.0, 6.0, 9.0):
        time.sleep(max(0.0, started + at - time.monotonic()))
        normal.append(serve.get("/api/status", timeout=5))
    for thread in threads:
        thread.join(timeout=25)
    r.check(all(response.status == 200 and response.seconds < 1.0 for response in normal),
            "during the slowloris, normal requests are answered within 1 s",
            ["%s in %.3f s" % (response.status, response.seconds) for response in normal])
    trickled, silent = closed_after[:20], closed_after[20:]
    r.check(all(seconds is not None and seconds <= 12 for seconds in trickled),
            "20 connections trickling a head: each closed within 12 s",
            "closed after %s s" % [round(s, 1) if s is not None else None for s in trickled])
    r.check(all(seconds is not None and seconds <= 12 for seconds in silent),
            "5 connections sending nothing: each closed within 12 s",
            "closed after %s s" % [round(s, 1) if s is not None else None for s in silent])
    r.check(bool(keepalive) and keepalive[0][0] == 200 and keepalive[0][1] is not None and keepalive[0][1] <= 12,
            "an idle kept-alive connection is closed within 12 s of its last response", keepalive)
    r.figure = "slowloris connections closed after %.1f-%.1f s" % (
        min([s for s in closed_after if s is not None] or [0]), max([s for s in closed_after if s is not None] or [0]))
