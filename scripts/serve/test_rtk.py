"""Test 2: an RTK recording (scripts/serve/fixtures/nmea-rtk.log: a Trimble at 10 Hz, DGPS and
then RTK fixed, GGA quality 4) replayed by gpsfake into a real gpsd: the page's status says
"RTK fixed" (gpsd's last TPVs have status 3), in window.loctrack.fixStatus and in #fix-status;
the marker is at gpsd's last fix (1 m), the circle's radius its eph, the track one point per fix."""

from __future__ import annotations

from support.gpsd_replay import Replay, Witness, distance_m, last_nmea_time, time_ms
from support.results import Result
from support.serve_process import Serve

from .browser import Browser, foreign, origin_of
from .harness import RTK_LOG, Settings, close_to, count, start_after_witness

TITLE = "the page against an RTK recording"
EXPECTATION = "status \"RTK fixed\"; marker at the last fix (1 m), circle = eph, one track point per fix"

STATUS_NAMES = {2: "DGPS", 3: "RTK fixed", 4: "RTK float"}


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("2-rtk")
    browser = Browser()
    replay = serve = witness = None
    try:
        replay = Replay(workdir, RTK_LOG, cycle=0.01)
        witness = Witness(replay.source, workdir)
        serve = start_after_witness(r, witness, lambda: Serve(settings.loctrack, [replay.source], workdir),
                                    lambda server: server.pid, replay.port)
        browser.open(serve.url("/"))
        last_time = last_nmea_time(RTK_LOG)
        if not r.check(witness.wait_time(last_time, 60), "gpsd sent the recording's last epoch (%s)" % last_time):
            return
        fixes = witness.fixes()
        last = fixes[-1]
        expected = STATUS_NAMES.get(last.get("status"), "?")
        r.check(last.get("status") == 3, "gpsd's last TPV has status 3 (RTK fixed): the recording is what it says",
                last.get("status"))
        page = browser.wait(lambda p: p["fields"]["trackLast"][0] == time_ms(last["time"])
                            and "RTK fixed" in (p["fields"]["fixStatus"] or ""), 10)
        page = page or browser.page()
        fields, element = page["fields"], page["elements"].get("fix-status") or {}
        r.figure = "%d fixes, the last %d RTK fixed; page: %r" % (
            len(fixes), sum(1 for fix in fixes if fix.get("status") == 3), fields.get("fixStatus"))
        r.check(fields.get("fixStatus") == expected, "window.loctrack.fixStatus = %r" % expected, fields.get("fixStatus"))
        r.check(expected in (element.get("text") or ""), "#fix-status shows %r" % expected, element)
        marker = fields.get("marker")
        try:
            off = distance_m(float(marker[0]), float(marker[1]), last["lat"], last["lon"])
        except (TypeError, IndexError, ValueError):
            off = None
        r.check(off is not None and off <= 1.0, "the marker at gpsd's last fix (%.9f, %.9f) within 1 m"
                % (last["lat"], last["lon"]), "%s, %s m" % (marker, off))
        r.check(close_to(fields.get("accuracyRadius"), last.get("eph"), 0.01), "circle radius = eph %s" % last.get("eph"),
                fields.get("accuracyRadius"))
        r.check(count(fields.get("trackPoints")) == len(fixes), "one track point per fix gpsd sent (%d)" % len(fixes),
                fields.get("trackPoints") if not isinstance(fields.get("trackPoints"), list) else count(fields["trackPoints"]))
        r.check(not foreign(browser.requests(), origin_of(serve.url("/"))), "nothing requested from anywhere but the server",
                foreign(browser.requests(), origin_of(serve.url("/")))[:5])
        r.check(not browser.console_errors(), "no error in the browser's console", browser.console_errors()[:5])
    finally:
        for part in (witness, serve, replay):
            if part is not None:
                part.stop()
        browser.quit()
