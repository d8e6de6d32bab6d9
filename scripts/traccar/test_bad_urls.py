"""Test 5: URLs the uplink cannot use are refused before anything is read: exit 64, one line on stderr,
no connection to gpsd."""

from __future__ import annotations

import select
import socket
import subprocess

from .harness import Uplink

TITLE = "bad URLs refused before anything is read"
EXPECTATION = ("no id, an empty id, another scheme, no host, a port out of range: each exits 64 with "
               "one line on stderr, and never connects to gpsd")
BAD_URLS = (
    ("no id", "http://127.0.0.1:5055/"),
    ("an empty id", "http://127.0.0.1:5055/?id="),
    ("another scheme", "ftp://127.0.0.1:5055/?id=lt-e2e"),
    ("no host", "http:///?id=lt-e2e"),
    ("a port out of range", "http://127.0.0.1:99999/?id=lt-e2e"),
)


def run(settings, r) -> None:
    workdir = settings.workdir("5-bad-urls")
    gpsd = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # a gpsd that only counts who connects
    gpsd.bind(("127.0.0.1", 0))
    gpsd.listen(8)
    source = "127.0.0.1:%d" % gpsd.getsockname()[1]
    refused = 0
    for index, (what, url) in enumerate(BAD_URLS):
        uplink = Uplink(settings, url, workdir / ("spool-%d" % index), source, workdir, "uplink-%d" % index)
        try:
            code = uplink.process.wait(timeout=30)  # a loaded machine may take long to start it
        except subprocess.TimeoutExpired:  # still running: it took the URL
            code = None
        uplink.terminate(2)
        lines = [line for line in uplink.stderr_lines() if line.strip()]
        ok = code == 64 and len(lines) == 1
        refused += ok
        r.check(ok, "%s (%s): exit 64, one line" % (what, url),
                "exit %s, stderr: %s" % (code, " | ".join(lines)[:300] or "nothing"))
    connected, _, _ = select.select([gpsd], [], [], 0)
    r.check(not connected, "gpsd was never connected to", "a connection was made" if connected else "none")
    gpsd.close()
    r.figure = "%d of %d bad URLs refused with exit 64 and one line" % (refused, len(BAD_URLS))
