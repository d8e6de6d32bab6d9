"""Test 9: tiles from MBTiles files (`serve --tiles-file` seven times) over plain sockets, against
gpsfake's gpsd, with --token-file.

The files, made by the test (scripts/support/mbtiles.py, scripts/serve/charts.py): 1 the harbour
chart (base, PNG, HTML attribution, two stray tiles outside its stated zooms and bounds), 2 the
seamarks overlay (transparent PNG, `type` overlay), 3 mbutil's layout (`tiles` a view over `map`
and deduplicated `images`; `type` baselayer, so not an overlay although not first), 4 a file in WAL
mode whose last zoom is still in its -wal file, 5 JPEG (`format` jpg), 6 WebP, 7 a file without
metadata (its name from the file name, its zooms from the tiles, the world as bounds, no centre,
an overlay by its place).

- /api/config lists the seven layers in order with docs/http.md's fields;
- every tile of every file, asked for by its XYZ path: 200, the stored bytes exactly (the row is
  the flipped TMS one: a wrong row is another tile), Content-Type from the bytes, ETag
  "<file tag>-Z-X-Y" (one file tag per layer, another per layer), Cache-Control private,
  max-age=86400; 304 on If-None-Match with it, 200 with another; HEAD: the headers, no body; a
  query changes nothing; .jpeg is the JPEG layer's .jpg;
- well-formed paths with nothing there (no layer 8 or 999, a zoom outside the layer's, x or y at or
  beyond 2^z, a tile outside the bounds, the stray tiles, no row, another extension, the rows only
  in the -wal file): 404 with an empty body and the same Cache-Control;
- malformed paths (layer 0, leading zeros, letters, signs, too many digits, z 31, extra or
  missing segments, encoded slashes, an unknown extension): 400, one line of text/plain;
- the token: 401 without it, 200 with the cookie; every tile response carries docs/http.md's
  Content-Security-Policy (img-src 'self' data:);
- the WAL file: one warning line on stderr that names it; still served.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from support import mbtiles
from support.gpsd_replay import Replay
from support.results import Result
from support.serve_process import Serve

from . import charts
from .harness import DEMO_TRACK, Settings, write_token_file
from .test_access import CSP, normalised

TITLE = "tiles from MBTiles files: exact bytes, 404 and 400, token"
EXPECTATION = "every tile byte-exact by its XYZ path with type, ETag, 304, Cache-Control; outside tiles 404 " \
              "empty; malformed 400; token needed; /api/config layers as the metadata; mbutil view and WAL served"

CACHE = "private, max-age=86400"
CONTENT_TYPES = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}
ETAG = re.compile(r'^"(?P<tag>[^"]+)-(?P<z>\d+)-(?P<x>\d+)-(?P<y>\d+)"$')


class Layer:
    def __init__(self, chart: mbtiles.Chart, expected: Dict):
        self.chart, self.expected = chart, expected

    @property
    def index(self) -> int:
        return int(self.expected["url"].split("/")[2])

    def path(self, address: Tuple[int, int, int], extension: Optional[str] = None) -> str:
        z, x, y = address
        return "/tiles/%d/%d/%d/%d.%s" % (self.index, z, x, y, extension or self.chart.format)


def make_layers(folder: Path) -> List[Layer]:
    layers = [Layer(charts.harbour(folder), charts.harbour_layer(1)),
              Layer(charts.seamarks(folder), charts.seamarks_layer(2))]
    bounds = (2.2, 48.7, 2.5, 48.95)
    zooms = range(5, 13)
    sea = mbtiles.tiles_in([12], bounds)  # its last zoom all one image: stored once
    metadata = mbtiles.metadata_for("Mbutil chart", zooms, bounds, kind="baselayer", attribution="mbutil")
    chart = mbtiles.make_chart(folder / "mbutil.mbtiles", zooms, bounds, metadata, layout="mbutil", shared=sea)
    layers.append(Layer(chart, charts.layer(3, "Mbutil chart", "png", zooms, bounds, None, "mbutil", False)))
    bounds, zooms = (-0.2, 51.4, 0.1, 51.6), range(6, 11)
    metadata = mbtiles.metadata_for("Journal chart", zooms, bounds, kind="overlay", attribution="WAL")
    chart = mbtiles.make_chart(folder / "journal.mbtiles", zooms, bounds, metadata, wal=True, wal_zoom=10)
    layers.append(Layer(chart, charts.layer(4, "Journal chart", "png", zooms, bounds, None, "WAL", True)))
    for index, (fmt, data, stored) in enumerate((("jpg", mbtiles.JPEG_TILE, "jpg"), ("webp", mbtiles.WEBP_TILE, "webp")), 5):
        bounds, zooms = (10.0, 45.0, 12.0, 47.0), range(3, 7)
        metadata = mbtiles.metadata_for("Photo %s" % fmt, zooms, bounds, fmt=stored, kind="overlay")
        chart = mbtiles.make_fixed_chart(folder / ("photo-%s.mbtiles" % fmt), data, fmt, zooms, bounds, metadata)
        layers.append(Layer(chart, charts.layer(index, "Photo %s" % fmt, fmt, zooms, bounds, None, "", True)))
    zooms = range(2, 5)
    chart = mbtiles.make_chart(folder / "plain.mbtiles", zooms, (-75.0, 40.0, -73.0, 41.0), metadata={})
    layers.append(Layer(chart, charts.layer(7, "plain", "png", zooms, charts.WORLD, None, "", True)))
    return layers


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("9-tiles")
    token, token_file = write_token_file(workdir)
    layers = make_layers(workdir)
    auth = {"Authorization": "Bearer " + token}
    replay = serve = None
    try:
        replay = Replay(workdir, DEMO_TRACK, cycle=0.05)
        files = [argument for layer in layers for argument in ("--tiles-file", str(layer.chart.path))]
        serve = Serve(settings.loctrack, ["--token-file", str(token_file)] + files + [replay.source], workdir)
        check_config(r, serve, layers, auth)
        tags = check_every_tile(r, serve, layers, auth)
        check_conditional(r, serve, layers, auth)
        nothing = check_nothing_there(r, serve, layers, auth)
        check_malformed(r, serve, auth)
        check_token(r, serve, layers, token)
        check_wal(r, serve, layers[3], auth)
        r.figure = "%d tiles of %d files byte for byte (%d rows only in a -wal, %d stray rows: not served); %d paths " \
                   "with nothing there 404, %d malformed 400" % (
                       sum(len(layer.chart.tiles) for layer in layers), len(layers), len(layers[3].chart.in_wal),
                       len(layers[0].chart.strays), nothing, len(MALFORMED))
        r.check(len(set(tags.values())) == len(layers) and None not in tags.values(),
                "each layer's ETags share one file tag, and the %d layers' tags differ" % len(layers), tags)
        r.check(serve.running(), "the server is still running")
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()


def check_config(r: Result, serve: Serve, layers: List[Layer], auth: Dict[str, str]) -> None:
    response = serve.get("/api/config", auth)
    try:
        listed = response.json().get("layers")
    except (ValueError, AttributeError):
        listed = None
    if not r.check(isinstance(listed, list) and len(listed) == len(layers),
                   "/api/config lists %d layers" % len(layers), response.summary() if listed is None else listed):
        return
    for layer, got in zip(layers, listed):
        differences = charts.layer_differences(got, layer.expected)
        r.check(not differences, "/api/config layer %d (%s) as its metadata says" % (layer.index, layer.chart.path.name),
                "; ".join(differences))


def check_every_tile(r: Result, serve: Serve, layers: List[Layer], auth: Dict[str, str]) -> Dict[int, Optional[str]]:
    """Every tile of every layer, byte for byte; returns each layer's file tag (None if they differ)."""
    tags: Dict[int, Optional[str]] = {}
    for layer in layers:
        wrong: List[str] = []
        seen_tags = set()
        for address in layer.chart.addresses:
            response = serve.get(layer.path(address), auth)
            expected = layer.chart.tiles[address]
            etag = ETAG.match(response.header("ETag") or "")
            problems = []
            if response.status != 200 or response.body != expected:
                problems.append("%s, %s" % (response.summary(), describe(response.body, layer, address)))
            if response.header("Content-Type") != CONTENT_TYPES[layer.chart.format]:
                problems.append("Content-Type %r" % response.header("Content-Type"))
            if etag is None or (int(etag["z"]), int(etag["x"]), int(etag["y"])) != address:
                problems.append("ETag %r" % response.header("ETag"))
            else:
                seen_tags.add(etag["tag"])
            if response.header("Cache-Control") != CACHE:
                problems.append("Cache-Control %r" % response.header("Cache-Control"))
            if normalised(response.header("Content-Security-Policy")) != normalised(CSP):
                problems.append("CSP %r" % response.header("Content-Security-Policy"))
            if problems:
                wrong.append("%s: %s" % (layer.path(address), "; ".join(problems)))
        tags[layer.index] = seen_tags.pop() if len(seen_tags) == 1 else None
        r.check(not wrong, "layer %d (%s): each of its %d tiles by its XYZ path: 200, its bytes, %s, ETag \"TAG-Z-X-Y\", "
                "Cache-Control %s, the CSP" % (layer.index, layer.chart.path.name, len(layer.chart.tiles),
                                             CONTENT_TYPES[layer.chart.format], CACHE),
                "%d wrong: %s" % (len(wrong), wrong[:3]))
    mbutil = layers[2]
    shared = [address for address in mbutil.chart.addresses if mbutil.chart.tiles[address] == mbtiles.base_tile(0, 0, 0)]
    r.check(len(shared) >= 5, "mbutil's layout: %d tiles share one stored image, each served as it" % len(shared))
    return tags


def describe(body: bytes, layer: Layer, address) -> str:
    """What a wrong answer holds: another tile of the file (the row not flipped?), or what."""
    if not body:
        return "empty body"
    for other, data in layer.chart.tiles.items():
        if data == body:
            z, x, y = other
            flipped = " (the TMS row read as XYZ)" if (z, x) == address[:2] and y == mbtiles.tms_row(z, address[2]) else ""
            return "the bytes of tile %d/%d/%d%s" % (z, x, y, flipped)
    return "%d bytes of no tile of the file" % len(body)


def check_conditional(r: Result, serve: Serve, layers: List[Layer], auth: Dict[str, str]) -> None:
    wrong = []
    checked = 0
    for layer in layers:
        for address in layer.chart.addresses[::7]:
            path = layer.path(address)
            first = serve.get(path, auth)
            etag = first.header("ETag") or ""
            again = serve.get(path, dict(auth, **{"If-None-Match": etag}))
            other = serve.get(path, dict(auth, **{"If-None-Match": '"another-tag"'}))
            head = serve.get(path, auth, method="HEAD")
            query = serve.get(path + "?v=2&z=1", auth)
            checked += 1
            if again.status != 304 or again.body or again.header("ETag") != etag:
                wrong.append("%s If-None-Match: %s, ETag %r" % (path, again.summary(), again.header("ETag")))
            if other.status != 200 or other.body != first.body:
                wrong.append("%s another If-None-Match: %s" % (path, other.summary()))
            if head.status != 200 or head.body or head.header("Content-Length") != str(len(first.body)) \
                    or head.header("ETag") != etag or head.header("Content-Type") != first.header("Content-Type"):
                wrong.append("%s HEAD: %s, Content-Length %r" % (path, head.summary(), head.header("Content-Length")))
            if query.status != 200 or query.body != first.body:
                wrong.append("%s?v=2&z=1: %s" % (path, query.summary()))
    r.check(not wrong and checked > 0, "%d tiles (every 7th of each layer): If-None-Match with its ETag 304 without a body, "
            "another ETag 200; HEAD the same headers, no body; a query changes nothing" % checked, wrong[:4])
    photo = layers[4]
    address = photo.chart.addresses[0]
    jpeg = serve.get(photo.path(address, "jpeg"), auth)
    r.check(jpeg.status == 200 and jpeg.body == mbtiles.JPEG_TILE and jpeg.header("Content-Type") == "image/jpeg",
            "the JPEG layer by .jpeg as by .jpg: 200 image/jpeg, its bytes", jpeg.summary())


def check_nothing_there(r: Result, serve: Serve, layers: List[Layer], auth: Dict[str, str]) -> int:
    """The well-formed paths with nothing there; returns how many were tried."""
    harbour, seamarks, photo = layers[0], layers[1], layers[4]
    low, high = harbour.chart.zooms()
    z, x, y = harbour.chart.addresses[len(harbour.chart.addresses) // 2]
    edge = 1 << z
    east = max(a[1] for a in harbour.chart.addresses if a[0] == z) + 1
    cases = [
        ("no layer %d" % (len(layers) + 1), "/tiles/%d/%d/%d/%d.png" % (len(layers) + 1, z, x, y)),
        ("no layer 999", "/tiles/999/%d/%d/%d.png" % (z, x, y)),
        ("zoom below the layer's (%d)" % (low - 1), harbour.path((low - 1, x >> (z - low + 1), y >> (z - low + 1)))),
        ("zoom above the layer's, a stray tile stored there", harbour.path(harbour.chart.strays[0])),
        ("zoom 30, well-formed", harbour.path((30, 0, 0))),
        ("x = 2^z", harbour.path((z, edge, y))),
        ("y = 2^z", harbour.path((z, x, edge))),
        ("x of 10 digits", harbour.path((z, 9999999999, y))),
        ("y of 10 digits", harbour.path((z, x, 9999999999))),
        ("a tile outside the bounds, a stray tile stored there", harbour.path(harbour.chart.strays[1])),
        ("a tile east of the bounds, no row", harbour.path((z, east, y))),
        ("the flipped row (no tile there)", harbour.path((z, x, mbtiles.tms_row(z, y)))),
        ("another extension (.jpg of a PNG layer)", harbour.path((z, x, y), "jpg")),
        ("another extension (.webp of a PNG layer)", harbour.path((z, x, y), "webp")),
        ("another extension (.png of a JPEG layer)", photo.path(photo.chart.addresses[0], "png")),
        ("a tile of the base layer asked from the overlay, outside its bounds", seamarks.path((10, 0, 0))),
        ("a tile of the file without metadata where it has none", layers[6].path((3, 0, 0))),
    ]
    if (z, x, mbtiles.tms_row(z, y)) in harbour.chart.tiles:
        cases = [case for case in cases if not case[0].startswith("the flipped row")]
    wrong = []
    for what, path in cases:
        response = serve.get(path, auth)
        if response.status != 404 or response.body or response.header("Cache-Control") != CACHE:
            wrong.append("%s %s: %s, Cache-Control %r" % (what, path, response.summary(), response.header("Cache-Control")))
    r.check(not wrong, "%d well-formed paths with nothing there (no such layer, zoom, row or extension; x or y beyond "
            "2^z; outside the bounds, stray tiles included): 404, empty body, Cache-Control %s" % (len(cases), CACHE),
            wrong[:4])
    for path in ("/tiles", "/tiles/"):
        response = serve.get(path, auth)
        r.check(response.status == 404, "%s: 404" % path, response.summary())
    return len(cases)


MALFORMED = [
    ("layer 0 (they count from 1)", "/tiles/0/12/2000/1400.png"),
    ("a leading zero in the layer", "/tiles/01/12/2000/1400.png"), ("a leading zero in z", "/tiles/1/012/2000/1400.png"),
    ("a leading zero in x", "/tiles/1/12/02000/1400.png"), ("a leading zero in y", "/tiles/1/12/2000/01400.png"),
    ("00 as x", "/tiles/1/12/00/1400.png"),
    ("a letter in the layer", "/tiles/a/12/2000/1400.png"), ("a letter in z", "/tiles/1/1z/2000/1400.png"),
    ("a letter in x", "/tiles/1/12/20x0/1400.png"), ("a letter in y", "/tiles/1/12/2000/14y0.png"),
    ("a hex x", "/tiles/1/12/0x10/1400.png"), ("a minus sign", "/tiles/1/12/-1/1400.png"),
    ("a plus sign", "/tiles/1/12/+1/1400.png"), ("a space (encoded)", "/tiles/1/12/%2020/1400.png"),
    ("a fraction", "/tiles/1/12/20.5/1400.png"),
    ("a layer of 4 digits", "/tiles/1000/12/2000/1400.png"), ("z of 3 digits", "/tiles/1/100/2000/1400.png"),
    ("z 31", "/tiles/1/31/0/0.png"), ("z 99", "/tiles/1/99/0/0.png"),
    ("x of 11 digits", "/tiles/1/12/12345678901/1400.png"), ("y of 11 digits", "/tiles/1/12/2000/12345678901.png"),
    ("an extra segment", "/tiles/1/12/2000/1400/1.png"), ("a segment after the tile", "/tiles/1/12/2000/1400.png/x"),
    ("a trailing slash", "/tiles/1/12/2000/1400.png/"), ("a missing segment", "/tiles/1/12/2000.png"),
    ("no layer", "/tiles//12/2000/1400.png"), ("an empty y", "/tiles/1/12/2000/.png"),
    ("no extension", "/tiles/1/12/2000/1400"), ("an empty extension", "/tiles/1/12/2000/1400."),
    ("an unknown extension", "/tiles/1/12/2000/1400.gif"), ("an upper-case extension", "/tiles/1/12/2000/1400.PNG"),
    ("a double extension", "/tiles/1/12/2000/1400.png.png"), ("two dots", "/tiles/1/12/2000/1400..png"),
    ("an encoded slash in the tile", "/tiles/1/12/2000%2F1400.png"),
    ("an encoded slash after the layer", "/tiles/1%2F12/2000/1400.png"),
    ("a NUL", "/tiles/1/12/2000/1400.png%00"), ("an encoded backslash", "/tiles/1/12/2000%5C1400.png"),
    ("a dot segment", "/tiles/1/12/./2000/1400.png"), ("a dot-dot segment", "/tiles/1/12/../12/2000/1400.png"),
    ("a name", "/tiles/harbour/12/2000/1400.png"), ("a double slash", "/tiles/1//12/2000/1400.png"),
]


def check_malformed(r: Result, serve: Serve, auth: Dict[str, str]) -> None:
    wrong = []
    for what, path in MALFORMED:
        response = serve.get(path, auth)
        body = response.body.strip()
        if response.status != 400 or not (response.header("Content-Type") or "").startswith("text/plain") \
                or not body or b"\n" in body:
            wrong.append("%s %s: %s %r" % (what, path, response.summary(), response.body[:80]))
    r.check(not wrong, "%d malformed tile paths: 400, one line of text/plain" % len(MALFORMED), wrong[:5])
    r.check(serve.get("/api/status", auth).status == 200, "the server answers after them")


def check_token(r: Result, serve: Serve, layers: List[Layer], token: str) -> None:
    harbour = layers[0]
    path = harbour.path(harbour.chart.addresses[0])
    expected = harbour.chart.tiles[harbour.chart.addresses[0]]
    without = serve.get(path)
    wrong = serve.get(path, {"Authorization": "Bearer " + token[:-1] + ("0" if token[-1] != "0" else "1")})
    r.check(without.status == 401 and wrong.status == 401 and expected not in (without.body, wrong.body),
            "a tile without the token, or with a wrong one: 401, not the tile", (without.summary(), wrong.summary()))
    for what, headers in (("no token", {}), ("a wrong token", {"Authorization": "Bearer x" + token})):
        response = serve.get("/tiles/1/99/0/0.png", headers)
        r.check(response.status == 401, "a malformed tile path with %s: 401 (the token first)" % what, response.summary())
    cookie = serve.get(path, {"Cookie": "loctrack_token=" + token})
    r.check(cookie.status == 200 and cookie.body == expected, "the tile with the token as the cookie: 200, its bytes",
            cookie.summary())


def check_wal(r: Result, serve: Serve, layer: Layer, auth: Dict[str, str]) -> None:
    path = layer.chart.path
    wal = Path(str(path) + "-wal")
    r.check(wal.exists() and wal.stat().st_size > 0 and len(layer.chart.in_wal) > 0,
            "the WAL file's last zoom (%d tiles) is only in %s (%d bytes)" % (
                len(layer.chart.in_wal), wal.name, wal.stat().st_size if wal.exists() else 0))
    lines = [line for line in serve.stderr().splitlines() if line.strip()]
    warned = [line for line in lines if str(path) in line and "wal" in line.lower()]
    r.check(len(warned) == 1 and warned[0].startswith("loctrack: "),
            "one warning line on stderr names the file and its -wal", lines[:4])
    unseen = [address for address in layer.chart.in_wal if serve.get(layer.path(address), auth).status != 404]
    r.check(not unseen, "the %d tiles only in the -wal file: 404 (the file is read as it is, immutable)"
            % len(layer.chart.in_wal), unseen[:3])
