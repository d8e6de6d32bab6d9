"""Test 3: loctrack SIGKILLed in the middle of the drive. Its last will (retained `offline` on
BASE/availability) must make every entity unavailable; started again with the same client id it
must make them available again, still as one device with one set of entities, and the tracker
must follow the drive again."""

from __future__ import annotations

from support.results import Result
from support.waiting import wait_until

from . import contract
from .replay import Replay
from .test_stream import BASE, CLIENT_ID, retained, start_ha_stream
from .world import Settings, World

TITLE = "loctrack SIGKILLed and restarted"
EXPECTATION = "every entity unavailable after the kill (last will); available again after the restart, " \
              "one device, no duplicate entities, the tracker moving again"


def run(settings: Settings, r: Result) -> None:
    world = World(settings, r, "3-kill")
    replay = None
    try:
        node = contract.Node(CLIENT_ID, BASE)
        replay = Replay(world.dir, cycle=0.05)  # about twice as long as test 2's: room for a kill and a restart
        first = start_ha_stream(settings, world, replay, "loctrack-1", node)
        ids = world.entity_ids(list(node.configs()), timeout=60)
        if not r.check(len(ids) == len(node.configs()), "all %d entities registered" % len(node.configs()), len(ids)):
            return
        tracker = ids[node.unique_id("location")]
        moving = world.wait_state(tracker, lambda s: "latitude" in s["attributes"], 60)
        r.check(bool(moving), "the tracker has a position before the kill", moving and moving["state"])

        killed_at = world.state(tracker)["attributes"].get("latitude")
        first.kill()
        unavailable = wait_until(lambda: all((world.state(entity) or {}).get("state") == "unavailable"
                                             for entity in ids.values()), 15, 0.25)
        r.check(unavailable, "SIGKILL: every entity unavailable within 15 s (the last will)",
                {entity: (world.state(entity) or {}).get("state") for entity in ids.values()
                 if (world.state(entity) or {}).get("state") != "unavailable"})
        r.check(retained(world, BASE + "/availability") == b"offline", "the will is retained: offline",
                retained(world, BASE + "/availability"))

        second = start_ha_stream(settings, world, replay, "loctrack-2", node)
        available = wait_until(lambda: all((world.state(entity) or {}).get("state") not in (None, "unavailable")
                                           for entity in ids.values()), 30, 0.25)
        r.check(available, "restarted: every entity available again within 30 s",
                {entity: (world.state(entity) or {}).get("state") for entity in ids.values()})
        moved = world.wait_state(tracker, lambda s: s["attributes"].get("latitude") not in (None, killed_at), 30)
        r.check(bool(moved), "the tracker follows the drive again (a latitude other than the one at the kill, %s)"
                % killed_at, moved and moved["attributes"].get("latitude"))

        devices = world.devices_with(node.identifier)
        r.check(len(devices) == 1, "still exactly one device", len(devices))
        mine = [entry for entry in world.ws.entities() if entry.get("platform") == "mqtt"]
        r.check(sorted(entry["unique_id"] for entry in mine) == sorted(node.configs())
                and all(entry.get("device_id") == devices[0]["id"] for entry in mine if devices),
                "exactly the contract's entities, all on that device (none twice)",
                sorted(entry["entity_id"] for entry in mine))
        r.check(sorted(ids.values()) == sorted(world.entity_ids(list(node.configs())).values()),
                "the entity ids are the ones of the first run", ids)
        code = second.terminate()
        r.check(code == 0, "SIGTERM: exit 0", code)
        unavailable = wait_until(lambda: (world.state(tracker) or {}).get("state") == "unavailable", 15, 0.25)
        r.check(unavailable, "a clean exit: the tracker unavailable (offline published)",
                (world.state(tracker) or {}).get("state"))
    finally:
        if replay is not None:
            replay.stop()
        world.close()
