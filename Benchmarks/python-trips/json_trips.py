"""The small Python loop a user writes for a file of loctrack's JSON lines (the trips part's rival,
Benchmarks/bench/trips.py): `json.loads` per line, the TPV fixes (mode 2 or 3), haversine between
consecutive fixes for the distance, and the seconds between fixes whose speed is above 1 km/h (gpxpy's
default threshold) for the moving time. Prints {"points", "length_m", "moving_s"} as one JSON line.
Standard library only."""

import json
import math
import sys

EARTH_RADIUS_M = 6_371_000.0
MOVING_MPS = 1 / 3.6


def haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


def seconds(time: str) -> float:
    """`2026-11-23T08:14:03.000Z` as seconds of its day (the files span one day or a little more)."""
    day = int(time[8:10])
    return day * 86_400 + int(time[11:13]) * 3600 + int(time[14:16]) * 60 + float(time[17:-1])


def main() -> int:
    points, length, moving = 0, 0.0, 0.0
    last = None
    with open(sys.argv[1]) as f:
        for line in f:
            report = json.loads(line)
            if report.get("class") != "TPV" or report.get("mode", 0) < 2:
                continue
            now = (report["lat"], report["lon"], seconds(report["time"]))
            points += 1
            if last is not None:
                step = haversine(last[0], last[1], now[0], now[1])
                length += step
                if report.get("speed", 0) > MOVING_MPS:
                    moving += now[2] - last[2]
            last = now
    print(json.dumps({"points": points, "length_m": round(length, 1), "moving_s": round(moving, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
