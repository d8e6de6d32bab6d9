"""A mosquitto broker of the benchmark's own, and the subscriber that checks what arrived.

Each broker listens on a free loopback port with its config, log and nothing else in a
temporary folder (docs: /work/shared/docs/mqtt-facts.md): anonymous clients, no persistence
(nothing is restarted here), `user root` when run as root (else it drops to the mosquitto
user), and `max_queued_messages 0`, so that a subscriber slower than a flood is queued for
rather than dropped (mosquitto's default queues 1,000 QoS 1 messages per client beyond
those in flight, then drops). The log records subscriptions: a subscriber counts as ready
once the broker has logged its SUBSCRIBE, so no message is published before it listens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

from support.processes import free_port, release_port  # scripts/support
from support.procfs import proc_cpu, proc_status_kb

from . import procs

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None)
MOSQUITTO_PUB, MOSQUITTO_SUB = shutil.which("mosquitto_pub"), shutil.which("mosquitto_sub")


def missing() -> list[str]:
    """What the MQTT parts need and this machine lacks (`make deps` installs them)."""
    found = []
    if not MOSQUITTO:
        found.append("mosquitto (Debian package mosquitto)")
    if not (MOSQUITTO_PUB and MOSQUITTO_SUB):
        found.append("mosquitto_pub, mosquitto_sub (Debian package mosquitto-clients)")
    return found


class Broker:
    """A running mosquitto: `port`, `cpu()` (user + sys so far, s), `memory()` (VmHWM, RssAnon in kB)."""

    def __init__(self, workdir: str, name: str = "broker"):
        self.dir = os.path.join(workdir, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.log_path = os.path.join(self.dir, "mosquitto.log")
        self.port = free_port()
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous true", "persistence false",
                 "max_queued_messages 0", f"log_dest file {self.log_path}"]
        lines += [f"log_type {kind}" for kind in ("error", "warning", "notice", "information", "subscribe")]
        if os.geteuid() == 0:
            lines.append("user root")
        config = os.path.join(self.dir, "mosquitto.conf")
        with open(config, "w") as f:
            f.write("\n".join(lines) + "\n")
        release_port(self.port)  # mosquitto binds it itself
        self.proc = procs.spawn([MOSQUITTO, "-c", config], stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(self.dir, "stderr"), "wb"))
        if not procs.wait_listening(self.port, 10):
            self.stop()
            raise RuntimeError(f"mosquitto did not listen on {self.port}: {self.log_tail()}")

    def url(self, topic: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{topic}"

    def cpu(self):
        return proc_cpu(self.proc.pid)

    def memory(self) -> dict:
        return {key: proc_status_kb(self.proc.pid, key) for key in ("VmHWM", "RssAnon")}

    def log_tail(self) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace").strip().replace("\n", " | ")[-400:]
        except OSError:
            return ""

    def wait_subscribed(self, client_id: str, timeout: float = 10) -> bool:
        """Whether the broker logged a subscription of `client_id` ("ID QOS TOPIC") in time."""
        wanted = f": {client_id} ".encode()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with open(self.log_path, "rb") as f:
                    if wanted in f.read():
                        return True
            except OSError:
                pass
            time.sleep(0.01)
        return False

    def stop(self):
        procs.stop(self.proc)


class Subscriber:
    """`mosquitto_sub -q 1 -C count` on `topic` into a file, waited for on a thread of its own, so
    that the moment it has all `count` messages is known while the publishers still run."""

    def __init__(self, broker: Broker, topic: str, count: int, out_path: str, client_id: str, verbose=False):
        self.out_path, self.count, self.broker = out_path, count, broker
        argv = [MOSQUITTO_SUB, "-h", "127.0.0.1", "-p", str(broker.port), "-q", "1", "-C", str(count),
                "-t", topic, "-i", client_id] + (["-v"] if verbose else [])
        with open(out_path, "wb") as out:
            self.proc = procs.spawn(argv, stdout=out, stderr=subprocess.STDOUT)
        self.exit = None  # (code, rusage, monotonic ns) once it exited
        self.on_done = None  # called on its waiting thread once it exited
        self.done = threading.Event()
        threading.Thread(target=self._wait, daemon=True).start()
        if not broker.wait_subscribed(client_id):
            self.stop()
            raise RuntimeError(f"mosquitto_sub did not subscribe to {topic}: {broker.log_tail()}")

    def _wait(self):
        try:
            self.exit = procs.wait_rusage(self.proc, 24 * 3600)
        except ChildProcessError:  # stop() reaped it first
            pass
        finally:
            self.done.set()
            if self.on_done:
                self.on_done()

    def wait(self, timeout: float):
        """The monotonic ns at which it had all its messages, or None (then it is stopped)."""
        if not self.done.wait(timeout):
            self.stop()
            return None
        return self.exit[2] if self.exit and self.exit[0] == 0 else None

    def cpu(self):
        return None if not self.exit else self.exit[1].ru_utime + self.exit[1].ru_stime

    def lines(self) -> list[bytes]:
        with open(self.out_path, "rb") as f:
            return f.read().splitlines()

    def stop(self):
        procs.stop(self.proc)
        self.done.wait(5)
