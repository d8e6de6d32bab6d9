"""Test 4: Home Assistant restarted after the drive, loctrack still running. On Home Assistant's
birth message (`online` on homeassistant/status) loctrack must publish every config and its
current state again; the entities must come back with the states they had."""

from __future__ import annotations

import time

from support.results import Result

from . import contract
from .replay import Loctrack, Replay, json_objects
from .test_stream import BASE, CLIENT_ID, check_tracker, expected_location, start_ha_stream
from .world import Settings, World, close_to

TITLE = "Home Assistant restarted"
EXPECTATION = "after the birth message loctrack publishes every config, the state and the location again; " \
              "the entities come back with the states they had"


def run(settings: Settings, r: Result) -> None:
    world = World(settings, r, "4-ha-restart")
    replay = None
    try:
        node = contract.Node(CLIENT_ID, BASE)
        wire = world.broker.subscribe("#")
        replay = Replay(world.dir)
        reference = Loctrack(settings.loctrack, ["stream", "--format", "json", "--no-reconnect", replay.source],
                             world.dir, "reference")
        loctrack = start_ha_stream(settings, world, replay, "loctrack", node)
        ids = world.entity_ids(list(node.configs()), timeout=60)
        if not r.check(len(ids) == len(node.configs()), "all %d entities registered" % len(node.configs()), len(ids)):
            return
        r.check(replay.wait_end(), "the replay ended")
        fix = expected_location(json_objects(reference.lines()))
        reference.terminate()
        tracker = ids[node.unique_id("location")]
        settled = world.wait_state(tracker, lambda s: fix is not None and close_to(s["attributes"].get("latitude"), fix["lat"], 1e-6), 15)
        r.check(bool(settled), "before the restart: the tracker at the last fix")
        time.sleep(2)  # the last state message (at most --ha-interval after the last fix) is out
        before = {entity: (world.state(entity) or {}).get("state") for entity in ids.values()}

        world.stop_ha()
        mark = len(wire.snapshot())
        world.start_ha()
        birth = wire.wait_for(lambda m: m.topic == "homeassistant/status" and m.payload == b"online", 5, since=mark)
        if not r.check(birth is not None, "Home Assistant's birth message seen"):
            return
        after_birth = wire.snapshot()[wire.snapshot().index(birth):]
        deadline = time.monotonic() + 10
        wanted = set(node.configs().values()) | {BASE + "/state", BASE + "/location"}
        while time.monotonic() < deadline and not wanted <= {m.topic for m in after_birth}:
            time.sleep(0.2)
            after_birth = wire.snapshot()[wire.snapshot().index(birth):]
        missing = sorted(wanted - {m.topic for m in after_birth})
        r.check(not missing, "within 10 s of the birth message: every config, %s/state and %s/location again"
                % (BASE, BASE), missing)
        back = {entity: (world.wait_state(entity, lambda s, was=was: s["state"] == was, 30) or {}).get("state")
                for entity, was in before.items()}
        r.check(back == before, "every entity back with the state it had", {e: (before[e], back[e]) for e in before
                                                                          if back[e] != before[e]})
        check_tracker(r, world.state(tracker), fix, "after the restart")
        devices = world.devices_with(node.identifier)
        r.check(len(devices) == 1, "one device", len(devices))
        loctrack.terminate()
    finally:
        if replay is not None:
            replay.stop()
        world.close()
