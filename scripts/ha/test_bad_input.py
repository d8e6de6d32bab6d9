"""Test 7: bad --ha-* input. --ha-discovery without --publish, a prefix that is not one MQTT topic
level (empty, or with / + #), a node id with characters Home Assistant refuses, or an empty
name (a display name, so '/' is fine in it) must end loctrack with exit 64 and one line on
stderr, before anything reaches the broker (a subscriber to # sees nothing); the same command
with valid values runs."""

from __future__ import annotations

import os
import subprocess

from support.mqtt_broker import Broker
from support.processes import free_port, kill_group, spawn
from support.results import Result

from .world import Settings

TITLE = "bad --ha-* input"
EXPECTATION = "exit 64, one line on stderr, nothing published"


def cases(url: str, source: str):
    publish = ["--publish", url, "--client-id", "bad-input", "--ha-discovery"]
    yield "stream --ha-discovery without --publish", ["stream", "--ha-discovery", source]
    yield "monitor run --ha-discovery without --publish", ["monitor", "run", "--ha-discovery", source]
    for value in ("", "home/assistant", "home+", "#"):
        yield "--ha-prefix %r" % value, ["stream"] + publish + ["--ha-prefix", value, source]
    for value in ("", "car/1", "car+", "car#", "car 1"):
        yield "--ha-node %r" % value, ["stream"] + publish + ["--ha-node", value, source]
    for value in ("", "  "):
        yield "--ha-name %r" % value, ["stream"] + publish + ["--ha-name", value, source]
    yield "--ha-name without --ha-discovery", ["stream", "--publish", url, "--ha-name", "Car", source]


def run(settings: Settings, r: Result) -> None:
    workdir = settings.out / "7-bad-input"
    workdir.mkdir(parents=True, exist_ok=True)
    broker = Broker(workdir)
    try:
        wire = broker.subscribe("#")
        url = "mqtt://127.0.0.1:%d/loctrack/bad" % broker.port
        source = "127.0.0.1:%d" % free_port()  # nobody there: loctrack must stop before it matters
        for what, args in cases(url, source):
            try:
                done = subprocess.run([settings.loctrack] + args, capture_output=True, text=True, timeout=10,
                                      env=dict(os.environ, XDG_STATE_HOME=str(workdir / "state")))
                code, lines = done.returncode, done.stderr.splitlines()
            except subprocess.TimeoutExpired:
                code, lines = "still running after 10 s", []
            r.check(code == 64 and len(lines) == 1, "%s: exit 64, one line on stderr" % what,
                    "exit %s, stderr %r" % (code, lines[:3]))
        published = wire.wait_for(lambda message: True, 1)
        r.check(published is None, "nothing reached the broker", published)
        # The control: the same command with valid values runs and connects (the rejections are specific).
        valid = spawn([settings.loctrack, "stream", "--publish", url, "--client-id", "bad-input", "--ha-discovery",
                       "--ha-prefix", "homeassistant", "--ha-name", "Car 1/Van", "--ha-node", "car_1", source],
                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                      env=dict(os.environ, XDG_STATE_HOME=str(workdir / "state")))
        online = wire.wait_for(lambda m: m.topic == "loctrack/bad/availability" and m.payload == b"online", 30)
        r.check(online is not None and valid.poll() is None,
                "control: with --ha-prefix homeassistant --ha-name 'Car 1/Van' --ha-node car_1 it runs and publishes online",
                "exit %s, %r" % (valid.poll(), online))
        kill_group(valid)
    finally:
        broker.stop()
