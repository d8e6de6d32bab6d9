"""A real gpsd reading a pseudo-terminal that a feeder thread writes 1 Hz NMEA to.

gpsd is started as Debian starts it: `gpsd -N -S PORT -F SOCKET DEVICE`, without -n, so it
opens the device only when a client's WATCH needs it (and then, as on a serial port, probes
for a few binary protocols first: about 6 s of gpsd's own before the first report).

The feeder is a receiver with a 1 Hz fix: 100 ms after each UTC second it writes that
second's epoch (GGA, GSA, RMC), but only while gpsd holds the device open (the pty master
reports POLLHUP while no one holds the slave): like a receiver's serial port, nothing piles
up while the port is closed. All feeders share that schedule, so the driver can start
clients at a known offset from the receiver's epochs.
"""

from __future__ import annotations

import datetime
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
import tty

from support import processes as procs  # scripts/support, on sys.path via run.py
from support.gpsd_replay import nmea
from support.processes import free_port, release_port

SHM_BASE = 0x47700000  # gpsd's SHM export key per port, as gpsfake derives it ('Gp' + port)
EPOCH_LAG_NS = 100_000_000  # a receiver reports an epoch this long after its second


def epoch_sentences(when: datetime.datetime, k: int) -> bytes:
    """One 1 Hz epoch of a receiver walking north-east: GGA, GSA, RMC."""
    hms, date = when.strftime("%H%M%S") + ".00", when.strftime("%d%m%y")
    lat, lon = f"38{6.62964 + k * 0.00006:08.5f}", f"122{37.61382 + k * 0.00008:08.5f}"
    bodies = (f"GPGGA,{hms},{lat},N,{lon},W,1,08,0.9,83.1,M,-29.5,M,,", "GPGSA,A,3,13,16,18,20,26,29,44,51,,,,,1.5,0.9,1.2",
              f"GPRMC,{hms},A,{lat},N,{lon},W,0.5,54.7,{date},13.4,E,A")
    return "".join(nmea(body) + "\r\n" for body in bodies).encode()


class PtyFeeder(threading.Thread):
    """The receiver: a pty whose slave is `path`."""

    def __init__(self):
        super().__init__(daemon=True)
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        tty.setraw(slave)          # no echo, no CR/LF translation, even before gpsd sets its modes
        os.chmod(self.path, 0o666)  # gpsd run as root drops its privileges before it opens the device
        os.close(slave)
        self.stopping = threading.Event()
        self.written = 0

    @staticmethod
    def next_epoch_ns(after_ns: int) -> int:
        """When (CLOCK_MONOTONIC) the first epoch at or after after_ns is written."""
        wall_now, mono_now = time.time_ns(), time.monotonic_ns()
        wall_after = wall_now + (after_ns - mono_now)
        wall_epoch = -(-(wall_after - EPOCH_LAG_NS) // 1_000_000_000) * 1_000_000_000 + EPOCH_LAG_NS
        return mono_now + (wall_epoch - wall_now)

    def run(self):
        poller = select.poll()
        poller.register(self.master, select.POLLIN)
        k = 0
        while not self.stopping.is_set():
            due = self.next_epoch_ns(time.monotonic_ns() + 1)
            if self.stopping.wait((due - time.monotonic_ns()) / 1e9):
                break
            closed = False
            for _, events in poller.poll(0):
                if events & select.POLLHUP:
                    closed = True
                elif events & select.POLLIN:
                    os.read(self.master, 4096)  # gpsd's probes to the receiver: not answered
            if closed:
                continue
            second = round((time.time_ns() - EPOCH_LAG_NS) / 1e9)
            when = datetime.datetime.fromtimestamp(second, datetime.timezone.utc)
            try:
                os.write(self.master, epoch_sentences(when, k))
                self.written += 1
            except OSError:
                pass  # gpsd closed the device meanwhile
            k += 1

    def close(self):
        self.stopping.set()
        self.join(2)
        os.close(self.master)


class LiveGpsd:
    """gpsd (no -n) on a fresh pty and port: `with LiveGpsd(workdir) as gpsd: ... gpsd.source`."""

    def __init__(self, workdir: str):
        self.workdir = workdir
        self.feeder = PtyFeeder()
        self.port = free_port()  # below the ephemeral range, reserved until gpsd starts
        self.source = f"127.0.0.1:{self.port}"
        # Not in workdir: a unix socket's path must stay under 108 bytes.
        self.control = os.path.join(tempfile.gettempdir(), f"loctrack-bench-gpsd-{self.port}.sock")
        self.proc = None

    def __enter__(self):
        self.feeder.start()
        gpsd = shutil.which("gpsd") or "/usr/sbin/gpsd"
        env = dict(os.environ, GPSD_SHM_KEY=hex(SHM_BASE | (self.port & 0xFFFF)))
        release_port(self.port)  # gpsd binds without SO_REUSEADDR
        with open(os.path.join(self.workdir, "gpsd.err"), "ab") as err:
            self.proc = procs.spawn([gpsd, "-N", "-S", str(self.port), "-F", self.control, self.feeder.path],
                                    stdout=subprocess.DEVNULL, stderr=err, env=env)
        if not procs.wait_listening(self.port, 10):
            self.__exit__()
            raise RuntimeError(f"gpsd did not listen on port {self.port} (see {err.name})")
        return self

    def __exit__(self, *_):
        if self.proc:
            procs.terminate(self.proc, 2)
        # gpsd 3.22 cannot remove its SHM export segment after dropping privileges.
        try:
            subprocess.run(["ipcrm", "-M", hex(SHM_BASE | (self.port & 0xFFFF))], stderr=subprocess.DEVNULL,
                           check=False, timeout=10)
        except subprocess.TimeoutExpired:
            pass  # a segment left behind costs nothing: the next gpsd on this port reuses it
        self.feeder.close()
        if os.path.exists(self.control):
            os.unlink(self.control)
