"""One Home Assistant core: its configuration folder, its start, its readiness, its stop.

The folder is written before the first start, as Home Assistant would have left it after an
onboarding: configuration.yaml (HTTP on a loopback port, the API, the recorder, history, zones),
and in .storage the MQTT and OwnTracks config entries (neither can be set up from YAML), a user
with a long-lived access token (auth), and onboarding marked done. The token is the JWT Home
Assistant itself would issue for that refresh token (HS256 over its jwt_key), so the tests
hold it from the start instead of logging in.

Ready means: the REST API answers with the token, Home Assistant says RUNNING, and its MQTT
client has sent its birth message (`online` on homeassistant/status), i.e. it is subscribed to
discovery. Every wait has a deadline.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from support.processes import free_port, kill_group, release_port, spawn

from . import venv
from .api import Rest
from support.mqtt_broker import Broker

START_TIMEOUT = 90.0  # seconds from the start to ready (about 5 s here; a cold CI machine is slower)
STOP_TIMEOUT = 30.0

HOME = (40.7128, -74.0060, 10)  # the home zone: City Hall, away from the demo drive on 42nd Street


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def access_token(refresh_token_id: str, jwt_key: str, lifetime: int = 10 * 365 * 86400) -> str:
    """The access token Home Assistant issues for a refresh token (auth/__init__.py
    async_create_access_token): HS256, claims iss (the refresh token's id), iat, exp."""
    now = int(time.time())
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = _b64(json.dumps({"iss": refresh_token_id, "iat": now, "exp": now + lifetime},
                             separators=(",", ":")).encode())
    signature = hmac.new(jwt_key.encode(), ("%s.%s" % (header, claims)).encode(), hashlib.sha256).digest()
    return "%s.%s.%s" % (header, claims, _b64(signature))


def _store(key: str, data: dict, version: int = 1, minor_version: int = 1) -> str:
    return json.dumps({"version": version, "minor_version": minor_version, "key": key, "data": data}, indent=2)


class Zone:
    """A Home Assistant zone (configuration.yaml `zone:`), passive: it never becomes `home`."""

    def __init__(self, name: str, latitude: float, longitude: float, radius: float):
        self.name, self.latitude, self.longitude, self.radius = name, latitude, longitude, radius


class HomeAssistant:
    """A Home Assistant core in workdir/config, with MQTT on broker; start() and stop() as often
    as a test likes (the folder, and so the registries and the token, survive)."""

    def __init__(self, workdir: Path, broker: Broker, zones: Sequence[Zone] = (), owntracks: bool = True,
                 python: Optional[Path] = None):
        self.workdir = workdir
        self.config = workdir / "config"
        self.broker = broker
        self.python = python or venv.python()
        self.port = free_port()
        self.process: Optional[subprocess.Popen] = None
        self.starts: List[float] = []  # seconds from each start to ready
        refresh_token_id, jwt_key = uuid.uuid4().hex, secrets.token_hex(64)
        self.token = access_token(refresh_token_id, jwt_key)
        self.rest = Rest(self.port, self.token)
        self._write(zones, owntracks, refresh_token_id, jwt_key)

    @property
    def database(self) -> Path:
        return self.config / "home-assistant_v2.db"

    @property
    def log(self) -> Path:
        return self.workdir / "home-assistant.log"

    def _write(self, zones: Sequence[Zone], owntracks: bool, refresh_token_id: str, jwt_key: str) -> None:
        storage = self.config / ".storage"
        storage.mkdir(parents=True, exist_ok=True)
        yaml = [
            "homeassistant:",
            "  name: loctrack ha-test",
            "  latitude: %s" % HOME[0],
            "  longitude: %s" % HOME[1],
            "  elevation: %s" % HOME[2],
            "  unit_system: metric",
            "  time_zone: UTC",
            "  country: US",
            "  currency: USD",
            "http:",
            "  server_host: 127.0.0.1",
            "  server_port: %d" % self.port,
            "api:",
            "history:",
            "recorder:",
            "  db_url: sqlite:///%s" % self.database,
            "  commit_interval: 0",
            "logger:",
            "  default: warning",
            "  logs:",
            "    homeassistant.components.mqtt: debug",
            "    homeassistant.components.owntracks: debug",
            "    homeassistant.components.device_tracker: debug",
        ]
        if zones:
            yaml.append("zone:")
            for zone in zones:
                yaml += ["  - name: %s" % json.dumps(zone.name), "    latitude: %r" % zone.latitude,
                         "    longitude: %r" % zone.longitude, "    radius: %r" % zone.radius,
                         "    passive: false"]
        (self.config / "configuration.yaml").write_text("\n".join(yaml) + "\n")

        entries = [self._entry("mqtt", "127.0.0.1", {"broker": "127.0.0.1", "port": self.broker.port,
                                                       "discovery": True, "discovery_prefix": "homeassistant"})]
        if owntracks:
            entries.append(self._entry("owntracks", "OwnTracks", {"webhook_id": uuid.uuid4().hex, "secret": "",
                                                                  "cloudhook": False}))
        (storage / "core.config_entries").write_text(_store("core.config_entries", {"entries": entries}))

        user_id = uuid.uuid4().hex
        created = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        auth = {
            "users": [{"id": user_id, "group_ids": ["system-admin"], "is_owner": True, "is_active": True,
                       "name": "loctrack ha-test", "system_generated": False, "local_only": False}],
            "groups": [{"id": "system-admin", "name": "Administrators"},
                       {"id": "system-users", "name": "Users"},
                       {"id": "system-read-only", "name": "Read Only"}],
            "credentials": [],
            "refresh_tokens": [{"id": refresh_token_id, "user_id": user_id, "client_id": None,
                                "client_name": "loctrack ha-test", "client_icon": None,
                                "token_type": "long_lived_access_token", "created_at": created,
                                "access_token_expiration": 10 * 365 * 86400, "token": secrets.token_hex(64),
                                "jwt_key": jwt_key, "last_used_at": None, "last_used_ip": None,
                                "credential_id": None, "version": venv.HA_VERSION}],
        }
        (storage / "auth").write_text(_store("auth", auth))
        (storage / "onboarding").write_text(_store("onboarding", {"done": ["user", "core_config", "analytics",
                                                                           "integration"]}, version=4))

    @staticmethod
    def _entry(domain: str, title: str, data: Dict) -> Dict:
        return {"entry_id": uuid.uuid4().hex, "version": 1, "minor_version": 1, "domain": domain, "title": title,
                "data": data, "options": {}, "pref_disable_new_entities": False, "pref_disable_polling": False,
                "source": "user", "unique_id": None, "disabled_by": None}

    # -- running -----------------------------------------------------------------------------

    def start(self, timeout: float = START_TIMEOUT) -> float:
        """Starts Home Assistant and waits until it is ready (module docstring); returns the seconds
        that took. RuntimeError with the log's tail if it exits or the deadline passes first."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("Home Assistant is already running")
        started = time.monotonic()
        birth = self.broker.subscribe("homeassistant/status")
        release_port(self.port)  # aiohttp binds it itself
        with open(self.log, "ab") as log:
            # --skip-pip: the venv has every requirement (venv.py); Home Assistant must not try pip.
            self.process = spawn([str(self.python), "-m", "homeassistant", "--config", str(self.config),
                                  "--skip-pip", "--log-no-color"],
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, PYTHONUNBUFFERED="1"))
        try:
            deadline = started + timeout
            self._wait_api(deadline)
            if birth.wait_for(lambda message: message.payload == b"online", deadline - time.monotonic()) is None:
                raise RuntimeError("no birth message (online on homeassistant/status) within %.0f s" % timeout)
        except RuntimeError as error:
            raise RuntimeError("Home Assistant did not come up: %s\n%s" % (error, self.log_tail())) from None
        finally:
            birth.close()
        seconds = time.monotonic() - started
        self.starts.append(seconds)
        return seconds

    def _wait_api(self, deadline: float) -> None:
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("it exited with code %d" % self.process.returncode)
            try:
                if self.rest.get("/api/config").get("state") == "RUNNING":
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the API did not report RUNNING in time")
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM, as an init system stops it (it saves its registries and closes the database),
        then SIGKILL for the whole group after STOP_TIMEOUT."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=STOP_TIMEOUT)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        kill_group(process)

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join("    | " + line for line in text[-lines:])

    def log_errors(self) -> List[str]:
        """The ERROR lines of its log (and the warnings the mqtt and owntracks integrations wrote)."""
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return []
        return [line for line in text if " ERROR " in line
                or (" WARNING " in line and ("components.mqtt" in line or "owntracks" in line))]
