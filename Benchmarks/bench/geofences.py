"""Deterministic geofences along the flood's track, for the monitor part.

The flood emulator (scripts/support/flood_gpsd.c, format_epoch) walks its receiver in a
straight line north-east: epoch k is at lat 38.110494 + k * 1.2e-6, lon -122.626897 + k * 1.5e-6,
about 0.19 m per epoch (18.7 km for 100,000 epochs), with eph 2.707 m. The polygons here are
laid out around that line: a quarter of them straddle it (the track enters and leaves them),
the rest lie scattered in a band on either side (near enough to share the spatial index's
cells with the track, mostly not touched by it). Each is a 5- to 8-vertex star-shaped polygon
50-500 m across; every third one is concave (alternate vertices pulled in). Same seed, same
file, byte for byte.
"""

from __future__ import annotations

import json
import math
import random

# flood_gpsd.c's format_epoch: the start and the step per epoch, in degrees.
TRACK_START = (38.110494, -122.626897)
TRACK_STEP = (1.2e-6, 1.5e-6)
METRES_PER_DEGREE = 111_320.0  # of latitude; of longitude times cos(latitude)
BAND_M = 1_500                 # polygons lie within this distance of the track (centres)


def track_point(k: float) -> tuple[float, float]:
    """(lat, lon) of epoch k, as the emulator computes it."""
    return TRACK_START[0] + k * TRACK_STEP[0], TRACK_START[1] + k * TRACK_STEP[1]


def circle_on_track(epochs: int) -> tuple[float, float, float]:
    """A circle (lat, lon, radius m) centred on the track half-way, a quarter of its length
    across (at most 100 m): the track enters and leaves it once."""
    lat, lon = track_point(epochs / 2)
    length = epochs * 0.19
    return round(lat, 7), round(lon, 7), round(min(100.0, max(20.0, length / 8)), 1)


def polygons(count: int, epochs: int, seed: int = 2026) -> dict:
    """A FeatureCollection of `count` polygons (ids p00000, p00001, ...) over the track of
    `epochs` epochs."""
    rng = random.Random(seed)
    lat0, lon0 = TRACK_START
    per_lon = METRES_PER_DEGREE * math.cos(math.radians(lat0))
    # The track in metres east (x) and north (y) of its start; u along it, n across it.
    end_x, end_y = epochs * TRACK_STEP[1] * per_lon, epochs * TRACK_STEP[0] * METRES_PER_DEGREE
    length = math.hypot(end_x, end_y) or 1.0
    ux, uy = end_x / length, end_y / length
    nx, ny = -uy, ux
    features = []
    for i in range(count):
        radius = rng.uniform(25, 250)  # 50-500 m across
        if i % 4 == 0:  # straddles the track: the centre within 40 % of the radius of it
            along, across = rng.uniform(0, length), rng.uniform(-0.4, 0.4) * radius
        else:
            along, across = rng.uniform(-BAND_M, length + BAND_M), rng.uniform(-BAND_M, BAND_M)
        cx, cy = along * ux + across * nx, along * uy + across * ny
        vertices = rng.randint(5, 8)
        concave = i % 3 == 0
        start = rng.uniform(0, 2 * math.pi)
        ring = []
        for v in range(vertices):  # increasing angles: counter-clockwise, as RFC 7946 asks
            angle = start + 2 * math.pi * (v + rng.uniform(-0.25, 0.25)) / vertices
            r = radius * (rng.uniform(0.35, 0.5) if concave and v % 2 else rng.uniform(0.8, 1.0))
            x, y = cx + r * math.cos(angle), cy + r * math.sin(angle)
            ring.append([round(lon0 + x / per_lon, 7), round(lat0 + y / METRES_PER_DEGREE, 7)])
        ring.append(ring[0])
        features.append({"type": "Feature", "properties": {"id": f"p{i:05d}"},
                         "geometry": {"type": "Polygon", "coordinates": [ring]}})
    return {"type": "FeatureCollection", "features": features}


def write_polygons(path: str, count: int, epochs: int) -> int:
    """Writes polygons(count, epochs) as compact JSON; returns its size in bytes."""
    text = json.dumps(polygons(count, epochs), separators=(",", ":"))
    with open(path, "w") as f:
        f.write(text)
    return len(text)
