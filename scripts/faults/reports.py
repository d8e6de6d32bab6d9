"""The gpsd reports the scripted gpsds send: gpsd 3.22's TPV, SKY and the preamble after ?WATCH.

Epoch k has the time BASE_TIME + k * step and a position of its own, so each fix loctrack prints
tells which epoch it came from."""

from __future__ import annotations

import json
import time
from typing import List, Optional

BASE_TIME = 1735689600  # 2025-01-01T00:00:00Z
DEVICE = "/dev/ttyACM0"


def iso(seconds: float) -> str:
    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % millis


def epoch_time(k: int, step: float = 1.0) -> str:
    return iso(BASE_TIME + k * step)


def tpv(k: int, device: str = DEVICE, step: float = 1.0, mode: int = 3, when: Optional[str] = None,
        altitude: bool = True) -> bytes:
    """A gpsd 3.22 TPV for epoch k (distinct time and position per epoch: 1.2e-5 degrees north
    and 1.5e-5 east of epoch k - 1; flood_gpsd's walk is a tenth of that)."""
    lat = 38.110494 + k * 1.2e-5
    lon = -122.626897 + k * 1.5e-5
    text = ('{"class":"TPV","device":"%s","status":2,"mode":%d,"time":"%s","ept":0.005,'
            '"lat":%.9f,"lon":%.9f,' % (device, mode, when or epoch_time(k, step), lat, lon))
    if altitude and mode == 3:
        text += '"altHAE":53.6000,"altMSL":83.1000,"alt":83.1000,"epv":3.000,'
    text += ('"epx":1.000,"epy":1.000,"track":44.1234,"magtrack":57.5234,"magvar":13.4,"speed":1.400,'
             '"eps":2.00,"geoidSep":-29.500,"eph":2.707,"sep":5.083}')
    return text.encode()


def sky(k: int, satellites: int = 12, device: str = DEVICE) -> bytes:
    sats = ",".join('{"PRN":%d,"el":%d.0,"az":%d.0,"ss":%d.0,"used":%s,"gnssid":0,"svid":%d}'
                    % (n + 1, 10 + (n * 7) % 80, (n * 37 + k) % 360, 20 + n % 25,
                       "true" if n % 3 else "false", n + 1) for n in range(satellites))
    return ('{"class":"SKY","device":"%s","xdop":0.66,"ydop":0.84,"vdop":0.83,"tdop":1.37,"hdop":0.54,'
            '"gdop":2.70,"pdop":0.99,"nSat":%d,"uSat":%d,"satellites":[%s]}'
            % (device, satellites, satellites * 2 // 3, sats)).encode()


def preamble(device: str = DEVICE) -> List[bytes]:
    """What gpsd 3.22 sends after ?WATCH, before the first report."""
    return [
        ('{"class":"DEVICES","devices":[{"class":"DEVICE","path":"%s","driver":"u-blox",'
         '"activated":"2025-01-01T00:00:00.000Z","flags":1,"native":1,"bps":9600,"parity":"N",'
         '"stopbits":1,"cycle":1.00,"mincycle":0.02}]}' % device).encode(),
        b'{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,'
        b'"split24":false,"pps":false}',
        ('{"class":"DEVICE","path":"%s","driver":"u-blox","activated":"2025-01-01T00:00:00.000Z",'
         '"flags":1,"native":1,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00,"mincycle":0.02}'
         % device).encode(),
    ]


def epochs(first: int, last: int, with_sky: bool = True, **options) -> List[bytes]:
    lines = []
    for k in range(first, last + 1):
        lines.append(tpv(k, **options))
        if with_sky:
            lines.append(sky(k))
    return lines


def learning_epochs(first: int, last: int) -> List[bytes]:
    """Two TPVs per epoch, as gpsd sends while learning an NMEA cycle (RMC: 2D, then GGA: 3D)."""
    lines = []
    for k in range(first, last + 1):
        lines.append(tpv(k, mode=2, altitude=False))
        lines.append(tpv(k, mode=3))
    return lines


def parse_fix(text: str) -> Optional[dict]:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
