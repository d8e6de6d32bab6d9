#!/usr/bin/env python3
"""Reference figures for the track corpus (GPX 1.0/1.1, TCX, KML gx:Track).

Usage: python3 scripts/corpus-figures.py [--no-gpxpy] [FILES...]
(default: every .gpx/.tcx/.kml in Tests/LocTrackTripsTests/Fixtures/corpus).

Prints two markdown tables: the figures, then per-file notes (shared timestamps,
backward steps, gaps, fastest step, receiver speed against chord speed).

Distances are haversine great-circle distances on a sphere of R = 6371008.8 m, the
constant of Sources/LocTrackDistance/Geometry/GreatCircle.swift. Points are "timed"
when they have a time and a usable position; they are taken in time order (stable
sort) across all tracks and segments of a file. The gpxpy columns (GPX only) come from
gpxpy in the venv out/corpus-venv, which the script makes on first use.
"""
import math
import os
import re
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone

R = 6_371_008.8  # metres, as GreatCircle.earthRadius
MAX_STEP_SPEED = 100.0  # m/s, for the "chord without fast steps" column
GAP = 60.0  # s, a gap worth a note
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests/LocTrackTripsTests/Fixtures/corpus")
VENV = os.path.join(ROOT, "out/corpus-venv")


def haversine(lat1, lon1, lat2, lon2):
    r = math.pi / 180
    p1, p2 = lat1 * r, lat2 * r
    dp, dl = (lat2 - lat1) * r, (lon2 - lon1) * r
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.atan2(math.sqrt(a), math.sqrt(1 - a))


TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?$")


def parse_time(text):
    """Seconds since the epoch of an ISO 8601 time (no zone = UTC), or None."""
    m = TIME.match((text or "").strip())
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    t = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc).timestamp() + float(m.group(7) or 0)
    zone = m.group(8)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        hh, mm = int(zone[1:3]), int(zone[-2:])
        t -= sign * (hh * 3600 + mm * 60)
    return t


def local(tag):
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def child(el, name):
    for c in el:
        if local(c.tag) == name:
            return c
    return None


def number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read(path):
    """(kind, points, extra): points are dicts t, lat, lon, speed (None when absent)."""
    root = ET.parse(path).getroot()
    kind = local(root.tag)
    points, extra = [], {}
    if kind == "gpx":
        for p in root.iter():
            if local(p.tag) != "trkpt":
                continue
            speed = None
            for c in p.iter():  # <speed> (GPX 1.0) or any extension element named speed
                if c is not p and local(c.tag) == "speed" and speed is None:
                    speed = number(c.text)
            t = child(p, "time")
            points.append(dict(t=parse_time(t.text if t is not None else None),
                               lat=number(p.get("lat")), lon=number(p.get("lon")), speed=speed))
        return "GPX", points, extra
    if kind == "TrainingCenterDatabase":
        dists = []
        for p in root.iter():
            if local(p.tag) != "Trackpoint":
                continue
            t, pos, dm = child(p, "Time"), child(p, "Position"), child(p, "DistanceMeters")
            lat = lon = speed = None
            if pos is not None:
                la, lo = child(pos, "LatitudeDegrees"), child(pos, "LongitudeDegrees")
                lat = number(la.text) if la is not None else None
                lon = number(lo.text) if lo is not None else None
            for c in p.iter():  # Extensions/TPX/Speed
                if local(c.tag) == "Speed" and speed is None:
                    speed = number(c.text)
            if dm is not None and number(dm.text) is not None:
                dists.append(number(dm.text))
            points.append(dict(t=parse_time(t.text if t is not None else None), lat=lat, lon=lon, speed=speed))
        if dists:
            extra["device_distance"] = max(dists) - min(dists)
        return "TCX", points, extra
    if kind == "kml":
        for track in root.iter():
            if local(track.tag) != "Track":
                continue
            whens = [parse_time(c.text) for c in track if local(c.tag) == "when"]
            coords = [(c.text or "").split() for c in track if local(c.tag) == "coord"]
            speeds = {}  # <ExtendedData><SchemaData><gx:SimpleArrayData name="speed"> if any
            for arr in track.iter():
                if local(arr.tag) == "SimpleArrayData" and arr.get("name", "").lower() == "speed":
                    speeds = {i: number(v.text) for i, v in enumerate(c for c in arr if local(c.tag) == "value")}
            for i, t in enumerate(whens):
                xyz = coords[i] if i < len(coords) else []
                lon, lat = (number(xyz[0]), number(xyz[1])) if len(xyz) >= 2 else (None, None)
                points.append(dict(t=t, lat=lat, lon=lon, speed=speeds.get(i)))
        return "KML", points, extra
    raise ValueError(f"{path}: not GPX, TCX or KML ({kind})")


def usable(p):
    return (p["t"] is not None and p["lat"] is not None and p["lon"] is not None
            and abs(p["lat"]) <= 90 and abs(p["lon"]) <= 180)


def figures(path):
    kind, points, extra = read(path)
    order = [p for p in points if usable(p)]
    backward = sum(1 for a, b in zip(order, order[1:]) if b["t"] < a["t"])
    order.sort(key=lambda p: p["t"])
    steps = [(b["t"] - a["t"], haversine(a["lat"], a["lon"], b["lat"], b["lon"]), a, b)
             for a, b in zip(order, order[1:])]
    chord = sum(d for _, d, _, _ in steps)
    slow = sum(d for dt, d, _, _ in steps if (dt > 0 and d / dt <= MAX_STEP_SPEED) or d == 0)
    integral = sum((a["speed"] + b["speed"]) / 2 * dt for dt, _, a, b in steps
                   if a["speed"] is not None and b["speed"] is not None)
    with_speed = sum(1 for p in order if p["speed"] is not None)
    gaps = [(dt, d) for dt, d, _, _ in steps if dt > GAP]
    fastest = max(((d / dt), dt, d) for dt, d, _, _ in steps if dt > 0) if steps else None
    moving = [(dt, d, a, b) for dt, d, a, b in steps if dt > 0 and d / dt > 1.0 and d / dt <= MAX_STEP_SPEED
              and a["speed"] is not None and b["speed"] is not None]
    ratio = (sum((a["speed"] + b["speed"]) / 2 * dt for dt, _, a, b in moving) / sum(d for _, d, _, _ in moving)
             if moving and sum(d for _, d, _, _ in moving) > 0 else None)
    span = order[-1]["t"] - order[0]["t"] if order else 0
    return dict(
        kind=kind, points=len(points), timed=len(order), untimed=len(points) - len(order),
        median=statistics.median([dt for dt, *_ in steps]) if steps else None,
        span=span, chord=chord, slow=slow, with_speed=with_speed,
        integral=integral if with_speed >= 2 else None, device=extra.get("device_distance"),
        shared=sum(1 for dt, *_ in steps if dt == 0), backward=backward, gaps=gaps, fastest=fastest,
        ratio=ratio, start=order[0]["t"] if order else None)


GPXPY_SNIPPET = r"""
import json, sys, gpxpy
out = {}
for path in sys.argv[1:]:
    try:
        g = gpxpy.parse(open(path, encoding="utf-8"))
        m = g.get_moving_data()
        out[path] = [g.length_2d(), m.moving_time, m.moving_distance, m.max_speed, gpxpy.__version__]
    except Exception as e:  # a file gpxpy cannot measure gets dashes
        out[path] = [None, None, None, None, gpxpy.__version__]
print(json.dumps(out))
"""


def gpxpy_figures(paths):
    """{path: [length_2d, moving_time, moving_distance, max_speed, version]} from the venv's gpxpy."""
    if not paths:
        return {}
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if subprocess.run([py, "-c", "import gpxpy"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "gpxpy"], check=True)
    import json
    out = subprocess.run([py, "-c", GPXPY_SNIPPET, *paths], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def hms(s):
    return str(timedelta(seconds=round(s)))


def f(v, fmt="{:.1f}"):
    return "–" if v is None else fmt.format(v)


def main(argv):
    use_gpxpy = "--no-gpxpy" not in argv
    paths = [a for a in argv if a != "--no-gpxpy"]
    if not paths:
        paths = sorted(os.path.join(CORPUS, n) for n in os.listdir(CORPUS)
                       if n.lower().endswith((".gpx", ".tcx", ".kml")))
    rows = {p: figures(p) for p in paths}
    g = gpxpy_figures([p for p in paths if rows[p]["kind"] == "GPX"]) if use_gpxpy else {}
    version = next(iter(g.values()))[4] if g else "–"
    print(f"R = {R} m; chord = haversine sum over timed points in time order; "
          f"'≤100 m/s' leaves out steps faster than {MAX_STEP_SPEED:g} m/s (and nonzero steps with dt = 0); "
          f"speed ∫ = trapezoid of receiver speed; gpxpy {version} (moving time s, moving distance m, max speed m/s).\n")
    print("| file | fmt | points (timed) | median Δt s | span | chord m | chord ≤100 m/s m | speed ∫ m | TCX DistanceMeters Δ m "
          "| gpxpy length_2d m | gpxpy moving time s | gpxpy moving dist m | gpxpy max speed m/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        r, x = rows[p], g.get(p)
        print(f"| {os.path.basename(p)} | {r['kind']} | {r['points']} ({r['timed']}) | {f(r['median'], '{:g}')} "
              f"| {hms(r['span'])} | {r['chord']:.1f} | {r['slow']:.1f} | {f(r['integral'])} | {f(r['device'])} "
              f"| {f(x and x[0])} | {f(x and x[1], '{:g}')} | {f(x and x[2])} | {f(x and x[3], '{:.2f}')} |")
    print("\n| file | start (UTC) | with speed | shared times | backward steps | gaps > 60 s (n; longest s / metres across it) "
          "| fastest step m/s (Δt s, m) | speed ∫ / chord on moving steps |")
    print("|---|---|---|---|---|---|---|---|")
    for p in paths:
        r = rows[p]
        start = datetime.fromtimestamp(r["start"], timezone.utc).strftime("%Y-%m-%d %H:%M") if r["start"] is not None else "–"
        longest = max(r["gaps"]) if r["gaps"] else None
        gaps = f"{len(r['gaps'])}; {longest[0]:.0f} s / {longest[1]:.0f} m" if longest else "0"
        fast = f"{r['fastest'][0]:.1f} ({r['fastest'][1]:g}, {r['fastest'][2]:.0f})" if r["fastest"] else "–"
        print(f"| {os.path.basename(p)} | {start} | {r['with_speed']} | {r['shared']} | {r['backward']} | {gaps} | {fast} "
              f"| {f(r['ratio'], '{:.3f}')} |")


if __name__ == "__main__":
    main(sys.argv[1:])
