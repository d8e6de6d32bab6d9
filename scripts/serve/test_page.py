"""Test 1: the page in headless Chromium against gpsfake replaying the demo drive (demo/track.nmea)
into a real gpsd, with `serve --monitor page` (the Port Authority circle and demo/zones.geojson).

What the page shows is compared with what gpsd sent, as gpspipe saw it (the witness), and with a
reference `loctrack monitor run --format json` over a second monitor with the same regions:

- the event connection cut for 10 s by a TCP relay between the browser and the server (the
  browser sees its connections reset and every new one refused); afterwards the track must hold
  every fix gpsd sent, those of the cut included;
- screenshots during the replay (1200x800 and a 390x844 phone), written to the artifacts and,
  with --figures, to docs/figures/serve.png and serve-phone.png;
- after the drive: the marker at gpsd's last fix (within 1 m), the accuracy circle's radius its
  eph, the track's points gpsd's fixes (count, and the last point), the satellites used and seen
  those of gpsd's last SKY, the fix mode and status; the distance panel's data-* attributes (and
  window.loctrack's distance fields) those of /api/distance after the cut's catch-up: today's
  distance plausible for the drive (0.9 to 1.15 times the straight line from its first to its
  last good fix: one straight street), the local date of the last fix, stopped at the end, the
  trip under way since the first moving fix after the opening stop; the regions: each transition of the
  reference monitor while the page is connected shown within 2 s, the state the transitions
  during the cut led to within 10 s of its end, each region's last state the monitor's, a colour
  per state, the region list (#region-ID) agreeing with window.loctrack.regions;
- the log's end, where gpsd reports the device gone: the page says "device lost" within 2 s and
  shows the fix as stale; then gpsd killed: the page says "gpsd unreachable" within 2 s;
- the page runs as ES modules: index.html's <script type="module" src="app.js">, and every module
  web/openapi.json names (the server's AssetCatalog.pageModules) requested and answered as
  text/javascript;
- nothing requested from anywhere but the server, no error in the console (a CSP violation is one).
"""

from __future__ import annotations

import json
import shutil
import time
from typing import Dict, List, Optional

from support.gpsd_replay import Replay, Witness, distance_m, last_nmea_time, nmea_sentences, time_ms, with_lead_in
from support.results import Result
from support.serve_process import Serve
from support.tcp_relay import Relay
from support.waiting import wait_until

from .browser import DESKTOP, PHONE, Browser, foreign, origin_of
from .harness import (DEMO_TRACK, ROOT, LoctrackProcess, Settings, add_demo_regions, close_to, count, number,
                      start_witnessed)

TITLE = "the page against a gpsfake replay of the demo drive"
EXPECTATION = "marker at the last fix (1 m), circle = eph, every fix in the track after a 10 s cut, " \
              "satellites = SKY's, regions follow the monitor, device lost and gpsd unreachable within 2 s"

CUT_SECONDS = 10.0
UNREACHABLE_LIMIT = 2.0
CATCH_UP = 10.0  # seconds after the cut for the page to have what it missed (EventSource's retries)


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("1-page")
    state = workdir / "state"
    if state.exists():
        shutil.rmtree(state)
    regions = add_demo_regions(settings.loctrack, "page", state)
    add_demo_regions(settings.loctrack, "reference", state)
    monitor_file = state / "loctrack" / "page.monitor.json"
    stored = monitor_file.read_bytes() if monitor_file.exists() else None
    browser = Browser()
    replay = serve = witness = reference = relay = None
    try:
        replay = Replay(workdir, with_lead_in(DEMO_TRACK, workdir, settings.cycle), cycle=settings.cycle)
        serve, witness = start_witnessed(r, replay, workdir, lambda: Serve(
            settings.loctrack, ["--monitor", "page", replay.source], workdir, state_home=state))
        reference = LoctrackProcess(settings.loctrack, ["monitor", "run", "--format", "json", "--name", "reference",
                                                        replay.source], workdir, "reference", state_home=state)
        relay = Relay(serve.port)
        url = "http://127.0.0.1:%d/" % relay.port
        seconds = browser.open(url)
        r.note("page ready %.2f s after the request (through the relay)" % seconds)
        check_modules(r, browser, url)
        browser.record()
        cut = _run(settings, r, browser, url, replay, witness, reference, relay, regions, serve)
        r.check(not foreign(browser.requests(), origin_of(url)), "nothing requested from anywhere but the server",
                foreign(browser.requests(), origin_of(url))[:5])
        unchanged = stored is not None and monitor_file.read_bytes() == stored
        r.check(unchanged, "serve never wrote the monitor's file (%s is as monitor add left it)" % monitor_file.name,
                "missing" if stored is None else "unchanged" if unchanged else "changed")
        errors = browser.console_errors(unless_between=[(cut[0] - 1, cut[1] + 5)] if cut else ())
        r.check(not errors, "no error in the browser's console (a CSP violation, a failed load, an exception; "
                "the network errors of the cut aside)", errors[:5])
    finally:
        for part in (relay, reference, witness):
            if part is not None:
                part.stop()
        if serve is not None:
            if serve.stderr().strip():
                r.note("serve's stderr (last lines): %s" % " | ".join(serve.stderr().strip().splitlines()[-4:]))
            serve.stop()
        if replay is not None:
            replay.stop()
        browser.quit()


def _run(settings, r: Result, browser: Browser, url: str, replay: Replay, witness: Witness,
         reference: LoctrackProcess, relay: Relay, regions: List[str], serve: Serve) -> Optional[tuple]:
    """The test proper; returns the cut's (start, end) in wall-clock seconds, once it happened."""
    started = wait_until(lambda: (count(browser.field("trackPoints")) or 0) >= 8, 40, 0.1)
    if not r.check(bool(started), "the page shows fixes during the replay (8 or more within 40 s)",
                   browser.field("trackPoints")):
        return None

    # -- the cut -----------------------------------------------------------------------------------
    before = browser.field("lastEventId")
    relay.cut()
    cut_wall, cut_at = time.time(), time.monotonic()
    # Once the page has seen its event stream drop, nothing can reach it until the relay is back.
    dropped = wait_until(lambda: browser.field("eventsOpen") is not True, CUT_SECONDS - 1, 0.05)
    dropped_after = time.monotonic() - cut_at
    early = browser.field("lastEventId")
    time.sleep(max(0.0, cut_at + CUT_SECONDS - 0.5 - time.monotonic()))
    late_page = browser.page()
    late = late_page["fields"].get("lastEventId")
    time.sleep(max(0.0, cut_at + CUT_SECONDS - time.monotonic()))
    relay.restore()
    restore_wall, restored_at = time.time(), time.monotonic()
    during = [line for at, line in list(witness.lines) if cut_at <= at <= restored_at and '"class":"TPV"' in line]
    r.check(dropped and early == late, "the cut holds: no event reached the page from when its event stream "
            "dropped to 9.5 s into the cut", "stream dropped after %.2f s; lastEventId %s before, %s then, %s at 9.5 s"
            % (dropped_after, before, early, late))
    r.check(len(during) >= 5, "gpsd went on sending during the cut", "%d TPVs in %g s" % (len(during), CUT_SECONDS))
    r.check("unreachable" in banner_text(late_page).lower() and late_page["fields"].get("eventsOpen") is not True,
            "during the cut the page says the server is unreachable (and its event stream is not open)",
            "banner %r, eventsOpen %r" % (banner_text(late_page), late_page["fields"].get("eventsOpen")))
    r.note("relay: %d connections joined, %d refused during the cut" % (relay.accepted, relay.refused_while_cut))

    # -- screenshots, once the page has caught up ----------------------------------------------------
    caught_up = wait_until(lambda: count(browser.field("trackPoints")) == len(witness.fixes()), 15, 0.05)
    catch_up = time.monotonic() - restored_at
    r.check(bool(caught_up) and catch_up <= CATCH_UP, "after the cut the page has every fix gpsd sent within %g s"
            % CATCH_UP, "%.2f s" % catch_up)
    last_time = last_nmea_time(DEMO_TRACK)
    mid_replay = not witness.seen_time(last_time)
    shots = [("serve.png", DESKTOP, False), ("serve-phone.png", PHONE, True)]
    browser.snapshots(url, [(settings.out / name, width, height, mobile) for name, (width, height), mobile in shots])
    if settings.figures is not None:
        settings.figures.mkdir(parents=True, exist_ok=True)
        for name, _, _ in shots:
            shutil.copyfile(settings.out / name, settings.figures / name)
    r.note("screenshots %s (%s the replay; the page %s)" % (
        ", ".join(str(settings.out / name) for name, _, _ in shots), "during" if mid_replay else "after",
        "caught up" if caught_up else "not caught up"))

    # -- the end of the drive ------------------------------------------------------------------------
    timeout = nmea_sentences(DEMO_TRACK) * max(settings.cycle, 0.05) * 3 + 60
    if not r.check(witness.wait_time(last_time, timeout), "gpsd sent the drive's last epoch (%s)" % last_time):
        return cut_wall, restore_wall
    fixes = witness.fixes()
    last = fixes[-1]
    last_ms = time_ms(last["time"])
    page = browser.wait(lambda p: p["fields"]["trackLast"][0] == last_ms, 30)
    if not r.check(page is not None, "the page's last track point is gpsd's last fix (%s) (within 30 s)" % last["time"],
                   browser.field("trackLast")):
        page = browser.page()
    fields, elements = page["fields"], page["elements"]
    r.figure = "%d fixes; %d sent during the 10 s cut, all on the page %.1f s after it" % (len(fixes), len(during), catch_up)
    check_position(r, fields, last)
    check_track(r, fields, fixes)
    check_sky(r, fields, elements, witness.last_sky())
    check_distance(r, browser, serve, fixes)
    text = (fields.get("fixStatus") or "") + " " + ((elements.get("fix-status") or {}).get("text") or "")
    r.check(fields.get("mode") == "3D" and fields.get("fixStatus") == "GPS" and "GPS" in text,
            "mode 3D, status GPS, as gpsd's last TPV (mode %s, no status field)" % last.get("mode"),
            (fields.get("mode"), fields.get("fixStatus"), (elements.get("fix-status") or {}).get("text")))
    states = browser.evaluate("return Array.from(document.querySelectorAll('[id^=\"region-\"]'))"
                              ".filter(e => e.id !== 'region-list').map(e => [e.id.slice(7), e.dataset.state])")
    r.check(dict(states or []) == (fields.get("regions") or {}) and len(states or []) == len(regions),
            "the region list shows each region (#region-ID) with the state of window.loctrack.regions",
            states)
    r.check(fields.get("cspViolations") in ([], None) and not (fields.get("cspViolations") or []),
            "the page saw no Content-Security-Policy violation", fields.get("cspViolations"))
    log = browser.page_log()
    (settings.out / "1-page" / "page-log.json").write_text(json.dumps(log))
    check_regions(r, log, reference.objects(), regions, (cut_wall, restore_wall), restore_wall + catch_up)

    # -- the device gone at the log's end, then gpsd gone --------------------------------------------
    lost = wait_until(lambda: [at for at, line in list(witness.lines) if '"class":"DEVICE"' in line
                               and '"activated":0' in line], 10, 0.05)
    if r.check(bool(lost), "gpsd reported the device gone at the end of the log (DEVICE, activated 0)"):
        lost_wall = to_wall(lost[0])
        browser.wait(lambda p: "device lost" in banner_text(p).lower(), max(0.0, lost_wall + 5 - time.time()), 0.05)
        shown = first_change(browser.page_log(), lambda entry: "device lost" in (entry.get("banner") or "").lower(),
                             lost_wall - 1)
        r.check(shown is not None and shown - lost_wall <= UNREACHABLE_LIMIT,
                "the page says \"device lost\" within %g s of gpsd's report" % UNREACHABLE_LIMIT,
                "after %s s" % (None if shown is None else round(shown - lost_wall, 2)))
        r.check(browser.field("stale") is True, "the device lost: the page shows the fix as stale", browser.field("stale"))
        if shown is not None:
            r.figure += "; \"device lost\" %.2f s after gpsd's report" % (shown - lost_wall)
    gone_from = lost_wall if lost else time.time()
    killed_wall = to_wall(replay.stop())
    said = browser.wait(lambda p: "gpsd unreachable" in banner_text(p).lower(), 30, 0.05)
    # When the page changed its banner, by its own log (sampled every 20 ms), not when a poll from
    # here saw it: a poll through WebDriver can take long on a busy machine. gpsfake may end gpsd
    # itself once its log is out, before the kill: then the page said so before it (after 0 s).
    shown = first_change(browser.page_log(), lambda entry: "gpsd unreachable" in (entry.get("banner") or "").lower(),
                         gone_from)
    after = None if shown is None else max(0.0, shown - killed_wall)
    r.check(said is not None and after is not None and after <= UNREACHABLE_LIMIT,
            "gpsd killed: the page says \"gpsd unreachable\" within %g s" % UNREACHABLE_LIMIT,
            "after %s s, banner %r" % (None if after is None else round(after, 2), banner_text(said or browser.page())))
    if after is not None:
        r.figure += "; \"gpsd unreachable\" %.2f s after gpsd was killed" % after
        r.check(bool((said["elements"].get("banner") or {}).get("visible")), "#banner is visible",
                said["elements"].get("banner"))
    return cut_wall, restore_wall


def page_modules() -> List[str]:
    """The page's ES modules, as web/openapi.json names them (a Swift test holds that list to the
    server's AssetCatalog.pageModules)."""
    document = json.loads((ROOT / "web" / "openapi.json").read_text())
    parameters = document["paths"]["/{module}"]["get"]["parameters"]
    return next(p["schema"]["enum"] for p in parameters if p.get("name") == "module")


def check_modules(r: Result, browser: Browser, url: str) -> None:
    """The page loaded as modules: the entry is a module script, and each module was fetched and
    answered with a JavaScript type (a browser runs a module script of no other type)."""
    entry = browser.evaluate("const s = document.querySelector('script[src=\"app.js\"]'); return s ? s.type : null")
    answered = {u[len(url):]: mime for u, mime in browser.responses().items() if u.startswith(url)}
    modules = page_modules()
    wrong = {name: answered.get(name) for name in modules if answered.get(name) != "text/javascript"}
    r.check(entry == "module" and not wrong and len(modules) >= 2,
            "the page runs as ES modules: app.js is a module script, and each of its %d modules was answered "
            "as text/javascript" % len(modules), "app.js type %r; not so: %s" % (entry, wrong))


def to_wall(monotonic: float) -> float:
    """A time.monotonic() reading as time.time() (the page's Date.now() clock)."""
    return monotonic + (time.time() - time.monotonic())


def first_change(log: List[Dict], match, since: float) -> Optional[float]:
    """The wall-clock time of the first page-log entry at or after since that matches."""
    for entry in log:
        if entry["t"] / 1000.0 >= since and match(entry):
            return entry["t"] / 1000.0
    return None


def banner_text(page: Optional[Dict]) -> str:
    if not page:
        return ""
    element = page["elements"].get("banner") or {}
    return "%s %s" % (page["fields"].get("banner") or "", element.get("text") or "")


def check_position(r: Result, fields: Dict, last: Dict) -> None:
    marker = fields.get("marker")
    try:
        off = distance_m(float(marker[0]), float(marker[1]), last["lat"], last["lon"])
    except (TypeError, IndexError, ValueError):
        off = None
    r.check(off is not None and off <= 1.0, "the marker stands at gpsd's last fix (%.7f, %.7f) within 1 m"
            % (last["lat"], last["lon"]), "marker %s, %s m off" % (marker, "?" if off is None else "%.3f" % off))
    r.check(close_to(fields.get("accuracyRadius"), last.get("eph"), 0.01),
            "the accuracy circle's radius is the fix's eph (%s m)" % last.get("eph"), fields.get("accuracyRadius"))


def check_track(r: Result, fields: Dict, fixes: List[Dict]) -> None:
    points = fields.get("trackPoints")
    r.check(count(points) == len(fixes), "the track has one point per fix gpsd sent (%d), the cut's included"
            % len(fixes), count(points))
    last = fixes[-1]
    tail = fields.get("trackLast") or []
    r.check(len(tail) >= 3 and tail[0] == time_ms(last["time"]) and close_to(tail[1], last["lat"], 1e-7)
            and close_to(tail[2], last["lon"], 1e-7),
            "the track's last point is [time, lat, lon] of gpsd's last fix", tail)
    if fields.get("trackTotal") is not None:
        r.check(number(fields.get("trackTotal")) == len(fixes), "trackTotal (the track at load + the fixes since) = the "
                "fixes gpsd sent", fields.get("trackTotal"))
    if isinstance(points, list):  # the page keeps the points themselves: every one, in order
        expected = [(time_ms(fix["time"]), fix["lat"], fix["lon"]) for fix in fixes]
        got = [(point[0], point[1], point[2]) for point in points if isinstance(point, list) and len(point) >= 3]
        same = len(got) == len(expected) and all(
            g[0] == e[0] and close_to(g[1], e[1], 1e-7) and close_to(g[2], e[2], 1e-7) for g, e in zip(got, expected))
        r.check(same, "every point is gpsd's fix of that time, in order",
                [(g, e) for g, e in zip(got, expected) if g[0] != e[0]][:3])


def check_sky(r: Result, fields: Dict, elements: Dict, sky: Optional[Dict]) -> None:
    if not r.check(sky is not None, "gpsd sent SKY reports"):
        return
    satellites = sky.get("satellites") or []
    used = sky.get("uSat", sum(1 for s in satellites if s.get("used")))
    seen = sky.get("nSat", len(satellites))
    r.check(number(fields.get("satellitesUsed")) == used, "satellites used = the last SKY's uSat (%d)" % used,
            fields.get("satellitesUsed"))
    r.check(number((elements.get("sat-used") or {}).get("text")) == used, "#sat-used shows %d" % used,
            elements.get("sat-used"))
    r.check(number(fields.get("satellitesSeen")) == seen, "satellites seen = the last SKY's nSat (%d)" % seen,
            fields.get("satellitesSeen"))
    r.check(number((elements.get("sat-seen") or {}).get("text")) == seen, "#sat-seen shows %d" % seen,
            elements.get("sat-seen"))


DISTANCE_DATA = "const e = document.getElementById('distance-section'); return e ? Object.assign({}, e.dataset) : null"


def check_distance(r: Result, browser: Browser, serve: Serve, fixes: List[Dict]) -> None:
    """The distance panel after the drive: its data-* attributes are /api/distance's values (the
    last `distance` event's, the ones missed in the cut included), and those are plausible for the
    demo drive: 42nd Street from 11th to 3rd Avenue after a 10 s stop, ending in a 23 s stop."""
    response = serve.get("/api/distance")
    api = response.json() if response.status == 200 else None
    if not r.check(isinstance(api, dict), "/api/distance answers an object", response.status):
        return

    def shown() -> Optional[Dict]:
        data = browser.evaluate(DISTANCE_DATA)
        return data if data and _number(data.get("distanceToday")) == api.get("today") else None
    data = wait_until(shown, 5, 0.05) or browser.evaluate(DISTANCE_DATA) or {}
    trip = api.get("trip") if isinstance(api.get("trip"), dict) else None
    expected = {"distanceToday": api.get("today"), "day": api.get("day"), "moving": "true" if api.get("moving") else "false",
                "tripState": "active" if trip else "none", "tripDistance": trip.get("distance") if trip else "",
                "tripStart": trip.get("start") if trip else ""}
    got = {key: _number(value) if key in ("distanceToday", "tripDistance") and value != "" else value
           for key, value in data.items() if key in expected}
    r.check(got == expected, "the distance panel's data-* attributes are /api/distance's values", (got, expected))
    fields = browser.page()["fields"]
    r.check(fields.get("distanceToday") == api.get("today") and fields.get("tripState") == expected["tripState"]
            and fields.get("tripDistance") == (trip.get("distance") if trip else None)
            and fields.get("moving") == bool(api.get("moving")),
            "window.loctrack's distanceToday, moving, tripState and tripDistance say the same",
            {key: fields.get(key) for key in ("distanceToday", "moving", "tripState", "tripDistance")})

    good = [fix for fix in fixes if fix.get("eph") is not None and fix["eph"] <= 100]
    straight = distance_m(good[0]["lat"], good[0]["lon"], good[-1]["lat"], good[-1]["lon"]) if good else 0.0
    today = api.get("today") or 0.0
    r.check(0.9 * straight <= today <= 1.15 * straight,
            "today's distance is plausible: 0.9 to 1.15 times the %.0f m from the first to the last good fix" % straight,
            "%.1f m" % today)
    last = fixes[-1]
    day = time.strftime("%Y-%m-%d", time.localtime(time_ms(last["time"]) / 1000))
    r.check(api.get("day") == day and api.get("time") == last["time"],
            "the day is the last fix's local date (%s) and time its time" % day, (api.get("day"), api.get("time")))
    r.check(api.get("moving") is False, "stopped at the end of the drive (its last 23 s stand still)", api.get("moving"))
    first_moving = next((fix for fix in fixes if (fix.get("speed") or 0) >= 0.5), None)
    start_ms = time_ms(trip["start"]) if trip and isinstance(trip.get("start"), str) else None
    r.check(trip is not None and first_moving is not None and start_ms is not None
            and abs(start_ms - time_ms(first_moving["time"])) <= 3000
            and 0 < trip.get("distance", 0) <= today + 0.1,
            "the trip is under way since the first moving fix (%s, within 3 s), its distance at most today's"
            % (first_moving or {}).get("time"), trip)
    text = browser.evaluate("const e = document.getElementById('distance-today'); return e ? e.textContent : null")
    r.check(text == "%.2f km" % (today / 1000), "#distance-today shows %.2f km" % (today / 1000), text)
    r.figure += "; today %.1f m, the trip %s m since %s" % (today, trip and trip.get("distance"), trip and trip.get("start"))


def _number(value) -> Optional[float]:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def check_regions(r: Result, log: List[Dict], events: List, regions: List[str], cut: tuple, caught_up: float) -> None:
    """The page's regions (the page log, sampled every 20 ms in the page) against the reference
    monitor's events.

    A transition while the page is connected must show within 2 s. The ones during the cut, and
    those after it until the page has caught up (`caught_up`: its event stream reconnects after a
    back-off of a few seconds), reach the page together, replayed in one burst, so only the state
    they led to can be seen: it must show within CATCH_UP seconds of the cut's end. Each region's
    last state must be the monitor's, and each state has a colour of its own."""
    cut_start, cut_end = cut
    burst_end = max(cut_end, caught_up)
    reference: Dict[str, List[tuple]] = {region: [] for region in regions}
    for at, event in events:
        if event.get("class") == "EVENT" and event.get("id") in reference and event.get("state"):
            if not reference[event["id"]] or reference[event["id"]][-1][1] != event["state"]:
                reference[event["id"]].append((at, event["state"]))
    changes = sum(len(steps) for steps in reference.values())
    if not r.check(changes > len(regions), "the reference monitor reported transitions along the drive",
                   {region: [state for _, state in steps] for region, steps in reference.items()}):
        return
    for region in regions:
        steps = reference[region]
        seen = [(entry["t"] / 1000.0, (entry.get("regions") or {}).get(region), (entry.get("colours") or {}).get(region))
                for entry in log]
        live = [(at, state) for at, state in steps if not cut_start - 0.5 <= at <= burst_end]
        lags = []
        for at, state in live:
            shown = [t for t, s, _ in seen if s == state and t >= at - 1.0]
            lags.append(None if not shown else round(shown[0] - at, 2))
        r.check(all(lag is not None and lag <= 2.0 for lag in lags),
                "region %s: each of its %d transitions outside the cut on the page within 2 s: %s"
                % (region, len(live), " -> ".join(state for _, state in live)), lags)
        during = [state for at, state in steps if cut_start - 0.5 <= at <= burst_end]
        if during:
            shown = [t for t, s, _ in seen if s == during[-1] and t >= cut_end - 0.5]
            catch_up = None if not shown else shown[0] - cut_end
            r.check(catch_up is not None and catch_up <= CATCH_UP,
                    "region %s: %s during the cut; the page shows %s within %g s of its end"
                    % (region, " -> ".join(during), during[-1], CATCH_UP),
                    "after %s s" % (None if catch_up is None else round(catch_up, 2)))
        final = seen[-1][1] if seen else None
        r.check(final == steps[-1][1], "region %s: the page ends %s, as the monitor" % (region, steps[-1][1]), final)
        colours: Dict[str, set] = {}
        for _, state, colour in seen:
            if state in ("satisfied", "unsatisfied"):
                colours.setdefault(state, set()).add(str(colour))
        if "satisfied" in colours and "unsatisfied" in colours:
            r.check(len(colours["satisfied"]) == 1 and len(colours["unsatisfied"]) == 1
                    and colours["satisfied"] != colours["unsatisfied"] and "None" not in colours["satisfied"],
                    "region %s: one colour inside, another outside" % region, colours)
