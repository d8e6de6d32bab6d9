"""Test 11: a chart of several hundred MB (400 MB of incompressible tiles, about 20,000 rows, made
in a few seconds by scripts/support/mbtiles.py) served by `loctrack serve --tiles-file` against
gpsfake's gpsd: 3,000 tiles from all over the file (every zoom, spread through its rows), asked
for by 4 keep-alive clients at once, each answered with its bytes; the server's VmRSS, sampled
every 100 tiles, stays under 60 MB above what it was after its first tile (the file is read, never
held: a byte-bounded hot-tile cache and SQLite's page caches are all it may keep). The figure:
VmRSS at the start, at its peak and at the end, with RssAnon and RssFile at the peak, and VmHWM.
The file is deleted afterwards.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from typing import List, Tuple

from support import mbtiles
from support.gpsd_replay import Replay
from support.procfs import proc_status_kb
from support.results import Result
from support.serve_process import Serve

from .harness import DEMO_TRACK, Settings

TITLE = "a chart of several hundred MB: resident memory stays small"
EXPECTATION = "3,000 tiles from all over a 400 MB file, each exact; VmRSS < 60 MB above the start"

MEGABYTES = 400
REQUESTS = 3000
CLIENTS = 4
RSS_BOUND_MB = 60


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("11-big-chart")
    started = time.monotonic()
    chart = mbtiles.make_big_chart(workdir / "big.mbtiles", MEGABYTES)
    made = time.monotonic() - started
    r.note("made %s: %.0f MB, %d tiles, zooms %d-%d, in %.1f s" % (chart.path.name, chart.size / 1e6, len(chart.tiles),
                                                                  *chart.zooms(), made))
    replay = serve = None
    try:
        replay = Replay(workdir, DEMO_TRACK, cycle=0.05)
        serve = Serve(settings.loctrack, ["--tiles-file", str(chart.path), replay.source], workdir)
        first = chart.addresses[0]
        response = serve.get("/tiles/1/%d/%d/%d.png" % first)
        r.check(response.status == 200 and response.body == chart.tiles[first], "the first tile: 200, its bytes",
                response.summary())
        start_kb = serve.rss_kb() or 0
        picks = random.Random(28).sample(chart.addresses, REQUESTS)
        samples: List[int] = [start_kb]
        wrong: List[str] = []
        served = fetch_all(serve, chart, picks, samples, wrong)
        end_kb = serve.rss_kb() or 0
        samples.append(end_kb)
        peak_kb = max(samples)
        anon, files, hwm = (proc_status_kb(serve.pid, key) for key in ("RssAnon", "RssFile", "VmHWM"))
        zooms = sorted({z for z, _, _ in picks})
        r.check(not wrong and served == REQUESTS, "%d tiles from all over the file (zooms %s, %.0f MB read), by %d "
                "keep-alive clients: each 200 with its bytes" % (REQUESTS, zooms, sum(len(chart.tiles[a]) for a in picks)
                                                               / 1e6, CLIENTS), "%d served; wrong: %s" % (served, wrong[:3]))
        growth = (peak_kb - start_kb) / 1024
        r.check(growth < RSS_BOUND_MB, "the server's VmRSS stays under %d MB above the start while serving a %.0f MB file"
                % (RSS_BOUND_MB, chart.size / 1e6), "%+.1f MB" % growth)
        r.figure = ("VmRSS %.1f MB after the first tile, peak %.1f MB (%+.1f MB; RssAnon %.1f, RssFile %.1f MB), end "
                    "%.1f MB, VmHWM %.1f MB; a %.0f MB file of %d tiles" % (
                        start_kb / 1024, peak_kb / 1024, growth, (anon or 0) / 1024, (files or 0) / 1024, end_kb / 1024,
                        (hwm or 0) / 1024, chart.size / 1e6, len(chart.tiles)))
        r.check(serve.running(), "the server is still running")
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()
        chart.path.unlink(missing_ok=True)


def fetch_all(serve: Serve, chart: mbtiles.Chart, picks: List[Tuple[int, int, int]], samples: List[int],
              wrong: List[str]) -> int:
    """picks fetched by CLIENTS threads, each on one keep-alive connection, every 100th tile a VmRSS
    sample; returns how many were answered 200 with their bytes."""
    lock = threading.Lock()
    served = [0]

    def client(share: List[Tuple[int, int, int]]) -> None:
        connection = http.client.HTTPConnection(serve.host, serve.port, timeout=10)
        try:
            for address in share:
                path = "/tiles/1/%d/%d/%d.png" % address
                connection.request("GET", path)
                response = connection.getresponse()
                body = response.read()
                ok = response.status == 200 and body == chart.tiles[address]
                with lock:
                    served[0] += ok
                    if not ok:
                        wrong.append("%s: %d, %d bytes" % (path, response.status, len(body)))
                    if served[0] % 100 == 0:
                        samples.append(serve.rss_kb() or 0)
        except (OSError, http.client.HTTPException) as error:
            with lock:
                wrong.append("client: %s" % error)
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(picks[index::CLIENTS],), daemon=True) for index in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return served[0]
