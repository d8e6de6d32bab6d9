"""A mosquitto of the test's (or the benchmark's) own on a loopback port, its subscribers and
publishers: the one mosquitto harness of the Python tools (scripts/ha, Benchmarks/).

The broker runs from a config of its own in its folder (listener on 127.0.0.1, anonymous clients,
no persistence: it lives as long as the test, and retained messages are kept in memory), as
`user root` when run as root, so that it needs no folder the mosquitto user may write (docs:
mqtt-facts.md), with `max_queued_messages 0`, so that a subscriber slower than a flood is queued
for rather than dropped (mosquitto's default queues 1,000 QoS 1 messages per client beyond those
in flight, then drops). Its log (mosquitto.log) records subscriptions: wait_subscribed() tells
when a client's SUBSCRIBE has reached it.
A Subscriber is a mosquitto_sub printing every message with its arrival time, retained flag,
topic and payload (hex, so empty payloads and any bytes survive); its reader thread keeps them,
and wait_for() waits, with a deadline, for the first one that matches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from .processes import free_port, kill_group, release_port, spawn, wait_listening
from .procfs import proc_cpu, proc_status_kb

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None)
MOSQUITTO_PUB, MOSQUITTO_SUB = shutil.which("mosquitto_pub"), shutil.which("mosquitto_sub")


def missing() -> List[str]:
    """What a broker and its clients need and this machine lacks (`make test` installs them)."""
    found = []
    if not MOSQUITTO:
        found.append("mosquitto (Debian package mosquitto)")
    if not (MOSQUITTO_PUB and MOSQUITTO_SUB):
        found.append("mosquitto_pub, mosquitto_sub (Debian package mosquitto-clients)")
    return found


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
    """mosquitto on a free loopback port, started at once; stop() ends it. `cpu()` (user + sys so
    far, s) and `memory()` (VmHWM, RssAnon in kB) are the benchmark's."""

    def __init__(self, workdir: Path):
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = workdir / "mosquitto.log"
        self.log_path.unlink(missing_ok=True)  # a broker before this one in the folder: not its subscriptions
        lines = ["listener %d 127.0.0.1" % self.port, "allow_anonymous true", "persistence false",
                 "max_queued_messages 0", "log_dest file %s" % self.log_path]
        lines += ["log_type %s" % kind for kind in ("error", "warning", "notice", "information", "subscribe")]
        if os.geteuid() == 0:
            lines.append("user root")
        self.config = workdir / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")
        release_port(self.port)  # the reservation's socket must not be there when mosquitto binds
        self._subscribers: List[Subscriber] = []
        with open(workdir / "mosquitto.err", "wb") as errors:
            self.process = spawn([MOSQUITTO or "mosquitto", "-c", str(self.config)], stdin=subprocess.DEVNULL,
                                 stdout=errors, stderr=errors)
        if not wait_listening(self.port, 10):
            self.stop()
            raise RuntimeError("mosquitto did not listen on 127.0.0.1:%d within 10 s: %s" % (self.port, self.log_tail()))

    def url(self, topic: str) -> str:
        return "mqtt://127.0.0.1:%d/%s" % (self.port, topic)

    def cpu(self) -> Optional[float]:
        return proc_cpu(self.process.pid)

    def memory(self) -> dict:
        return {key: proc_status_kb(self.process.pid, key) for key in ("VmHWM", "RssAnon")}

    def log_tail(self) -> str:
        try:
            return self.log_path.read_bytes().decode(errors="replace").strip().replace("\n", " | ")[-400:]
        except OSError:
            return ""

    def wait_subscribed(self, client_id: str, timeout: float = 10) -> bool:
        """Whether the broker logged a subscription of `client_id` ("ID QOS TOPIC") in time."""
        wanted = (": %s " % client_id).encode()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if wanted in self.log_path.read_bytes():
                    return True
            except OSError:
                pass
            time.sleep(0.01)
        return False

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
        for subscriber in self._subscribers:
            subscriber.close()
        kill_group(self.process)
