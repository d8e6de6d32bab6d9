"""Test 5: `loctrack monitor run --ha-discovery` over the demo drive, through its regions (the
Port Authority circle of scripts/demo.sh and demo/zones.geojson). A second monitor with the same
regions prints its EVENT lines (--format json) from the same gpsd: each region's binary sensor
in Home Assistant, and its ON/OFF messages on the broker, must follow exactly that monitor's
transitions (how long after its EVENT lines is a figure: two processes on a busy machine). Then a
region removed from the running monitor must leave Home Assistant."""

from __future__ import annotations

from typing import Dict, List

from support.results import Result
from support.waiting import wait_until

from . import contract
from .replay import PORT_AUTHORITY, ZONES, Loctrack, Replay, json_objects, run as run_loctrack
from .world import Settings, World

TITLE = "monitor run --ha-discovery through the regions"
EXPECTATION = "each region's binary sensor (device_class presence) turns on and off exactly at the " \
              "reference monitor's transitions; a removed region's entity is removed"

CLIENT_ID = "ha-monitor"
BASE = "loctrack/monitor"
REGIONS = ["port-authority", "bryant-park", "grand-central"]


def add_regions(settings: Settings, monitor: str, state_home) -> None:
    name, lat, lon, radius = PORT_AUTHORITY
    for args in (["monitor", "add", name, "--circle", "%s,%s,%s" % (lat, lon, radius)],
                 ["monitor", "add", "--geojson", str(ZONES)]):
        done = run_loctrack(settings.loctrack, args + ["--name", monitor], state_home=state_home)
        if done.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(args), done.returncode, done.stderr))


def transitions(events: List[Dict]) -> Dict[str, List[str]]:
    """Per region, the states the reference monitor went through: on (satisfied) / off, in order,
    starting from off (unknown counts as outside), each only when it changed."""
    states = {region: ["off"] for region in REGIONS}
    for event in events:
        if event.get("class") != "EVENT" or event.get("id") not in states:
            continue
        state = "on" if event["state"] == "satisfied" else "off"
        if states[event["id"]][-1] != state:
            states[event["id"]].append(state)
    return states


def collapse(states: List[str]) -> List[str]:
    """on/off in order, repeats and unavailable/unknown left out, starting from off."""
    result = ["off"]
    for state in states:
        if state in ("on", "off") and state != result[-1]:
            result.append(state)
    return result


def run(settings: Settings, r: Result) -> None:
    world = World(settings, r, "5-monitor")
    replay = None
    try:
        state_home = world.dir / "state"
        add_regions(settings, "ha", state_home)
        add_regions(settings, "ref", state_home)
        node = contract.Node(CLIENT_ID, BASE)
        wire = world.broker.subscribe(BASE + "/region/#")
        replay = Replay(world.dir)
        reference = Loctrack(settings.loctrack, ["monitor", "run", "--name", "ref", "--format", "json", "--no-reconnect",
                                                 replay.source], world.dir, "reference", state_home=state_home,
                             timestamped=True)
        monitor = Loctrack(settings.loctrack, ["monitor", "run", "--name", "ha", "--publish", node.url(world.broker.port),
                                               "--client-id", CLIENT_ID, "--ha-discovery", "--ha-interval", "1",
                                               replay.source], world.dir, "loctrack", state_home=state_home)
        regions = {region: node.unique_id("region_" + contract.sanitize(region)) for region in REGIONS}
        ids = world.entity_ids(list(node.configs(REGIONS)), timeout=60)
        if not r.check(set(regions.values()) <= set(ids), "a binary sensor per region registered", sorted(ids)):
            return
        r.check(replay.wait_end(), "the replay ended")
        expected = transitions(json_objects(reference.lines()))
        reference.terminate()
        r.note("the reference monitor's transitions: %s" % expected)
        r.check(expected["port-authority"] == ["off", "on", "off"] and expected["bryant-park"] == ["off", "on", "off"],
                "the drive enters and leaves port-authority and bryant-park (reference)", expected)

        for region, unique_id in regions.items():
            entity = ids[unique_id]
            final = expected[region][-1]
            world.wait_state(entity, lambda s: s["state"] == final, 30)
            seen = collapse([state["state"] for _, state in world.ws.state_changes(entity) if state])
            r.check(seen == expected[region], "%s: Home Assistant's %s went %s" % (region, entity, " -> ".join(expected[region])),
                    " -> ".join(seen))
            topic = "%s/region/%s" % (BASE, contract.sanitize(region))

            def sent(topic=topic) -> List[str]:
                return collapse([m.text.lower() for m in wire.snapshot() if m.topic == topic])

            wait_until(lambda: sent() == expected[region], 30, 0.25)
            r.check(sent() == expected[region], "%s: ON/OFF on %s in the same order" % (region, topic),
                    " -> ".join(sent()))
        lags = []
        for at, event in reference.timed_objects():
            if event.get("class") != "EVENT" or event.get("state") == event.get("previous") \
                    or event.get("previous") == "unknown" or event.get("id") not in regions:
                continue
            wanted = "on" if event["state"] == "satisfied" else "off"
            entity = ids[regions[event["id"]]]
            changes = [when for when, state in world.ws.state_changes(entity) if state and state["state"] == wanted]
            lags.append((event["id"], wanted, min((when - at for when in changes), key=abs) if changes else None))
        r.figure = "Home Assistant's region changes after the reference monitor's EVENT lines: %s" % ", ".join(
            "%s %s %+.2f s" % (region, state, lag) for region, state, lag in lags if lag is not None)
        r.check(lags and all(lag is not None for _, _, lag in lags),
                "each of the reference monitor's transitions shows in Home Assistant", lags)
        presence = world.state(ids[regions["port-authority"]]) or {}
        r.check(presence.get("attributes", {}).get("device_class") == "presence", "device_class presence",
                presence.get("attributes"))

        removed = run_loctrack(settings.loctrack, ["monitor", "remove", "grand-central", "--name", "ha"],
                               state_home=state_home)
        r.check(removed.returncode == 0, "monitor remove grand-central", removed.stderr.strip())
        gone = wait_until(lambda: regions["grand-central"] not in world.entity_ids([regions["grand-central"]], timeout=0), 30, 0.25)
        r.check(gone, "the removed region's entity left Home Assistant's registry (within 30 s)")
        kept = world.entity_ids([regions["port-authority"], regions["bryant-park"]], timeout=0)
        r.check(len(kept) == 2, "the other regions' entities stay", kept)
        monitor.terminate()
    finally:
        if replay is not None:
            replay.stop()
        world.close()
