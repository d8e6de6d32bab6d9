"""Test 2: `loctrack stream --ha-discovery --odometer` over the demo drive. A second loctrack prints
the same gpsd's fixes as JSON (--format json --odometer): the expected values. Home Assistant must
show one device with every entity of the contract (the odometer's two included), the tracker at
the last fix whose error is within --ha-max-error (to 1e-6 degrees, gps_accuracy = its eph), the
sensors with its mode, status and satellites, the odometer sensor (distance, total_increasing, km)
at the reference's last odometer to the metre and plausible for the drive, the moving binary
sensor (moving) on during the drive and at the reference's last state after it, gpsd's
connectivity on during the drive and off after it; the broker must have seen no per-fix lines and
no location beyond the error limit. (Tests 3-5 run without --odometer: their devices hold no
odometer entity.)"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Dict, List, Optional

from support.mqtt_broker import Subscriber
from support.results import Result

from . import contract
from .replay import Loctrack, Replay, json_objects, run as run_loctrack
from .world import Settings, World, close_to

TITLE = "stream --ha-discovery --odometer over the demo drive"
EXPECTATION = "one device, every entity; tracker = last fix with eph <= 100 m (1e-6 deg, gps_accuracy = eph); " \
              "sensors mode/status/satellites; odometer (distance, total_increasing, km) = the reference's to " \
              "the metre; moving on during the drive; gpsd on, then off; no per-fix lines, no fix beyond the limit"

CLIENT_ID = "ha-test.car 1"  # sanitized: ha-test_car_1 (a client id cannot hold "/": it names the spool folder)
BASE = "loctrack/car"
HA_NAME = "Test Car"


def version(settings: Settings) -> str:
    """loctrack's version, as `loctrack --version` prints it without the leading name."""
    return run_loctrack(settings.loctrack, ["--version"]).stdout.strip().replace("loctrack ", "", 1)


def start_ha_stream(settings: Settings, world: World, replay: Replay, name: str, node: contract.Node,
                    extra: List[str] = (), state_home: Optional[Path] = None) -> Loctrack:
    """loctrack stream --ha-discovery; state_home: an XDG_STATE_HOME of its own (where --odometer keeps it)."""
    return Loctrack(settings.loctrack, ["stream", "--publish", node.url(world.broker.port), "--client-id",
                                        node.client_id, "--ha-discovery", "--ha-name", HA_NAME, "--ha-interval", "1",
                                        *extra, replay.source], world.dir, name, state_home=state_home)


def expected_location(fixes: List[Dict], max_error: float = contract.MAX_ERROR) -> Optional[Dict]:
    """The last fix (with a position) whose eph is known and within max_error."""
    usable = [fix for fix in fixes if "lat" in fix and fix.get("eph") is not None and fix["eph"] <= max_error]
    return usable[-1] if usable else None


def check_tracker(r: Result, state: Optional[Dict], fix: Dict, what: str) -> None:
    attributes = (state or {}).get("attributes", {})
    r.check(close_to(attributes.get("latitude"), fix["lat"], 1e-6) and close_to(attributes.get("longitude"), fix["lon"], 1e-6),
            "%s: tracker latitude/longitude = the fix's (%.7f, %.7f) to 1e-6" % (what, fix["lat"], fix["lon"]),
            (attributes.get("latitude"), attributes.get("longitude")))
    r.check(close_to(attributes.get("gps_accuracy"), fix["eph"], 1e-3), "%s: gps_accuracy = eph %.3f" % (what, fix["eph"]),
            attributes.get("gps_accuracy"))
    altitudes = [fix.get("altHAE"), fix.get("altMSL")]
    r.check(any(close_to(attributes.get("altitude"), altitude, 1e-3) for altitude in altitudes),
            "%s: altitude = altHAE or altMSL %s" % (what, altitudes), attributes.get("altitude"))
    r.check(close_to(attributes.get("speed"), fix.get("speed"), 1e-3), "%s: speed = the fix's (m/s)" % what,
            (attributes.get("speed"), fix.get("speed")))
    r.check(attributes.get("source_type") == "gps" and str(attributes.get("time", "")).startswith(fix["time"][:19]),
            "%s: source_type gps, time = the fix's %s" % (what, fix["time"]),
            (attributes.get("source_type"), attributes.get("time")))


def run(settings: Settings, r: Result) -> None:
    world = World(settings, r, "2-stream")
    replay = None
    try:
        node = contract.Node(CLIENT_ID, BASE)
        wire = world.broker.subscribe("#")
        replay = Replay(world.dir)
        # Each odometer starts from 0 in a state folder of its own: the same fixes give the same metres.
        reference = Loctrack(settings.loctrack, ["stream", "--format", "json", "--no-reconnect", "--odometer",
                                                 replay.source], world.dir, "reference", timestamped=True,
                             state_home=world.dir / "reference-state")
        tracker_ha = start_ha_stream(settings, world, replay, "loctrack", node, ["--odometer"],
                                     state_home=world.dir / "loctrack-state")
        configs = node.configs(odometer=True)
        ids = world.entity_ids(list(configs), timeout=60)
        r.check(len(ids) == len(configs), "all %d entities registered (by unique_id) within 60 s, the odometer's "
                "two included" % len(configs), sorted(set(configs) - set(ids)) or len(ids))
        gpsd_entity = ids.get(node.unique_id("gpsd"))
        r.check(bool(gpsd_entity and world.wait_state(gpsd_entity, lambda s: s["state"] == "on", 60)),
                "binary sensor gpsd on during the drive", gpsd_entity and (world.state(gpsd_entity) or {}).get("state"))
        r.check(replay.wait_end(), "the replay ended")
        fixes = json_objects(reference.lines())
        reference.terminate()
        fix = expected_location(fixes)
        if not r.check(fix is not None and len(fixes) > 200, "the reference run printed the drive's fixes", len(fixes)):
            return
        r.note("last fix within %g m: %s lat %.7f lon %.7f eph %.2f" % (contract.MAX_ERROR, fix["time"], fix["lat"],
                                                                         fix["lon"], fix["eph"]))
        check_result(settings, world, r, node, ids, fixes, fix, wire, tracker_ha)
        check_distance(world, r, node, ids, fixes)
        check_rate(r, node, reference.timed_objects(), wire)
        code = tracker_ha.terminate()
        r.check(code == 0, "SIGTERM: loctrack exits 0", code)
        r.check(retained(world, BASE + "/availability") == b"offline",
                "after a clean exit the broker keeps offline (retained) on availability",
                retained(world, BASE + "/availability"))
    finally:
        if replay is not None:
            replay.stop()
        world.close()


def check_result(settings: Settings, world: World, r: Result, node: contract.Node, ids: Dict[str, str],
                 fixes: List[Dict], fix: Dict, wire: Subscriber, tracker_ha: Loctrack) -> None:
    tracker = ids.get(node.unique_id("location"), "")
    state = world.wait_state(tracker, lambda s: close_to(s["attributes"].get("latitude"), fix["lat"], 1e-6), 30)
    check_tracker(r, state or world.state(tracker), fix, "after the drive")
    r.check(bool(state) and state["state"] == "not_home", "tracker state not_home", state and state["state"])
    # gpsd gone is loctrack's last state message, sent with what the interval held back: the
    # sensors are read after it.
    gpsd_entity = ids.get(node.unique_id("gpsd"), "")
    r.check(bool(world.wait_state(gpsd_entity, lambda s: s["state"] == "off", 30)),
            "binary sensor gpsd off once gpsd is gone (the end of the replay)", (world.state(gpsd_entity) or {}).get("state"))

    last = fixes[-1]
    sensors = {key: (world.state(ids.get(node.unique_id(key), "")) or {}).get("state") for key in contract.SENSOR_KEYS}
    r.note("sensors: %s" % sensors)
    r.check(sensors["mode"] == contract.MODES[last["mode"]], "sensor mode = the last fix's (%s)"
            % contract.MODES[last["mode"]], sensors["mode"])
    r.check(sensors["status"] == contract.status_name(last), "sensor status = %s" % contract.status_name(last),
            sensors["status"])
    used, seen = _number(sensors["satellites_used"]), _number(sensors["satellites_seen"])
    r.check(used is not None and seen is not None and 4 <= used <= seen, "satellites: 4 <= used <= seen (a 3D fix)",
            (used, seen))
    r.check(close_to(_number(sensors["horizontal_error"]), last.get("eph"), 0.01), "horizontal_error = the last eph",
            (sensors["horizontal_error"], last.get("eph")))
    r.check(close_to(_number(sensors["altitude"]), last.get("altHAE"), 0.01)
            or close_to(_number(sensors["altitude"]), last.get("altMSL"), 0.01), "sensor altitude = the last fix's",
            sensors["altitude"])
    r.check(all(_number(sensors[key]) is not None for key in ("hdop", "pdop", "speed", "spool")),
            "hdop, pdop, speed, spool are numbers", {key: sensors[key] for key in ("hdop", "pdop", "speed", "spool")})

    devices = world.devices_with(node.identifier)
    device = devices[0] if len(devices) == 1 else {}
    r.check(len(devices) == 1 and device.get("name") == HA_NAME and device.get("model") == contract.MODEL
            and device.get("manufacturer") == contract.MANUFACTURER and device.get("sw_version") == version(settings),
            "one device: name %r, model, manufacturer, sw_version %s" % (HA_NAME, version(settings)), devices)
    on_device = sorted(entry["unique_id"] for entry in world.ws.entities() if entry.get("device_id") == device.get("id"))
    r.check(on_device == sorted(node.configs(odometer=True)), "the device holds exactly the contract's entities",
            on_device)

    messages = wire.snapshot()
    r.check(not [m for m in messages if m.topic == node.base], "no per-fix lines on %s itself" % node.base,
            len([m for m in messages if m.topic == node.base]))
    locations = [json.loads(m.payload) for m in messages if m.topic == node.base + "/location" and m.payload]
    beyond = [location for location in locations if location.get("gps_accuracy", 0) > contract.MAX_ERROR]
    r.check(locations and not beyond, "%d location messages, none with gps_accuracy > %g m" % (len(locations),
                                                                                              contract.MAX_ERROR), beyond[:3])
    changes = world.ws.state_changes(tracker)
    worst = max([change["attributes"].get("gps_accuracy", 0) for _, change in changes if change] or [0])
    r.check(worst <= contract.MAX_ERROR, "the tracker never showed gps_accuracy > %g m" % contract.MAX_ERROR, worst)
    times = [m.at for m in messages if m.topic == node.base + "/location"]
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    r.figure = "%d location messages for %d fixes; smallest gap %.2f s" % (len(times), len(fixes), min(gaps or [0]))
    r.check(len(times) < len(fixes) * 0.7, "--ha-interval 1: fewer location messages than fixes",
            "%d messages, %d fixes" % (len(times), len(fixes)))
    receiver = ids.get(node.unique_id("receiver"), "")
    r.check((world.state(receiver) or {}).get("state") in ("on", "off"), "binary sensor receiver is on or off",
            (world.state(receiver) or {}).get("state"))
    if tracker_ha.stderr():
        r.note("loctrack's stderr: %s" % tracker_ha.stderr()[-300:].replace("\n", " | "))


def check_distance(world: World, r: Result, node: contract.Node, ids: Dict[str, str], fixes: List[Dict]) -> None:
    """--odometer: the odometer sensor and the moving binary sensor as Home Assistant shows them, after
    the drive (what the interval held back went out when gpsd went away), against the reference's
    last fix line, which carries the same odometer (same fixes, same start)."""
    positioned = [fix for fix in fixes if "lat" in fix]
    with_odometer = [fix for fix in positioned if isinstance(fix.get("odometer"), (int, float))]
    if not r.check(positioned and len(with_odometer) == len(positioned),
                   "the reference (--odometer) wrote odometer and moving on every fix line",
                   "%d of %d" % (len(with_odometer), len(positioned))):
        return
    last = with_odometer[-1]
    kilometres = round(last["odometer"]) / 1000
    odometer = ids.get(node.unique_id("odometer"), "")
    shown = world.wait_state(odometer, lambda s: close_to(_number(s["state"]), kilometres, 0.0015), 20)
    state = shown or world.state(odometer) or {}
    attributes = state.get("attributes", {})
    r.check(all(attributes.get(key) == value for key, value in contract.ODOMETER_ATTRIBUTES.items()),
            "odometer sensor: device_class distance, state_class total_increasing, unit km",
            {key: attributes.get(key) for key in contract.ODOMETER_ATTRIBUTES})
    r.check(shown is not None, "odometer = the reference's last fix's %.3f m as %.3f km" % (last["odometer"], kilometres),
            state.get("state"))
    good = [fix for fix in positioned if fix.get("eph") is not None and fix["eph"] <= contract.MAX_ERROR]
    straight = _metres(good[0], good[-1]) if good else 0.0
    r.check(0.9 * straight <= last["odometer"] <= 1.15 * straight,
            "plausible: between 0.9x and 1.15x the %.0f m from the first to the last good fix (one straight street)"
            % straight, "%.1f m" % last["odometer"])
    r.figure = (r.figure + "; " if r.figure else "") + "odometer %.3f km, %.0f m as the crow flies" % (
        kilometres, straight)
    moving = ids.get(node.unique_id("moving"), "")
    expected = "on" if last.get("moving") else "off"
    settled = world.wait_state(moving, lambda s: s["state"] == expected, 20)
    r.check(settled is not None and settled["attributes"].get("device_class") == "moving",
            "moving binary sensor (device_class moving) = the reference's last (%s)" % expected,
            (world.state(moving) or {}).get("state"))
    seen = [change["state"] for _, change in world.ws.state_changes(moving) if change]
    r.check("on" in seen, "moving was on during the drive", seen)


def check_rate(r: Result, node: contract.Node, fixes: List, wire: Subscriber, interval: float = 1.0) -> None:
    """--ha-interval 1: a state message at least every interval (+0.6 s) while fixes come, and one at
    once (within 0.6 s) when the mode changes; fixes: (arrival, fix) as the reference loctrack printed them."""
    states = [(m.at, json.loads(m.payload)) for m in wire.snapshot() if m.topic == node.base + "/state" and m.payload]
    if not r.check(len(fixes) > 1 and states, "state messages during the drive", len(states)):
        return
    first, last = fixes[0][0], fixes[-1][0]
    times = [first] + [at for at, _ in states if first <= at <= last] + [last]
    worst = max(later - earlier for earlier, later in zip(times, times[1:]))
    r.check(worst <= interval + 0.6, "a state message at least every %g s while fixes come (worst gap)" % interval,
            "%.2f s" % worst)
    changes = [(at, contract.MODES[fix["mode"]]) for (at, fix), (_, before) in zip(fixes[1:], fixes)
               if fix.get("mode") != before.get("mode")]
    lags = []
    for at, mode in changes:
        sent = [when for when, state in states if when >= at - 0.5 and state.get("mode") == mode]
        lags.append((mode, round(sent[0] - at, 3) if sent else None))
    r.check(changes and all(lag is not None and lag <= 0.6 for _, lag in lags),
            "each mode change in a state message at once (within 0.6 s of the fix)", lags)


def retained(world: World, topic: str) -> Optional[bytes]:
    """The message the broker keeps for topic (None if none within 3 s)."""
    subscriber = world.broker.subscribe(topic)
    try:
        message = subscriber.wait_for(lambda m: m.retained, 3)
        return message.payload if message else None
    finally:
        subscriber.close()


def _metres(a: Dict, b: Dict) -> float:
    """The great-circle distance between two fixes (a sphere of the Earth's mean radius)."""
    lat1, lat2 = math.radians(a["lat"]), math.radians(b["lat"])
    dlat, dlon = lat2 - lat1, math.radians(b["lon"] - a["lon"])
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def _number(text) -> Optional[float]:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
