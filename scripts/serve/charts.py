"""The charts of the tiles tests (9 and 12): two MBTiles made by scripts/support/mbtiles.py around
a harbour, the layers /api/config must list for them, and a receiver on a boat at anchor in that harbour.

HARBOUR is the base map: no `type` in its metadata (the first file is a base layer), an attribution
in HTML whose text holds an escaped tag (`&lt;b&gt;`: after the tags are removed and the entities
decoded it reads `<b>literal</b>`, and the page must show it so, as text), a centre, zooms 10 to 15,
and two stray tiles stored outside what its metadata states (zoom 16, and a tile west of its
bounds), which the server must not serve. SEAMARKS is the overlay (`type` overlay in its
metadata), zooms 9 to 16 over a smaller square, named with `<` and `&` in it, which the page's
layer switch must show as text. ANCHORAGE is inside both: at the page's zoom the base tile under
the fix is the base layer's (over-zoomed past 15) and the overlay's square is drawn over it; the
receiver's boat swings round its anchor there (anchored_log), so the page draws a track.
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Dict, List, Tuple

from support import mbtiles
from support.gpsd_replay import nmea

HARBOUR_BOUNDS = (-4.2, 48.3, -4.1, 48.4)
HARBOUR_ZOOMS = range(10, 16)
HARBOUR_ATTRIBUTION_HTML = ('<a href="https://example.org/charts">&copy; Test Charts</a>\n  &amp; <b>Bold</b> '
                            '&lt;b&gt;literal&lt;/b&gt; &#169;&#x2122;')
HARBOUR_ATTRIBUTION_TEXT = "© Test Charts & Bold <b>literal</b> ©™"
SEAMARKS_BOUNDS = (-4.18, 48.32, -4.12, 48.38)
SEAMARKS_ZOOMS = range(9, 17)
# The name is read as the attribution is (docs/http.md: text, not HTML): an escaped tag stays text.
SEAMARKS_NAME_HTML = "Seamarks &amp; &lt;i&gt;lights&lt;/i&gt;"
SEAMARKS_NAME = "Seamarks & <i>lights</i>"
SEAMARKS_ATTRIBUTION_HTML = '&copy; <a href="https://www.openseamap.org">OpenSeaMap</a>   contributors'
SEAMARKS_ATTRIBUTION_TEXT = "© OpenSeaMap contributors"
ANCHORAGE = (48.3512, -4.1487)  # lat, lon
SWING_METRES = 40.0  # the boat's circle around its anchor
SWING_EPOCHS = 120  # once round in 2 minutes: about 4 knots
WORLD = [-180.0, -85.051129, 180.0, 85.051129]
# The nine satellites the receiver uses (GSV: PRN, elevation, azimuth, SNR), the same every epoch.
_SATELLITES = [(2, 45, 120, 42), (5, 30, 60, 40), (12, 70, 300, 45), (13, 20, 200, 38), (15, 55, 30, 44),
               (18, 15, 250, 35), (20, 35, 160, 41), (25, 60, 220, 46), (29, 25, 330, 39)]
SKY = [nmea("GPGSV,3,%d,09,%s" % (page + 1, ",".join("%02d,%02d,%03d,%02d" % satellite
                                                        for satellite in _SATELLITES[page * 4:page * 4 + 4])))
       for page in range(3)]


def harbour(folder: Path) -> mbtiles.Chart:
    metadata = mbtiles.metadata_for("Harbour chart", HARBOUR_ZOOMS, HARBOUR_BOUNDS,
                                    attribution=HARBOUR_ATTRIBUTION_HTML, center=(-4.15, 48.35, 14),
                                    description="made by scripts/serve/charts.py", version="1.1")
    west_of = mbtiles.tile_of(48.35, -4.3, 15)
    strays = [(16,) + mbtiles.tile_of(*ANCHORAGE, 16), (15,) + west_of]
    return mbtiles.make_chart(folder / "harbour.mbtiles", HARBOUR_ZOOMS, HARBOUR_BOUNDS, metadata, strays=strays)


def seamarks(folder: Path) -> mbtiles.Chart:
    metadata = mbtiles.metadata_for(SEAMARKS_NAME_HTML, SEAMARKS_ZOOMS, SEAMARKS_BOUNDS, kind="overlay",
                                    attribution=SEAMARKS_ATTRIBUTION_HTML)
    return mbtiles.make_chart(folder / "seamarks.mbtiles", SEAMARKS_ZOOMS, SEAMARKS_BOUNDS, metadata, overlay=True)


def layer(index: int, name: str, fmt: str, zooms, bounds, center, attribution: str, overlay: bool) -> Dict:
    """A layer as /api/config lists it (docs/http.md)."""
    return {"name": name, "url": "/tiles/%d/{z}/{x}/{y}.%s" % (index, fmt), "format": fmt,
            "minzoom": min(zooms), "maxzoom": max(zooms), "bounds": list(bounds),
            "center": None if center is None else list(center), "attribution": attribution, "overlay": overlay}


def harbour_layer(index: int = 1) -> Dict:
    return layer(index, "Harbour chart", "png", HARBOUR_ZOOMS, HARBOUR_BOUNDS, (-4.15, 48.35, 14),
                 HARBOUR_ATTRIBUTION_TEXT, False)


def seamarks_layer(index: int = 2) -> Dict:
    return layer(index, SEAMARKS_NAME, "png", SEAMARKS_ZOOMS, SEAMARKS_BOUNDS, None, SEAMARKS_ATTRIBUTION_TEXT, True)


def layer_differences(got, expected: Dict) -> List[str]:
    """What differs between a layer of /api/config and the one expected (numbers within 1e-9)."""
    if not isinstance(got, dict):
        return ["not an object: %r" % (got,)]
    found = []
    for key, want in expected.items():
        value = got.get(key, "(absent)")
        if isinstance(want, list) and isinstance(value, list) and len(want) == len(value):
            same = all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v - w) <= 1e-9
                       for v, w in zip(value, want))
        elif isinstance(want, bool) or want is None or isinstance(want, str):
            same = value == want and type(value) is type(want)
        else:
            same = isinstance(value, (int, float)) and not isinstance(value, bool) and value == want
        if not same:
            found.append("%s %r, not %r" % (key, value, want))
    return found


def anchored_log(folder: Path, epochs: int = 600, lead_in: int = 20) -> Path:
    """An NMEA recording of a boat swinging at anchor: 1 Hz epochs (GGA, GSA, GSV, RMC) on a circle of
    SWING_METRES around ANCHORAGE, once round every SWING_EPOCHS, after `lead_in` $GPTXT
    sentences (time for loctrack to watch gpsd before the first fix). The circle stays inside
    the anchorage's tiles up to zoom 16, so the tile under the fix is the same all along."""
    centre_lat, centre_lon = ANCHORAGE
    metres_per_degree = 111_320.0
    start = datetime.datetime(2026, 3, 15, 12, 0, 0)
    lines = [nmea("GPTXT,01,01,02,loctrack chart test lead-in %d" % index) for index in range(lead_in)]
    knots = 2 * math.pi * SWING_METRES / SWING_EPOCHS / 0.514444
    for k in range(epochs):
        angle = 2 * math.pi * k / SWING_EPOCHS
        lat = centre_lat + SWING_METRES * math.cos(angle) / metres_per_degree
        lon = centre_lon + SWING_METRES * math.sin(angle) / (metres_per_degree * math.cos(math.radians(centre_lat)))
        course = (math.degrees(angle) + 90) % 360
        lat_text = "%02d%07.4f" % (int(lat), (lat - int(lat)) * 60)
        lon_text = "%03d%07.4f" % (int(abs(lon)), (abs(lon) - int(abs(lon))) * 60)
        when = start + datetime.timedelta(seconds=k)
        hms, date = when.strftime("%H%M%S") + ".00", when.strftime("%d%m%y")
        lines += [nmea("GPGGA,%s,%s,N,%s,W,1,09,0.8,12.0,M,51.0,M,," % (hms, lat_text, lon_text)),
                  nmea("GPGSA,A,3,02,05,12,13,15,18,20,25,29,,,,1.4,0.8,1.1")]
        lines += SKY
        lines.append(nmea("GPRMC,%s,A,%s,N,%s,W,%.1f,%.1f,%s,,,A" % (hms, lat_text, lon_text, knots, course, date)))
    path = folder / "anchorage.nmea"
    path.write_text("\n".join(lines) + "\n")
    return path


def fix_tile(z: int) -> Tuple[int, int, int]:
    """The XYZ address of the tile under ANCHORAGE at zoom z."""
    return (z,) + mbtiles.tile_of(*ANCHORAGE, z)
