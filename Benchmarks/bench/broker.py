"""The benchmark's subscriber: `mosquitto_sub -C count`, which tells when every message arrived
and what it cost. The broker is the test tools' (scripts/support/mqtt_broker.py): its config has
`max_queued_messages 0`, so a subscriber slower than a flood is queued for rather than dropped,
and its log records subscriptions, so a subscriber counts as ready once the broker has logged
its SUBSCRIBE and no message is published before it listens.
"""

from __future__ import annotations

import subprocess
import threading

from support import processes as procs  # scripts/support
from support.mqtt_broker import MOSQUITTO_PUB, MOSQUITTO_SUB, Broker, missing  # noqa: F401 (the parts' imports)


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
        procs.terminate(self.proc, 2)
        self.done.wait(5)
