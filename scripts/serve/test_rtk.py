"""Test 2: an RTK recording (scripts/serve/fixtures/nmea-rtk.log: a Trimble at 10 Hz, DGPS and
then RTK fixed, GGA quality 4) replayed by gpsfake into a real gpsd, with a pause in the middle:
5 s of $GPTXT sentences, which gpsd reads and reports nothing for, so fixes stop while gpsd and
the device stay (what a receiver that loses its fix without saying so looks like).

- the page turns stale --stale seconds (3) after the last fix before the pause, not before, and
  fresh again within 1.5 s of the first fix after it (both measured from gpspipe's arrivals);
- at the end the status says "RTK fixed" (gpsd's last TPVs have status 3), in
  window.loctrack.fixStatus and in #fix-status; the marker is at gpsd's last fix (1 m), the
  circle's radius its eph, the track one point per fix gpsd sent;
- nothing requested from anywhere but the server, no error in the console.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Dict, List, Optional

from support.gpsd_replay import Replay, distance_m, last_nmea_time, nmea, nmea_sentences, time_ms, with_lead_in
from support.results import Result
from support.serve_process import Serve

from .browser import Browser, foreign, origin_of
from .harness import RTK_LOG, Settings, close_to, count, start_witnessed

TITLE = "the page against an RTK recording, with a pause of its fixes"
EXPECTATION = "stale --stale s after the last fix, fresh with the next; \"RTK fixed\"; marker at the last fix (1 m), " \
              "circle = eph, one track point per fix"

STATUS_NAMES = {2: "DGPS", 3: "RTK fixed", 4: "RTK float"}
CYCLE = 0.01
PAUSE_AFTER = 200  # sentences (100 epochs of 10 Hz: gpsd's recognition of the receiver takes about half)
PAUSE_SENTENCES = 500  # 5 s at CYCLE


def paused_log(workdir: Path) -> Path:
    """The recording with PAUSE_SENTENCES $GPTXT sentences after its first PAUSE_AFTER sentences."""
    lines = RTK_LOG.read_text().splitlines()
    sentences = [index for index, line in enumerate(lines) if line.startswith("$")]
    cut = sentences[PAUSE_AFTER]
    pause = [nmea("GPTXT,01,01,02,loctrack serve-test pause %d" % index) for index in range(PAUSE_SENTENCES)]
    path = workdir / "nmea-rtk-paused.log"
    path.write_text("\n".join(lines[:cut] + pause + lines[cut:]) + "\n")
    return path


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("2-rtk")
    log = paused_log(workdir)
    browser = Browser()
    replay = serve = witness = None
    try:
        replay = Replay(workdir, with_lead_in(log, workdir, CYCLE), cycle=CYCLE)
        serve, witness = start_witnessed(r, replay, workdir, lambda: Serve(settings.loctrack, [replay.source], workdir))
        browser.open(serve.url("/"))
        browser.record()
        config = serve.get("/api/config")
        stale_seconds = float((config.json().get("staleSeconds") if config.status == 200 else None) or 3)
        last_time = last_nmea_time(RTK_LOG)
        timeout = nmea_sentences(replay.log) * max(CYCLE, 0.05) * 3 + 60
        if not r.check(witness.wait_time(last_time, timeout), "gpsd sent the recording's last epoch (%s)" % last_time):
            return
        fixes = witness.fixes()
        last = fixes[-1]
        check_pause(r, browser.page_log(), witness, stale_seconds)
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
                count(fields.get("trackPoints")))
        r.check(not foreign(browser.requests(), origin_of(serve.url("/"))), "nothing requested from anywhere but the server",
                foreign(browser.requests(), origin_of(serve.url("/")))[:5])
        r.check(not browser.console_errors(), "no error in the browser's console", browser.console_errors()[:5])
    finally:
        for part in (witness, serve, replay):
            if part is not None:
                part.stop()
        browser.quit()


def check_pause(r: Result, log: List[Dict], witness, stale_seconds: float) -> None:
    """Staleness around the pause, on the wall clock (the page log's Date.now())."""
    offset = time.time() - time.monotonic()
    arrivals = [at + offset for at, line in list(witness.lines) if '"class":"TPV"' in line and '"mode":3' in line]
    gaps = [(before, after) for before, after in zip(arrivals, arrivals[1:]) if after - before > 3.0]
    if not r.check(len(gaps) == 1, "gpsd's fixes paused once, for more than 3 s (the $GPTXT stretch)",
                   [round(after - before, 2) for before, after in gaps]):
        return
    before, after = gaps[0]
    became_stale = first(log, lambda entry: entry.get("stale") is True, before)
    fresh_again = first(log, lambda entry: entry.get("stale") is False, after - 0.5)
    stale_after = None if became_stale is None else became_stale - before
    r.check(stale_after is not None and stale_seconds - 0.3 <= stale_after <= stale_seconds + 1.5,
            "the page turns stale %g s after the last fix (--stale), not before: between %.1f and %.1f s"
            % (stale_seconds, stale_seconds - 0.3, stale_seconds + 1.5),
            "after %s s (the pause lasted %.1f s)" % (None if stale_after is None else round(stale_after, 2), after - before))
    fresh_after = None if fresh_again is None else fresh_again - after
    r.check(fresh_after is not None and fresh_after <= 1.5, "fresh again within 1.5 s of the next fix",
            "after %s s" % (None if fresh_after is None else round(fresh_after, 2)))
    r.note("the pause: %.1f s; stale after %s s, fresh %s s after the fixes came back" % (
        after - before, None if stale_after is None else round(stale_after, 2),
        None if fresh_after is None else round(fresh_after, 2)))


def first(log: List[Dict], match, since: float) -> Optional[float]:
    for entry in log:
        if entry["t"] / 1000.0 >= since and match(entry):
            return entry["t"] / 1000.0
    return None
