"""Test 1, the harness itself: discovery messages made by hand, per the contract, published with
mosquitto_pub; Home Assistant must make the device and its entities from them, with the values
sent. Needs no loctrack: it proves Home Assistant, MQTT and the reading of states work."""

from __future__ import annotations

import json

from support.results import Result
from support.waiting import wait_until

from . import contract
from .world import Settings, World, close_to

TITLE = "harness self-test: hand-made discovery messages become Home Assistant entities"
EXPECTATION = "device_tracker with the attributes sent, a sensor, a binary sensor, one device; " \
              "availability and removal work"

LOCATION = {"latitude": 40.7565588, "longitude": -73.9888937, "gps_accuracy": 12.5, "altitude": 31.2, "speed": 4.25,
            "course": 92.5, "source_type": "gps", "time": "2026-03-15T11:13:09Z"}


def run(settings: Settings, r: Result) -> None:
    world = World(settings, r, "1-selftest")
    try:
        _run(world, r)
    finally:
        world.close()


def _publish_discovery(world: World, node: contract.Node) -> None:
    device = {"identifiers": [node.identifier], "name": "Selftest Car", "model": contract.MODEL,
              "manufacturer": contract.MANUFACTURER, "sw_version": "0.0-selftest"}
    common = {"availability_topic": node.base + "/availability", "device": device}
    configs = {
        node.config_topic("device_tracker", "location"): dict(common, name="Location", unique_id=node.unique_id("location"),
                                                              json_attributes_topic=node.base + "/location",
                                                              source_type="gps"),
        node.config_topic("sensor", "mode"): dict(common, name="Mode", unique_id=node.unique_id("mode"),
                                                  state_topic=node.base + "/state",
                                                  value_template="{{ value_json.mode }}"),
        node.config_topic("binary_sensor", "gpsd"): dict(common, name="gpsd", unique_id=node.unique_id("gpsd"),
                                                         state_topic=node.base + "/gpsd",
                                                         device_class="connectivity"),
    }
    broker = world.broker
    broker.publish(node.base + "/availability", "online", retain=True)
    for topic, config in configs.items():
        broker.publish(topic, json.dumps(config), retain=True)
    broker.publish(node.base + "/location", json.dumps(dict(LOCATION, unknown_key="kept?")), retain=True)
    broker.publish(node.base + "/state", json.dumps({"mode": "3D", "status": "GPS", "satellites_used": 9}), retain=True)
    broker.publish(node.base + "/gpsd", "ON", retain=True)


def _run(world: World, r: Result) -> None:
    node = contract.Node("ha selftest/1", "selftest/car")
    r.check(node.id == "ha_selftest_1", "node id: the client id sanitized", node.id)
    _publish_discovery(world, node)
    wanted = [node.unique_id(name) for name in ("location", "mode", "gpsd")]
    ids = world.entity_ids(wanted)
    if not r.check(len(ids) == 3, "the three entities registered, found by unique_id", ids):
        return
    tracker, mode, gpsd = (ids[unique] for unique in wanted)
    r.note("entity ids Home Assistant chose: %s, %s, %s" % (tracker, mode, gpsd))

    state = world.wait_state(tracker, lambda s: "latitude" in s["attributes"])
    attributes = state["attributes"] if state else {}
    r.check(state is not None and state["state"] == "not_home", "tracker state not_home (outside every zone)",
            state and state["state"])
    r.check(close_to(attributes.get("latitude"), LOCATION["latitude"], 1e-9)
            and close_to(attributes.get("longitude"), LOCATION["longitude"], 1e-9),
            "tracker latitude/longitude as sent", (attributes.get("latitude"), attributes.get("longitude")))
    r.check(attributes.get("gps_accuracy") == LOCATION["gps_accuracy"], "gps_accuracy as sent",
            attributes.get("gps_accuracy"))
    extra = {key: attributes.get(key) for key in ("altitude", "speed", "course", "time", "source_type", "unknown_key")}
    r.check(extra == {"altitude": 31.2, "speed": 4.25, "course": 92.5, "time": "2026-03-15T11:13:09Z",
                      "source_type": "gps", "unknown_key": "kept?"},
            "the other keys of the attributes message become attributes as they are", extra)
    r.check(bool(world.wait_state(mode, lambda s: s["state"] == "3D")), "sensor mode = 3D through value_template",
            (world.state(mode) or {}).get("state"))
    r.check(bool(world.wait_state(gpsd, lambda s: s["state"] == "on")), "binary sensor gpsd on",
            (world.state(gpsd) or {}).get("state"))

    devices = world.devices_with(node.identifier)
    device = devices[0] if len(devices) == 1 else {}
    r.check(len(devices) == 1 and device.get("name") == "Selftest Car" and device.get("model") == contract.MODEL
            and device.get("manufacturer") == contract.MANUFACTURER and device.get("sw_version") == "0.0-selftest",
            "one device, with name, model, manufacturer, sw_version", devices)
    on_device = sorted(entry["entity_id"] for entry in world.ws.entities() if entry.get("device_id") == device.get("id"))
    r.check(on_device == sorted(ids.values()), "the device holds exactly the three entities", on_device)

    world.broker.publish(node.base + "/availability", "offline", retain=True)
    gone = all(world.wait_state(entity, lambda s: s["state"] == "unavailable", 30) for entity in ids.values())
    r.check(gone, "availability offline: every entity unavailable")
    world.broker.publish(node.base + "/availability", "online", retain=True)
    back = world.wait_state(tracker, lambda s: s["state"] == "not_home", 30)
    r.check(bool(back) and close_to(back["attributes"].get("latitude"), LOCATION["latitude"], 1e-9),
            "online again: the tracker is back with its last attributes", back and back["state"])

    world.broker.publish(node.config_topic("binary_sensor", "gpsd"), b"", retain=True)
    removed = wait_until(lambda: not world.entity_ids([node.unique_id("gpsd")], timeout=0), 30, 0.25)
    r.check(removed, "an empty retained config removes the entity from the registry")
