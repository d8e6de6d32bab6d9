"""serve: `loctrack serve` tested as a user meets it (`make serve-test`; `make serve-deps` makes only
the venv; `make serve-screenshot` also writes docs/figures/serve.png, serve-phone.png and
serve-chart.png).

Real processes only: gpsd fed by gpsfake (the demo drive, demo/track.nmea, and an RTK recording,
fixtures/nmea-rtk.log), the real `loctrack serve` (the release binaries .build/release/loctrack and
the loctrack-serve it execs, built by `make serve`), headless Chromium driven by chromedriver
(Debian's chromium, chromium-driver and python3-selenium, so /usr/bin/python3), and schemathesis
from PyPI in its own venv (.build-serve/venv). The scripted gpsd only feeds tests 6 and 8, a
steady rate of fixes that a real gpsd cannot give on demand. What the page shows is compared with
what gpsd sent, read by gpspipe on the same gpsd, and with a reference `loctrack monitor run`.

  python3 scripts/serve [test] [--loctrack PATH] [--only 1,3] [--out DIR] [--figures DIR]
  python3 scripts/serve deps         the venv only
  python3 scripts/serve lock         re-resolve requirements.txt
  python3 scripts/serve screenshot   tests 1 and 12 only, their screenshots also into docs/figures
  python3 scripts/serve load URL     load a page in Chromium, print loadMs and the heap as JSON
                                     (the benchmark's day-at-1-Hz part runs this)

The tests (each starts its own gpsd and server): 1 the page against the demo drive (marker, accuracy
circle, track after a 10 s cut of the event connection, satellites, regions, "device lost" and
"gpsd unreachable" within 2 s, nothing from the internet, screenshots), 2 the page against the RTK
recording ("RTK fixed"; stale 3 s after a pause of the fixes, not before), 3 the access token and
the headers, 4 refused starts (exit codes 64, 69, 78), 5 hostile and malformed requests and a
slowloris, 6 1,000 connections and 100 streams of which 10 stop reading, 7 schemathesis against
web/openapi.json, 8 a crowd of slow clients over the 256-connection limit (300 half-open requests,
20 stalled streams): a normal request answered within 2 s, the oldest half-open ones closed to
make room, no gap for the streams that read; offline charts (`--tiles-file`, MBTiles the tests
make with scripts/support/mbtiles.py, tiles that encode their own z/x/y in their colour): 9 seven
files' tiles byte for byte by their XYZ paths (Content-Type, ETag, 304, Cache-Control), 404 with
an empty body where nothing is, 400 for malformed paths, the token, /api/config's layers,
mbutil's layout and a WAL file, 10 refused chart files (66 missing, a folder, a pipe, a device; 65
not SQLite, no tiles table, vector pbf, no tile) with one line and nothing listening, 11 a 400 MB
chart: 3,000 tiles from all over it while VmRSS stays under 60 MB above the start, 12 the page
with a base chart and an overlay under the live fix (both drawn, the right colours on screen,
over-zoomed past their maxzoom, the layer switch and the attribution as text, no request
elsewhere; docs/figures/serve-chart.png). No test is ever skipped: without loctrack-serve the
suite stops at once with one message and exit 2; 7 fails without web/openapi.json or
schemathesis's venv. About 100 s for 1-8 and 25 s for 9-12 on 2 cores.

Modules: harness (settings, recordings, the token file, regions, a reference loctrack), browser (Chromium),
feed (the scripted gpsd of tests 6 and 8), venv (schemathesis), charts (the charts of 9 and 12,
their layers, a boat circling in their harbour), the tests (test_page 1, test_rtk 2, test_access 3,
test_startup 4, test_requests 5, test_load 6, test_openapi 7, test_crowd 8, test_tiles 9,
test_chart_files 10, test_big_chart 11, test_chart_page 12), cli. Shared with the other tools, in
scripts/support: processes, procfs, results, scripted_gpsd, suite, waiting, pinned_venv, and,
written for these tests and the serve benchmark: serve_process, gpsd_replay, http_raw,
sse_clients, tcp_relay, mbtiles and png.
Artifacts (each process's output, gpspipe's capture, screenshots, schemathesis's log) in out/serve/.
"""
