"""What every test stands on: its own folder, a mosquitto, a Home Assistant core wired to it and
a WebSocket connection to that Home Assistant collecting state changes; and the waits for Home
Assistant's entities and states that the tests share (each with a deadline)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from support.mqtt_broker import Broker
from support.results import Result
from support.waiting import wait_until

from .api import WebSocket
from .instance import HomeAssistant, Zone

ENTITY_TIMEOUT = 30.0  # seconds for an entity, a state or a registry change to show up


class Settings:
    """The run's settings: the loctrack binary, the venv's Python, the artifacts folder."""

    def __init__(self, loctrack: str, python: Path, out: Path):
        self.loctrack, self.python, self.out = loctrack, python, out


class World:
    """A test's broker, Home Assistant and WebSocket; close() ends them (and keeps the folder)."""

    def __init__(self, settings: Settings, result: Result, name: str, zones: Sequence[Zone] = (),
                 owntracks: bool = False):
        self.settings = settings
        self.result = result
        self.dir = settings.out / name
        if self.dir.exists():
            shutil.rmtree(self.dir)  # a fresh Home Assistant: no registries of an earlier run
        self.dir.mkdir(parents=True)
        self.broker = Broker(self.dir)
        self.ha = HomeAssistant(self.dir, self.broker, zones=zones, owntracks=owntracks, python=settings.python)
        self.ws: Optional[WebSocket] = None
        self.start_ha()

    def start_ha(self) -> float:
        """Starts (or restarts) Home Assistant, reconnects the WebSocket, subscribes to state changes."""
        seconds = self.ha.start()
        self.result.note("Home Assistant up in %.1f s" % seconds)
        if self.ws is not None:
            self.ws.close()
        self.ws = WebSocket(self.ha.port, self.ha.token)
        self.ws.subscribe_state_changes()
        return seconds

    def stop_ha(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None
        self.ha.stop()

    def close(self) -> None:
        try:
            errors = self.ha.log_errors()
            if errors:
                self.result.note("Home Assistant's log has %d error/warning lines (%s), the first: %s"
                                 % (len(errors), self.ha.log, errors[0][:300]))
        finally:
            self.stop_ha()
            self.broker.stop()

    # -- the registries ----------------------------------------------------------------------

    def entity_ids(self, unique_ids: Sequence[str], timeout: float = ENTITY_TIMEOUT) -> Dict[str, str]:
        """unique_id -> entity_id of the MQTT entities with these unique ids, waiting until all are
        registered (or the deadline; then the ones that are)."""
        wanted = set(unique_ids)

        def probe():
            found = {entry["unique_id"]: entry["entity_id"] for entry in self.ws.entities()
                     if entry.get("platform") == "mqtt" and entry.get("unique_id") in wanted}
            return found if len(found) == len(wanted) else None
        found = wait_until(probe, timeout, 0.5)
        if found:
            return found
        return {entry["unique_id"]: entry["entity_id"] for entry in self.ws.entities()
                if entry.get("platform") == "mqtt" and entry.get("unique_id") in wanted}

    def devices_with(self, identifier: str) -> List[Dict]:
        """The device registry's devices whose identifiers include ("mqtt", identifier)."""
        return [device for device in self.ws.devices()
                if any(list(pair) == ["mqtt", identifier] for pair in device.get("identifiers", []))]

    # -- states --------------------------------------------------------------------------------

    def state(self, entity_id: str) -> Optional[Dict]:
        return self.ha.rest.state(entity_id)

    def wait_state(self, entity_id: str, match: Callable[[Dict], Any], timeout: float = ENTITY_TIMEOUT) -> Optional[Dict]:
        """The entity's state once match(state) holds (None if not within timeout)."""
        def probe():
            state = self.state(entity_id)
            return state if state is not None and match(state) else None
        return wait_until(probe, timeout, 0.25)


def close_to(a: Optional[float], b: Optional[float], tolerance: float) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) <= tolerance


def elapsed(since: float) -> float:
    return time.monotonic() - since
