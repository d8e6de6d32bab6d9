"""A day's driving at 1 Hz from a fixed seed, written as loctrack writes it: TPV JSON lines
(`stream --format json`) and GPX (`--format gpx`), for the trips part (bench/trips.py).

The drive: parked spells (the fix wandering a few metres, as every receiver's does, speed
0.1-0.4 m/s) of 2 to 40 minutes between drives of 5 to 40 minutes, each drive at 8-25 m/s with
slow turns and stops at lights (speed 0 for 10-60 s). Every second is one fix; the same seed
gives the same points, so every run and every tool reads the same track.
"""

from __future__ import annotations

import math
import random
from typing import Iterator, NamedTuple

START = 1_795_392_000  # 2026-11-23T00:00:00Z
ORIGIN = (52.5, 13.4)
METRES_PER_DEGREE = 111_195.0
DEVICE = "/dev/ttyACM0"
SEED = 34  # issue 34


class Point(NamedTuple):
    second: int
    lat: float
    lon: float
    speed: float
    track: float


def points(count: int, seed: int = SEED) -> Iterator[Point]:
    """`count` fixes, one a second from START."""
    rng = random.Random(seed)
    east = north = 0.0
    heading = rng.uniform(0, 360)
    second = 0

    def fix(e: float, n: float, speed: float) -> Point:
        lat = ORIGIN[0] + n / METRES_PER_DEGREE
        lon = ORIGIN[1] + e / (METRES_PER_DEGREE * math.cos(math.radians(ORIGIN[0])))
        return Point(second, round(lat, 9), round(lon, 9), speed, heading % 360)

    while second < count:
        for _ in range(rng.randint(120, 2_400)):  # parked
            if second >= count:
                return
            yield fix(east + rng.gauss(0, 2.5), north + rng.gauss(0, 2.5), rng.uniform(0.1, 0.4))
            second += 1
        cruise = rng.uniform(8, 25)
        left = rng.randint(300, 2_400)
        while left > 0 and second < count:  # driving
            if rng.random() < 0.004:  # lights
                for _ in range(rng.randint(10, 60)):
                    if second >= count:
                        return
                    yield fix(east, north, 0.0)
                    second += 1
                    left -= 1
            heading += rng.gauss(0, 3)
            speed = max(1.0, cruise + rng.gauss(0, 1))
            east += speed * math.sin(math.radians(heading))
            north += speed * math.cos(math.radians(heading))
            yield fix(east, north, speed)
            second += 1
            left -= 1


def iso_time(second: int) -> str:
    days, rest = divmod(START + second, 86_400)
    # 2026-11-23 is day 20,780 since 1970; the generator never leaves the next few months.
    year, month, day = civil(days)
    return "%04d-%02d-%02dT%02d:%02d:%02d.000Z" % (year, month, day, rest // 3600, rest // 60 % 60, rest % 60)


def civil(days: int) -> tuple[int, int, int]:
    """Year, month, day of `days` since 1970-01-01 (Howard Hinnant's algorithm)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def json_line(p: Point) -> str:
    """The line `loctrack stream --format json` writes for such a fix (docs/json.md's fields and decimals)."""
    return ('{"class":"TPV","device":"%s","mode":3,"time":"%s","ept":0.005,"lat":%.9f,"lon":%.9f,'
            '"altHAE":83.8000,"altMSL":60.1000,"epx":4.484,"epy":5.791,"epv":14.500,"track":%.4f,'
            '"speed":%.3f,"climb":0.000,"eps":0.50,"epc":1.00,"geoidSep":23.700,"eph":6.900,"sep":14.200,'
            '"stationary":%s}\n' % (DEVICE, iso_time(p.second), p.lat, p.lon, p.track, p.speed,
                                    "true" if p.speed < 0.5 else "false"))


def write_json_lines(path: str, count: int) -> None:
    with open(path, "w") as f:
        f.writelines(json_line(p) for p in points(count))


def write_gpx(path: str, count: int) -> None:
    """As `loctrack stream --format gpx` writes it: one track, one segment (no gaps)."""
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="loctrack" '
                'xmlns="http://www.topografix.com/GPX/1/1" xmlns:loctrack="urn:loctrack:gpx:1">\n'
                '  <trk>\n    <name>loctrack</name>\n    <trkseg>\n')
        f.writelines('      <trkpt lat="%.9f" lon="%.9f"><ele>60.100</ele><time>%s</time><fix>3d</fix>'
                     '<extensions><loctrack:eph>6.900</loctrack:eph></extensions></trkpt>\n'
                     % (p.lat, p.lon, iso_time(p.second)) for p in points(count))
        f.write('    </trkseg>\n  </trk>\n</gpx>\n')
