"""What loctrack promises Home Assistant (the --ha-discovery contract), as data the tests compare
with: node ids, topics, unique ids, the device, the sensors' keys, the mode and status names."""

from __future__ import annotations

import re
from typing import Dict, List, Optional

PREFIX = "homeassistant"
MODEL = "gpsd receiver via loctrack"
MANUFACTURER = "loctrack"
SENSOR_KEYS = ["mode", "status", "satellites_used", "satellites_seen", "hdop", "pdop", "speed", "altitude",
               "horizontal_error", "spool"]
CONNECTIVITY = ["gpsd", "receiver"]
# With --odometer (the command measures distance): the odometer sensor and the moving binary sensor,
# both reading the state document (its keys "odometer", in km, and "moving").
DISTANCE = [("sensor", "odometer"), ("binary_sensor", "moving")]
ODOMETER_ATTRIBUTES = {"device_class": "distance", "state_class": "total_increasing", "unit_of_measurement": "km"}
MODES = {0: "no fix", 1: "no fix", 2: "2D", 3: "3D"}
MAX_ERROR = 100.0  # --ha-max-error's default, and the OwnTracks route's accuracy limit


def sanitize(text: str) -> str:
    """Every character outside [A-Za-z0-9_-] replaced by `_` (node ids, region ids)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


class Node:
    """One loctrack publishing with --ha-discovery: its client id, base topic and prefix."""

    def __init__(self, client_id: str, base: str, prefix: str = PREFIX):
        self.client_id, self.base, self.prefix = client_id, base, prefix
        self.id = sanitize(client_id)

    def config_topic(self, component: str, object_id: str) -> str:
        return "%s/%s/%s/%s/config" % (self.prefix, component, self.id, object_id)

    def unique_id(self, object_id: str) -> str:
        return "%s_%s" % (self.id, object_id)

    @property
    def identifier(self) -> str:
        return "loctrack_" + self.id

    def configs(self, regions: Optional[List[str]] = None, odometer: bool = False) -> Dict[str, str]:
        """unique_id -> config topic of every entity a stream (regions None) or a monitor publishes;
        odometer: the command measures distance (--odometer)."""
        objects = [("device_tracker", "location")] + [("sensor", key) for key in SENSOR_KEYS] \
            + [("binary_sensor", name) for name in CONNECTIVITY]
        if odometer:
            objects += DISTANCE
        objects += [("binary_sensor", "region_" + sanitize(region)) for region in regions or []]
        return {self.unique_id(object_id): self.config_topic(component, object_id) for component, object_id in objects}

    def url(self, broker_port: int) -> str:
        return "mqtt://127.0.0.1:%d/%s" % (broker_port, self.base)


def status_name(tpv: Dict) -> str:
    """The contract's `status` for a gpsd TPV (gpsd's status field; absent means a plain GPS fix)."""
    return {2: "DGPS", 3: "RTK fixed", 4: "RTK float", 5: "dead reckoning", 6: "GNSS + dead reckoning"}.get(
        tpv.get("status", 1), "GPS")
