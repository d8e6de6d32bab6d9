"""Test 4: Home Assistant restarted after the drive, loctrack still running. On Home Assistant's
birth message (`online` on homeassistant/status) loctrack must publish every config and its
current state again; the entities must come back with the states they had."""

from __future__ import annotations

from typing import List

from support.results import Result
from support.waiting import wait_until

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
        # loctrack's last state message: gpsd gone at the replay's end, sent with whatever the
        # interval still held back (test 2). Only then are the states the ones to come back.
        gpsd_entity = ids[node.unique_id("gpsd")]
        r.check(bool(world.wait_state(gpsd_entity, lambda s: s["state"] == "off", 30)),
                "before the restart: binary sensor gpsd off (the replay's end)",
                (world.state(gpsd_entity) or {}).get("state"))
        before = {entity: (world.state(entity) or {}).get("state") for entity in ids.values()}

        world.stop_ha()
        mark = len(wire.snapshot())
        world.start_ha()
        birth = wire.wait_for(lambda m: m.topic == "homeassistant/status" and m.payload == b"online", 30, since=mark)
        if not r.check(birth is not None, "Home Assistant's birth message seen"):
            return
        wanted = set(node.configs().values()) | {BASE + "/state", BASE + "/location"}

        def missing() -> List[str]:
            after_birth = wire.snapshot()[wire.snapshot().index(birth):]
            return sorted(wanted - {m.topic for m in after_birth})

        wait_until(lambda: not missing(), 30, 0.2)
        r.check(not missing(), "after the birth message: every config, %s/state and %s/location again (within 30 s)"
                % (BASE, BASE), missing())
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
