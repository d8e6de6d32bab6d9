"""Test 3: the access token and the headers on every response (plain sockets, no browser).

`serve --listen 0.0.0.0:PORT --token-file FILE` (mode 600) over gpsfake's gpsd. Every request needs
the token, whatever the client's address (loopback included), the page's files and unknown paths
too: none, a wrong one (Bearer, cookie or ?token=; one character off, a prefix, another case) ->
401, one line of text/plain that does not echo the token; the right one as `Authorization:
Bearer`, as the cookie `loctrack_token` -> 200; as `?token=` -> 303 to the same address without
it and `Set-Cookie: loctrack_token=...; HttpOnly; SameSite=Strict`, and that cookie then works.
On the machine's own non-loopback address (when it has one) the same. Every response, a 401 and a
404 included, carries docs/http.md's Content-Security-Policy, X-Content-Type-Options: nosniff and
Referrer-Policy: no-referrer; the API says Cache-Control: no-store, the page's files no-cache.
"""

from __future__ import annotations

import secrets
import socket
from typing import Dict, Optional

from support.gpsd_replay import Replay
from support.results import Result
from support.serve_process import Serve
from support.sse_clients import SseClient

from .harness import DEMO_TRACK, Settings, write_token_file

TITLE = "the access token, and the headers on every response"
EXPECTATION = "401 without the right token on every path (loopback too); Bearer, cookie 200; ?token= 303 + cookie; " \
              "CSP, nosniff, no-referrer, Cache-Control on every response"

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
PATHS = ["/", "/app.js", "/app.css", "/leaflet/leaflet.js", "/api/config", "/api/status", "/api/fix", "/api/sky",
         "/api/regions", "/api/track", "/openapi.json", "/no-such-path"]


def own_address() -> Optional[str]:
    """This machine's address towards the outside (no packet is sent), if it is not loopback."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def normalised(policy: Optional[str]) -> str:
    return " ".join((policy or "").replace(" ;", ";").split()).rstrip(";")


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("3-access")
    token, token_file = write_token_file(workdir)
    replay = serve = None
    try:
        replay = Replay(workdir, DEMO_TRACK, cycle=0.05)
        serve = Serve(settings.loctrack, ["--token-file", str(token_file), replay.source], workdir,
                      listen_host="0.0.0.0")
        check_token(r, serve, token)
        check_headers(r, serve, token)
        address = own_address()
        if address is None:
            r.note("no non-loopback address on this machine: the token was checked on 127.0.0.1 only")
        else:
            from support import http_raw
            none = http_raw.get(serve.port, "/api/status", host=address)
            right = http_raw.get(serve.port, "/api/status", {"Authorization": "Bearer " + token}, host=address)
            r.check(none.status == 401 and right.status == 200,
                    "on %s (not loopback): 401 without the token, 200 with it" % address,
                    (none.summary(), right.summary()))
        r.check(serve.running(), "the server is still running")
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()


def check_token(r: Result, serve: Serve, token: str) -> None:
    wrong = {
        "no token": {},
        "Bearer, another token": {"Authorization": "Bearer " + secrets.token_hex(16)},
        "Bearer, one character off": {"Authorization": "Bearer " + token[:-1] + ("0" if token[-1] != "0" else "1")},
        "Bearer, a prefix": {"Authorization": "Bearer " + token[:8]},
        "Bearer, upper case": {"Authorization": "Bearer " + token.upper()},
        "Bearer, the token and more": {"Authorization": "Bearer " + token + "x"},
        "Basic with the token": {"Authorization": "Basic " + token},
        "cookie, another token": {"Cookie": "loctrack_token=" + secrets.token_hex(16)},
        "cookie of another name": {"Cookie": "token=" + token},
    }
    for path in PATHS:
        failures = []
        for what, headers in wrong.items():
            response = serve.get(path, headers)
            if response.status != 401 or token.encode() in response.body:
                failures.append("%s: %s" % (what, response.summary()))
        r.check(not failures, "%s: 401 for each of %d wrong ways (no token, wrong ones)" % (path, len(wrong)), failures[:3])
    for query in ("?token=" + secrets.token_hex(16), "?token=", "?token=" + token[:-1]):
        response = serve.get("/" + query)
        r.check(response.status == 401 and not response.header_all("Set-Cookie"),
                "GET /%s: 401 and no cookie set" % query.replace(token[:-1], "TOKEN-minus-one"), response.summary())
    response = serve.get("/api/status")
    r.check(response.status == 401 and (response.header("Content-Type") or "").startswith("text/plain")
            and response.body.strip().count(b"\n") == 0, "a 401 is one line of text/plain", response.body[:200])
    r.check((response.header("WWW-Authenticate") or "").lower().startswith("bearer"), "a 401 says WWW-Authenticate: Bearer",
            response.header("WWW-Authenticate"))
    for method in ("POST", "DELETE"):
        response = serve.get("/", method=method)
        r.check(response.status == 401, "%s / without the token: 401 (the token before the method)" % method,
                response.summary())
    response = serve.get("/?token=" + secrets.token_hex(16), {"Cookie": "loctrack_token=" + token})
    r.check(response.status == 401, "a wrong ?token= with a good cookie: 401", response.summary())
    events = SseClient(serve.port, timeout=30)
    r.check(events.response.status == 401, "GET /events without the token: 401", events.response.summary())
    events.close()

    bearer = {"Authorization": "Bearer " + token}
    cookie = {"Cookie": "loctrack_token=" + token}
    for path in ("/", "/app.js", "/leaflet/leaflet.js", "/api/status", "/api/config", "/openapi.json"):
        a, b = serve.get(path, bearer), serve.get(path, cookie)
        r.check(a.status == 200 and b.status == 200, "%s: 200 with the token as Bearer and as the cookie" % path,
                (a.summary(), b.summary()))
    r.check(serve.get("/no-such-path", bearer).status == 404, "an unknown path with the token: 404")
    stream = SseClient(serve.port, headers=bearer, timeout=30)
    r.check(stream.ok, "GET /events with the token: 200 text/event-stream", stream.response.summary())
    stream.close()

    for path, target in (("/?token=%s" % token, "/"), ("/api/track?max=10&token=%s" % token, "/api/track?max=10"),
                         ("/api/track?token=%s&max=10" % token, "/api/track?max=10"),
                         ("//evil.example/?token=%s" % token, "/"), ("/\\evil.example/?token=%s" % token, "/")):
        response = serve.get(path)
        location = response.header("Location") or ""
        cookies = response.header_all("Set-Cookie")
        ours = [c for c in cookies if c.startswith("loctrack_token=")]
        attributes = [part.strip().lower() for part in (ours[0] if ours else "").split(";")]
        shown = path.replace(token, "TOKEN")
        r.check(response.status == 303, "GET %s: 303" % shown, response.summary())
        r.check(location == target or (location.startswith("http") and location.split("://", 1)[1].split("/", 1)[0]
                                       in ("127.0.0.1:%d" % serve.port, "0.0.0.0:%d" % serve.port)
                                       and "/" + location.split("://", 1)[1].split("/", 1)[1] == target),
                "GET %s: Location %s (the address without the token, on this server)" % (shown, target), location)
        r.check(bool(ours) and attributes[0] == "loctrack_token=" + token.lower() and "httponly" in attributes
                and "samesite=strict" in attributes,
                "GET %s: Set-Cookie loctrack_token=TOKEN; HttpOnly; SameSite=Strict" % shown,
                [c.replace(token, "TOKEN") for c in cookies])
        if ours:
            value = ours[0].split(";")[0]
            follow = serve.get(target, {"Cookie": value})
            r.check(follow.status == 200, "following it with that cookie: 200", follow.summary())


def check_headers(r: Result, serve: Serve, token: str) -> None:
    bearer = {"Authorization": "Bearer " + token}
    cases = [("/", bearer, "no-cache"), ("/app.js", bearer, "no-cache"), ("/app.css", bearer, "no-cache"),
             ("/api/status", bearer, "no-store"), ("/api/config", bearer, "no-store"), ("/api/track", bearer, "no-store"),
             ("/no-such-path", bearer, None), ("/api/status", {}, None)]
    for path, headers, cache in cases:
        response = serve.get(path, headers)
        what = "%s (%d)" % (path, response.status or 0)
        got: Dict[str, Optional[str]] = {name: response.header(name) for name in
                                         ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
                                          "Cache-Control")}
        r.check(normalised(got["Content-Security-Policy"]) == normalised(CSP),
                "%s: Content-Security-Policy as docs/http.md says (no --tiles)" % what, got["Content-Security-Policy"])
        r.check(got["X-Content-Type-Options"] == "nosniff" and got["Referrer-Policy"] == "no-referrer",
                "%s: X-Content-Type-Options nosniff, Referrer-Policy no-referrer" % what,
                (got["X-Content-Type-Options"], got["Referrer-Policy"]))
        if cache is not None:
            r.check(cache in (got["Cache-Control"] or ""), "%s: Cache-Control %s" % (what, cache), got["Cache-Control"])
