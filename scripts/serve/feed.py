"""gpsd's side of the load tests (6 and 8): the scripted gpsd (scripts/support/scripted_gpsd.py)
replaying a generated script of TPVs (and SKYs) at a steady rate, from the moment go() is called
until stop().

A real gpsd cannot do this on demand: a hundred distinct epochs a second for as long as the test
needs, starting when the test's clients are connected. Everything else in the suite is fed by
gpsfake and a real gpsd. Each TPV's time is the wall-clock millisecond it was written (strictly
increasing), so a client's delay is its receive time minus the fix's time.
"""

from __future__ import annotations

import threading
import time
from typing import Iterator, Optional

from support.scripted_gpsd import FakeGpsd

DEVICE = "/dev/ttyACM0"
HELLO = [
    b'{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox",'
    b'"activated":"2026-11-24T10:00:00.000Z","native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.02}]}',
    b'{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}',
]


def tpv(ms: int, k: int) -> bytes:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)
    lat = 47.3766 + (k % 20000) * 1e-6
    lon = 8.5417 + (k % 20000) * 1.5e-6
    return ('{"class":"TPV","device":"%s","status":2,"mode":3,"time":"%s","ept":0.005,"lat":%.9f,"lon":%.9f,'
            '"altHAE":460.1000,"altMSL":412.3000,"alt":412.3000,"epx":2.100,"epy":2.900,"epv":5.100,"track":61.2000,'
            '"speed":1.520,"climb":0.010,"eps":0.42,"epc":10.20,"geoidSep":47.800,"eph":3.600,"sep":6.200}'
            % (DEVICE, stamp, lat, lon)).encode()


def sky(ms: int, satellites: int) -> bytes:
    """A SKY report as gpsd 3.22 writes it, with `satellites` satellites (half of them used)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)
    entries = []
    for index in range(satellites):
        gnss = (0, 2, 3, 6)[index % 4]
        entries.append('{"PRN":%d,"el":%.1f,"az":%.1f,"ss":%.1f,"used":%s,"gnssid":%d,"svid":%d,"health":1}' % (
            index + 1, 10.0 + (index * 7) % 80, (index * 37) % 360, 20.0 + index % 30, "true" if index % 2 == 0 else "false",
            gnss, index // 4 + 1))
    return ('{"class":"SKY","device":"%s","time":"%s","xdop":0.55,"ydop":0.71,"vdop":1.12,"tdop":0.83,"hdop":0.90,'
            '"gdop":1.67,"pdop":1.43,"nSat":%d,"uSat":%d,"satellites":[%s]}'
            % (DEVICE, stamp, satellites, (satellites + 1) // 2, ",".join(entries))).encode()


class Feed:
    """`rate` epochs a second, each a TPV and, with `satellites`, a SKY of that many satellites
    (the big reports: they fill a stalled client's socket buffers in seconds, not minutes)."""

    def __init__(self, rate: float, satellites: int = 0):
        self.rate = rate
        self.satellites = satellites
        self.going = threading.Event()
        self.stopping = threading.Event()
        self.sent = 0
        self.first_ms: Optional[int] = None
        self.last_ms: Optional[int] = None
        self.server = FakeGpsd(self._script, max_clients=1, watch_timeout=60)

    def start(self) -> int:
        return self.server.start()

    @property
    def source(self) -> str:
        return "127.0.0.1:%d" % self.server.port

    def go(self) -> None:
        self.going.set()

    def stop(self) -> None:
        """Ends the script: the scripted gpsd hangs up once the last TPV is written."""
        self.stopping.set()
        self.going.set()

    def close(self) -> None:
        self.stop()
        self.server.stop()

    def _script(self) -> Iterator[bytes]:
        yield from HELLO
        self.going.wait()
        next_at = time.monotonic()
        previous = 0
        k = 0
        while not self.stopping.is_set():
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            ms = max(previous + 1, int(time.time() * 1000))
            previous = ms
            self.first_ms = self.first_ms or ms
            self.last_ms = ms
            k += 1
            self.sent = k
            yield tpv(ms, k)
            if self.satellites:
                yield sky(ms, self.satellites)
            next_at += 1.0 / self.rate
