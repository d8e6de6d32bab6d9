"""A mosquitto of the test's own on a loopback port, its subscribers and publishers.

The broker runs from a test config (listener on 127.0.0.1, anonymous clients, no persistence:
it lives as long as the test, and retained messages are kept in memory) as `user root`, so a
test run as root needs no folder the mosquitto user may write (docs: mqtt-facts.md).
A Subscriber is a mosquitto_sub printing every message with its arrival time, retained flag,
topic and payload (hex, so empty payloads and any bytes survive); its reader thread keeps them,
and wait_for() waits, with a deadline, for the first one that matches.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from .processes import free_port, kill_group, release_port, spawn, wait_port


class Message:
    __slots__ = ("at", "retained", "topic", "payload")

    def __init__(self, at: float, retained: bool, topic: str, payload: bytes):
        self.at, self.retained, self.topic, self.payload = at, retained, topic, payload

    @property
    def text(self) -> str:
        return self.payload.decode("utf-8", "replace")

    def __repr__(self) -> str:
        return "Message(%r, %r%s)" % (self.topic, self.payload[:200], ", retained" if self.retained else "")


class Subscriber:
    """mosquitto_sub on topic filters; `messages` in arrival order (arrival: time.time())."""

    def __init__(self, port: int, topics: Sequence[str], extra: Sequence[str] = ()):
        command = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-F", "%U %r %t %x"]
        for topic in topics:
            command += ["-t", topic]
        self.messages: List[Message] = []
        self.cond = threading.Condition()
        self.process = spawn(command + list(extra), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        self.thread = threading.Thread(target=self._read, daemon=True, name="mosquitto_sub")
        self.thread.start()

    def _read(self) -> None:
        for raw in iter(self.process.stdout.readline, b""):
            fields = raw.decode("ascii", "replace").rstrip("\n").split(" ", 3)
            if len(fields) < 3:
                continue
            payload = bytes.fromhex(fields[3]) if len(fields) == 4 else b""
            message = Message(float(fields[0]), fields[1] == "1", fields[2], payload)
            with self.cond:
                self.messages.append(message)
                self.cond.notify_all()

    def wait_for(self, match: Callable[[Message], bool], timeout: float, since: int = 0) -> Optional[Message]:
        """The first message from index `since` on that matches, waiting at most timeout seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            index = since
            while True:
                while index < len(self.messages):
                    if match(self.messages[index]):
                        return self.messages[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.2))

    def snapshot(self) -> List[Message]:
        with self.cond:
            return list(self.messages)

    def close(self) -> None:
        kill_group(self.process)


class Broker:
    """mosquitto on a free loopback port, started at once; stop() ends it."""

    def __init__(self, workdir: Path):
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.config = workdir / "mosquitto.conf"
        self.config.write_text("user root\npersistence false\nallow_anonymous true\n"
                               "listener %d 127.0.0.1\nlog_dest stderr\nlog_type error\nlog_type warning\n"
                               % self.port)
        release_port(self.port)  # the reservation's socket must not be there when mosquitto binds
        self.errors = open(workdir / "mosquitto.err", "wb")
        self.process = spawn(["mosquitto", "-c", str(self.config)], stdin=subprocess.DEVNULL,
                             stdout=self.errors, stderr=self.errors)
        if not wait_port(self.port, 10):
            self.stop()
            raise RuntimeError("mosquitto did not listen on 127.0.0.1:%d within 10 s" % self.port)
        self._subscribers: List[Subscriber] = []

    def subscribe(self, *topics: str) -> Subscriber:
        subscriber = Subscriber(self.port, topics)
        self._subscribers.append(subscriber)
        return subscriber

    def publish(self, topic: str, payload: bytes | str, retain: bool = False, qos: int = 1) -> None:
        """mosquitto_pub, waited for (5 s at most): the message is at the broker when this returns."""
        data = payload.encode() if isinstance(payload, str) else payload
        command = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-q", str(qos), "-t", topic]
        if retain:
            command.append("-r")
        command.append("-s" if data else "-n")
        subprocess.run(command, input=data if data else None, check=True, timeout=5,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        for subscriber in getattr(self, "_subscribers", []):
            subscriber.close()
        kill_group(self.process)
        self.errors.close()
