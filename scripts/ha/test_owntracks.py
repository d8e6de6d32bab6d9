"""Test 6: the OwnTracks route into Home Assistant's owntracks integration. `stream --format
owntracks` publishes the drive's locations to owntracks/loctrack/car, `monitor run --format
owntracks` its transitions to owntracks/loctrack/car/event; Home Assistant has zones named like
the regions. Every location within the accuracy limit (100 m) must be published, with `acc`,
and applied by Home Assistant unless the device is inside a region; each enter must put the
device in its zone, each leave take it out, and after the last leave the device must follow the
drive to its end (a lost or unmatched leave would freeze it)."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Dict, List, Tuple

from support.mqtt_broker import Subscriber
from support.results import Result
from support.waiting import wait_until

from . import contract
from .instance import Zone
from .replay import PORT_AUTHORITY, ZONES, Loctrack, Replay, json_objects
from .test_monitor import add_regions
from .world import Settings, World, close_to

TITLE = "OwnTracks route: locations and transitions into Home Assistant's owntracks integration"
EXPECTATION = "every fix with eph <= 100 m published with acc and applied outside regions; enter -> zone, " \
              "leave -> out; the position follows the drive after the last leave"

TOPIC = "owntracks/loctrack/car"
ENTITY = "device_tracker.loctrack_car"
RACE = 0.5  # seconds around a transition in which a location may reach Home Assistant before or after it


def regions() -> Dict[str, Zone]:
    """region id -> the Home Assistant zone named like the region's display name (the desc of its
    transitions): the circle as it is, a polygon as the circle around its vertices' centre."""
    name, lat, lon, radius = PORT_AUTHORITY
    zones = {name: Zone(name, lat, lon, radius)}
    for feature in json.loads(ZONES.read_text())["features"]:
        properties, geometry = feature["properties"], feature["geometry"]
        if geometry["type"] == "Point":
            lon, lat = geometry["coordinates"]
            radius = properties.get("radius", 25)
        else:
            ring = geometry["coordinates"][0][:-1]
            lon, lat = sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring)
            radius = max(_metres(lat, lon, p[1], p[0]) for p in ring)
        zones[properties["id"]] = Zone(properties.get("name", properties["id"]), lat, lon, round(radius, 1))
    return zones


def _metres(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    x = math.radians(lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2))
    return 6371008.8 * math.hypot(x, math.radians(lat2 - lat1))


def _epoch(iso: str) -> int:
    return int(datetime.strptime(iso[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp())


def run(settings: Settings, r: Result) -> None:
    zones = regions()
    world = World(settings, r, "6-owntracks", zones=list(zones.values()), owntracks=True)
    replay = None
    try:
        state_home = world.dir / "state"
        add_regions(settings, "default", state_home)
        wire = world.broker.subscribe(TOPIC, TOPIC + "/event")
        replay = Replay(world.dir)
        url = "mqtt://127.0.0.1:%d/%s" % (world.broker.port, TOPIC)
        reference = Loctrack(settings.loctrack, ["stream", "--format", "json", "--no-reconnect", replay.source],
                             world.dir, "reference")
        stream = Loctrack(settings.loctrack, ["stream", "--format", "owntracks", "--publish", url, "--client-id",
                                              "ot-stream", replay.source], world.dir, "stream")
        monitor = Loctrack(settings.loctrack, ["monitor", "run", "--format", "owntracks", "--publish", url,
                                               "--client-id", "ot-monitor", replay.source], world.dir, "monitor",
                           state_home=state_home)
        r.check(replay.wait_end(), "the replay ended")
        fixes = json_objects(reference.lines())
        reference.terminate()
        # Everything is out once every fix within the limit is published and the monitor's last
        # transition (the leave of bryant-park) too; then Home Assistant shows the last location.
        expected = accurate(fixes)
        last_leave = ("leave", zones["bryant-park"].name)

        def all_out() -> bool:
            locations, transitions = on_wire(wire)
            return set(expected) <= {location["tst"] for _, location in locations} \
                and last_leave in {(t.get("event"), t.get("desc")) for _, t in transitions}

        wait_until(all_out, 60, 0.25)
        locations, transitions = on_wire(wire)
        if locations:
            last = locations[-1][1]
            world.wait_state(ENTITY, lambda s: close_to(s["attributes"].get("latitude"), last.get("lat"), 1e-7)
                             and close_to(s["attributes"].get("longitude"), last.get("lon"), 1e-7), 30)
        check_published(r, fixes, locations, transitions, zones)
        check_applied(r, world, locations, transitions, zones)
        for process in (stream, monitor):
            process.terminate()
    finally:
        if replay is not None:
            replay.stop()
        world.close()


def accurate(fixes: List[Dict]) -> Dict[int, Dict]:
    """tst -> fix, of the fixes with a position whose eph is within the accuracy limit: what the
    OwnTracks route publishes."""
    return {_epoch(fix["time"]): fix for fix in fixes
            if "lat" in fix and fix.get("eph") is not None and fix["eph"] <= contract.MAX_ERROR}


def on_wire(wire: Subscriber) -> Tuple[List[Tuple[float, Dict]], List[Tuple[float, Dict]]]:
    """The locations and the transitions on the wire so far, each with its arrival time."""
    messages = wire.snapshot()
    locations = [(m.at, json.loads(m.payload)) for m in messages if m.topic == TOPIC and m.payload]
    locations = [(at, location) for at, location in locations if location.get("_type") == "location"]
    transitions = [(m.at, json.loads(m.payload)) for m in messages if m.topic == TOPIC + "/event" and m.payload]
    return locations, transitions


def check_published(r: Result, fixes: List[Dict], locations: List[Tuple[float, Dict]],
                    transitions: List[Tuple[float, Dict]], zones: Dict[str, Zone]) -> None:
    within = accurate(fixes)
    published = {location["tst"]: location for _, location in locations}
    r.check(set(published) == set(within), "every fix with eph <= %g m published, no other (by tst)" % contract.MAX_ERROR,
            "%d published, %d expected; missing %s, extra %s" % (len(published), len(within),
                                                                 sorted(set(within) - set(published))[:5],
                                                                 sorted(set(published) - set(within))[:5]))
    bad_acc = [(tst, location.get("acc"), within[tst]["eph"]) for tst, location in published.items() if tst in within
               and not (isinstance(location.get("acc"), int) and 1 <= location["acc"] <= contract.MAX_ERROR
                        and abs(location["acc"] - within[tst]["eph"]) <= 1)]
    r.check(not bad_acc, "each location's acc is an integer >= 1, its fix's eph to 1 m", bad_acc[:5])
    names = {zone.name for zone in zones.values()}
    events = [(t.get("event"), t.get("desc")) for _, t in transitions]
    r.note("transitions: %s" % events)
    r.check(events and all(desc in names for _, desc in events),
            "transitions' desc are the regions' display names (Home Assistant's zone names)", events)
    r.check(all(isinstance(t.get("tid"), str) and 1 <= len(t["tid"]) <= 2 for _, t in transitions),
            "transitions carry tid", [t.get("tid") for _, t in transitions])
    region_of = {zone.name: region for region, zone in zones.items()}
    region_of.update({region: region for region in zones})  # a desc that is the id still names the region
    kinds = [(event, region_of.get(desc, desc)) for event, desc in events]
    expected = [("enter", "port-authority"), ("leave", "port-authority"), ("enter", "bryant-park"), ("leave", "bryant-park")]
    r.check([kind for kind in kinds if kind[0] == "enter" or kind in expected] == expected,
            "the drive enters and leaves port-authority, then bryant-park (a leave of a region never entered aside)",
            kinds)


def check_applied(r: Result, world: World, locations: List[Tuple[float, Dict]],
                  transitions: List[Tuple[float, Dict]], zones: Dict[str, Zone]) -> None:
    changes = [(at, state) for at, state in world.ws.state_changes(ENTITY) if state]
    positions = [(at, state["attributes"].get("latitude"), state["attributes"].get("longitude"), state)
                 for at, state in changes]
    by_name = {zone.name: zone for zone in zones.values()}

    # Windows in which the device is inside a region (enter .. its leave), widened by RACE.
    windows, open_at = [], {}
    for at, transition in transitions:
        if transition.get("event") == "enter":
            open_at[transition.get("desc")] = at
        elif transition.get("event") == "leave" and transition.get("desc") in open_at:
            windows.append((open_at.pop(transition.get("desc")) - RACE, at + RACE))
    windows += [(at - RACE, float("inf")) for at in open_at.values()]
    outside = [(at, location) for at, location in locations if not any(start <= at <= end for start, end in windows)]
    seen = {(state["attributes"].get("latitude"), state["attributes"].get("longitude")) for _, state in changes}
    missed = [location["tst"] for _, location in outside if (location["lat"], location["lon"]) not in seen]
    r.figure = "%d locations published, %d of them outside regions, %d state changes in Home Assistant" % (
        len(locations), len(outside), len(changes))
    r.check(outside and not missed, "every location published outside a region applied by Home Assistant (lat/lon)",
            "%d of %d missed, tst %s" % (len(missed), len(outside), missed[:5]))
    published = {(location["lat"], location["lon"]) for _, location in locations} \
        | {(t["lat"], t["lon"]) for _, t in transitions if "lat" in t} \
        | {(zone.latitude, zone.longitude) for zone in zones.values()}
    invented = [(lat, lon) for _, lat, lon, _ in positions if (lat, lon) not in published]
    r.check(not invented, "Home Assistant shows no position loctrack did not send (or a zone's centre)", invented[:5])

    # What Home Assistant did with a transition: its state changes from RACE before the transition
    # reached the wire up to the next transition (two processes' clocks, mosquitto_sub's and this
    # one's WebSocket reads, and a busy machine between them: the order of the transitions is
    # what counts, not a moment).
    for index, (at, transition) in enumerate(transitions):
        zone = by_name.get(transition.get("desc"))
        if zone is None:
            continue
        until = transitions[index + 1][0] if index + 1 < len(transitions) else float("inf")
        later = [state for when, state in changes if at - RACE <= when < until]
        if transition.get("event") == "enter":
            hit = [s for s in later if s["state"] == zone.name and close_to(s["attributes"].get("latitude"), zone.latitude, 1e-7)]
            r.check(bool(hit), "enter %s: the device in the zone, at its centre" % zone.name,
                    [(s["state"], s["attributes"].get("latitude")) for s in later])
        else:
            out = [s for s in later if not close_to(s["attributes"].get("latitude"), zone.latitude, 1e-7)]
            r.check(bool(out), "leave %s: the device leaves the zone's centre" % zone.name,
                    [(s["state"], s["attributes"].get("latitude")) for s in later])

    last_at, last = locations[-1] if locations else (0.0, {})
    final = world.state(ENTITY) or {}
    attributes = final.get("attributes", {})
    r.check(close_to(attributes.get("latitude"), last.get("lat"), 1e-7) and close_to(attributes.get("longitude"), last.get("lon"), 1e-7),
            "after the last leave the device follows the drive: at the last location published",
            ((attributes.get("latitude"), attributes.get("longitude")), (last.get("lat"), last.get("lon"))))
    r.check(attributes.get("gps_accuracy") == last.get("acc"), "gps_accuracy = the last location's acc",
            (attributes.get("gps_accuracy"), last.get("acc")))
    r.check(final.get("state") == "not_home", "the drive ends outside every zone: not_home", final.get("state"))
