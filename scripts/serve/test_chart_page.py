"""Test 12: the page with two charts in headless Chromium (only loopback resolves), `serve
--tiles-file harbour.mbtiles --tiles-file seamarks.mbtiles` (scripts/serve/charts.py), against
gpsfake replaying a receiver on a boat swinging round its anchor in the harbour.

Read from what Leaflet itself puts in the page (`.leaflet-tile-pane img`, `.leaflet-control-layers`,
`.leaflet-control-attribution`), once every tile image is loaded and none has changed for 0.5 s:

- the fix shown on the boat's circle, 25 fixes drawn; both layers' tile images loaded from the server's own
  /tiles/1/ and /tiles/2/ (naturalWidth 256), the tile under the fix among them;
- each layer drawn at the right zoom: its own tiles up to its maxzoom, scaled beyond (over-zoom:
  never grey, never dropped), both layers agreeing on the map's zoom; once at the page's first
  view, then again after a click on Leaflet's zoom-in button (both layers over-zoomed), and no
  tile beyond a layer's maxzoom requested;
- on screen (1x1 screenshots, the track, marker and regions panes hidden for the moment, a spot
  that no control or panel covers): in the base tile under the fix, away from the overlay's
  squares, the colour that encodes that tile's z/x/y; in the middle of the overlay tile under the
  fix, the overlay's colour for its z/x/y: the right tiles, rows flipped right, the overlay on top;
- the layer switch lists both names as text (the overlay's is `Seamarks & <i>lights</i>`) in its base and
  overlay sections, the overlay switched on; the attribution shows both layers' attributions as
  text (no element made from the metadata's HTML: `<b>literal</b>` shown as those characters);
- every tile the page asked for was there (200), nothing requested from anywhere but the server,
  no error in the console, no Content-Security-Policy violation;
- a screenshot of the first view, the layer switch open: out/serve/serve-chart.png and, with --figures
  (`make serve-screenshot`), docs/figures/serve-chart.png.
"""

from __future__ import annotations

import math
import re
import shutil
import time
from typing import Dict, List, Optional

from support import mbtiles
from support.gpsd_replay import Replay, distance_m
from support.results import Result
from support.serve_process import Serve

from . import charts
from .browser import Browser, foreign, origin_of
from .harness import Settings, count

TITLE = "the page with a base chart and an overlay, under the live fix"
EXPECTATION = "both layers' tiles drawn from the server (colours = their z/x/y under the fix), over-zoomed past " \
              "maxzoom; layer switch and attribution as text; no 404, no request elsewhere, no console error"

SCREENSHOT = "serve-chart.png"
TRACK_POINTS = 25  # fixes on the page before it is read: a track to see in the screenshot
TILE_PATH = re.compile(r"/tiles/(\d+)/(\d+)/(\d+)/(\d+)\.(png|jpg|jpeg|webp)$")
LAYERS = {1: ("base", max(charts.HARBOUR_ZOOMS)), 2: ("overlay", max(charts.SEAMARKS_ZOOMS))}

# Every tile image under Leaflet's tile pane, and the map's box, in viewport pixels.
_TILE_IMAGES = """
const pane = document.querySelector('.leaflet-tile-pane');
if (!pane) return null;
const box = pane.closest('.leaflet-container').getBoundingClientRect();
return {map: [box.left, box.top, box.right, box.bottom], images: Array.from(pane.querySelectorAll('img')).map((img) => {
  const r = img.getBoundingClientRect();
  return {url: img.src, complete: img.complete, naturalWidth: img.naturalWidth, opacity: getComputedStyle(img).opacity,
          loaded: img.classList.contains('leaflet-tile-loaded'), rect: [r.left, r.top, r.width, r.height]};
})};
"""

# Hides (or shows again) every pane of the map but the tiles': the track, the fix, the regions.
_VECTOR_PANES = """
for (const pane of document.querySelectorAll('.leaflet-map-pane > .leaflet-pane:not(.leaflet-tile-pane)')) {
  pane.style.visibility = arguments[0] ? '' : 'hidden';
}
"""

# The first spot at fractions 0.15..0.85 of a rectangle that is on screen, outside the squares given,
# and where nothing but the map is (no control, no panel).
_FREE_SPOT = """
const [left, top, width, height, squares, fractions] = arguments;
const map = document.querySelector('.leaflet-container');
for (const fy of fractions) for (const fx of fractions) {
  const x = Math.round(left + fx * width), y = Math.round(top + fy * height);
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
  if (squares.some((s) => x >= s[0] - 2 && x <= s[2] + 2 && y >= s[1] - 2 && y <= s[3] + 2)) continue;
  const at = document.elementFromPoint(x, y);
  if (at && (at === map || (map.contains(at) && !at.closest('.leaflet-control-container')))) return [x, y];
}
return null;
"""

_SWITCH_OPEN = """
const control = document.querySelector('.leaflet-control-layers');
if (control) control.classList.toggle('leaflet-control-layers-expanded', arguments[0]);
"""

_LAYER_SWITCH = """
const control = document.querySelector('.leaflet-control-layers');
if (!control) return null;
const labels = (section) => Array.from(control.querySelectorAll(section + ' label')).map((l) => l.textContent.trim());
return {base: labels('.leaflet-control-layers-base'), overlays: labels('.leaflet-control-layers-overlays'),
        overlaysOn: Array.from(control.querySelectorAll('.leaflet-control-layers-overlays input')).map((i) => i.checked),
        tags: Array.from(control.querySelectorAll('label *')).map((e) => e.tagName.toLowerCase())};
"""

_ATTRIBUTION = """
const box = document.querySelector('.leaflet-control-attribution');
return box ? {text: box.textContent, tags: Array.from(box.querySelectorAll('*')).map((e) => e.tagName.toLowerCase()),
              links: Array.from(box.querySelectorAll('a')).map((a) => a.getAttribute('href'))} : null;
"""


class Drawn:
    """One layer's tile images of a settled page: the zoom of its tiles, the tile under the fix
    (its image's box), and the map's zoom that box's size implies."""

    def __init__(self, layer: int, images: List[Dict]):
        self.layer, self.images = layer, images
        zooms = sorted({image["address"][0] for image in images})
        self.fix_image: Optional[Dict] = None
        for z in reversed(zooms):
            wanted = charts.fix_tile(z)
            found = [image for image in images if image["address"] == wanted and image["rect"][2] > 0]
            if found:
                self.fix_image = found[0]
                break

    @property
    def z(self) -> Optional[int]:
        return self.fix_image["address"][0] if self.fix_image else None

    @property
    def map_zoom(self) -> Optional[float]:
        if not self.fix_image:
            return None
        return self.z + math.log2(self.fix_image["rect"][2] / 256.0)


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("12-chart-page")
    harbour, seamarks = charts.harbour(workdir), charts.seamarks(workdir)
    browser = Browser()
    replay = serve = None
    try:
        replay = Replay(workdir, charts.anchored_log(workdir), cycle=0.02)
        serve = Serve(settings.loctrack, ["--tiles-file", str(harbour.path), "--tiles-file", str(seamarks.path),
                                          replay.source], workdir)
        url = serve.url("/")
        seconds = browser.open(url)
        r.note("page ready %.2f s after the request" % seconds)
        page = browser.wait(lambda p: (count(p["fields"].get("trackPoints")) or 0) >= TRACK_POINTS, 60)
        marker = (page or browser.page())["fields"].get("marker")
        r.check(bool(marker) and distance_m(marker[0], marker[1], *charts.ANCHORAGE) < charts.SWING_METRES + 1,
                "the fix shown on the boat's circle round the anchorage (%.4f, %.4f), %d fixes drawn as a track"
                % (charts.ANCHORAGE + (TRACK_POINTS,)), (marker, (page or {}).get("fields", {}).get("trackPoints")))
        settled = settle(browser)
        if not r.check(settled is not None, "both layers' tile images loaded (complete, naturalWidth 256, opaque) and "
                       "unchanged for 0.5 s (within 60 s)", summary(browser.evaluate(_TILE_IMAGES))):
            return
        check_drawn(r, browser, settled, {1: harbour, 2: seamarks}, "the first view")
        shot = settings.out / SCREENSHOT
        browser.evaluate(_SWITCH_OPEN, True)  # the screenshot shows the layer switch's choices
        browser.screenshot(shot)
        browser.evaluate(_SWITCH_OPEN, False)
        if settings.figures is not None:
            settings.figures.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shot, settings.figures / SCREENSHOT)
        r.note("screenshot %s%s" % (shot, " and %s" % (settings.figures / SCREENSHOT) if settings.figures else ""))
        check_switch_and_attribution(r, browser)

        browser.evaluate("document.querySelector('.leaflet-control-zoom-in').click()")
        before = settled
        settled = settle(browser, changed_from=before)
        if r.check(settled is not None, "after a click on zoom-in: the tiles settle again (within 60 s)"):
            check_drawn(r, browser, settled, {1: harbour, 2: seamarks}, "one zoom in")
        check_requests(r, browser, url)
    finally:
        if serve is not None:
            serve.stop()
        if replay is not None:
            replay.stop()
        browser.quit()


def tile_images(browser: Browser, origin: str) -> Optional[Dict]:
    """_TILE_IMAGES with each image's layer and XYZ address read from its URL (None if not a tile of ours)."""
    found = browser.evaluate(_TILE_IMAGES)
    if not found:
        return None
    for image in found["images"]:
        match = TILE_PATH.search(image["url"]) if image["url"].startswith(origin + "/tiles/") else None
        image["layer"] = int(match.group(1)) if match else None
        image["address"] = tuple(int(match.group(i)) for i in (2, 3, 4)) if match else None
    return found


def summary(found: Optional[Dict]) -> str:
    if not found:
        return "no .leaflet-tile-pane"
    images = found["images"]
    return "%d images, %d complete with naturalWidth 256; first: %s" % (
        len(images), sum(1 for i in images if i["complete"] and i["naturalWidth"] == 256),
        [i["url"] for i in images[:3]])


def settle(browser: Browser, changed_from: Optional[Dict] = None, timeout: float = 60.0) -> Optional[Dict]:
    """The tile images once both layers have some, every one is loaded and drawn opaque (Leaflet's
    fade done), the tile under the fix is there for both, and the set has not changed for 0.5 s
    (and differs from changed_from's, when given); None after timeout."""
    origin = origin_of(browser.driver.current_url)
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        found = tile_images(browser, origin)
        if found:
            images = found["images"]
            key = sorted((i["url"], tuple(round(v) for v in i["rect"])) for i in images)
            ready = all(i["complete"] and i["naturalWidth"] == 256 and i["loaded"] and i["opacity"] == "1"
                        for i in images)
            layers = {i["layer"] for i in images}
            fixes = all(Drawn(layer, [i for i in images if i["layer"] == layer]).fix_image for layer in LAYERS)
            fresh = changed_from is None or key != changed_from["key"]
            if key != last:
                last, since = key, time.monotonic()
            elif ready and fixes and fresh and set(LAYERS) <= layers and time.monotonic() - since >= 0.5:
                found["key"] = key
                return found
        time.sleep(0.1)
    return None


def check_drawn(r: Result, browser: Browser, settled: Dict, files: Dict[int, mbtiles.Chart], when: str) -> None:
    images = settled["images"]
    strangers = [i["url"] for i in images if i["layer"] not in LAYERS]
    r.check(not strangers, "%s: every tile image is the server's own /tiles/1/ or /tiles/2/" % when, strangers[:3])
    drawn = {layer: Drawn(layer, [i for i in images if i["layer"] == layer]) for layer in LAYERS}
    zooms = {layer: d.map_zoom for layer, d in drawn.items()}
    map_zoom = zooms[1]
    agree = all(z is not None and abs(z - map_zoom) < 0.01 for z in zooms.values())
    right = agree and all(d.z == min(round(map_zoom), LAYERS[layer][1]) for layer, d in drawn.items())
    r.check(right, "%s: each layer drawn from its own tiles up to its maxzoom (base %d, overlay %d), scaled beyond, "
            "both at one map zoom" % (when, LAYERS[1][1], LAYERS[2][1]),
            "; ".join("layer %d: tiles of zoom %s under the fix, %s px wide (map zoom %s)" % (
                layer, d.z, d.fix_image and round(d.fix_image["rect"][2]), None if zooms[layer] is None
                else round(zooms[layer], 2)) for layer, d in drawn.items()))
    for layer, d in drawn.items():
        if d.fix_image is None:
            continue
        address, data = d.fix_image["address"], files[layer].tiles.get(d.fix_image["address"])
        r.check(data is not None, "%s: the %s tile under the fix, %d/%d/%d, is one the file holds"
                % ((when, LAYERS[layer][0]) + address))
    check_pixels(r, browser, drawn, when)
    r.figure = r.figure or ""
    r.figure += "%s%s: map zoom %s, base tiles of zoom %s, overlay of zoom %s" % (
        "; " if r.figure else "", when, round(map_zoom) if map_zoom is not None else None, drawn[1].z, drawn[2].z)


def check_pixels(r: Result, browser: Browser, drawn: Dict[int, Drawn], when: str) -> None:
    base, overlay = drawn[1].fix_image, drawn[2].fix_image
    if base is None or overlay is None:
        return
    low, high = (v / 256.0 for v in mbtiles.OVERLAY_SQUARE)
    squares = []
    for image in drawn[2].images:
        left, top, width, height = image["rect"]
        squares.append([left + low * width, top + low * height, left + high * width, top + high * height])
    browser.evaluate(_VECTOR_PANES, False)
    try:
        fractions = [round(0.15 + 0.05 * k, 2) for k in range(15)]
        spot = browser.evaluate(_FREE_SPOT, *base["rect"], squares, fractions)
        if r.check(spot is not None, "%s: a spot of the base tile under the fix that nothing covers" % when):
            colour = browser.pixel(*spot)
            expected = mbtiles.colour_of(*base["address"])
            r.check(tuple(colour) == expected, "%s: on screen in the base tile under the fix (%d/%d/%d), its colour %s"
                    % ((when,) + base["address"] + (expected,)), "%s at %s: %s" % (colour, spot, read(colour)))
        middle = browser.evaluate(_FREE_SPOT, *overlay["rect"], [], [0.5, 0.45, 0.55])
        if r.check(middle is not None, "%s: the middle of the overlay tile under the fix is on screen" % when):
            colour = browser.pixel(*middle)
            expected = mbtiles.overlay_colour_of(*overlay["address"])
            r.check(tuple(colour) == expected, "%s: on screen in the middle of the overlay tile under the fix "
                    "(%d/%d/%d), the overlay's colour %s, over the base" % ((when,) + overlay["address"] + (expected,)),
                    "%s at %s: %s" % (colour, middle, read(colour)))
    finally:
        browser.evaluate(_VECTOR_PANES, True)


def read(colour) -> str:
    decoded = mbtiles.decode_colour(colour)
    if decoded is None:
        return "not a tile's colour"
    kind, z, x8, y8 = decoded
    return "the colour of %s tile for z %d, x %d, y %d (mod 256)" % ("a base" if kind == "base" else "an overlay", z, x8, y8)


def check_switch_and_attribution(r: Result, browser: Browser) -> None:
    switch = browser.evaluate(_LAYER_SWITCH)
    if r.check(switch is not None, "the page has Leaflet's layer switch (.leaflet-control-layers)"):
        r.check(switch["base"] == ["Harbour chart"] and switch["overlays"] == [charts.SEAMARKS_NAME],
                "the layer switch lists the base layer and the overlay by name, as text", switch)
        r.check(set(switch["tags"]) <= {"span", "input", "div", "label"},
                "no element made from a layer's name (only Leaflet's own span and input)", sorted(set(switch["tags"])))
        r.check(switch["overlaysOn"] == [True], "the overlay is switched on", switch["overlaysOn"])
    attribution = browser.evaluate(_ATTRIBUTION)
    if r.check(attribution is not None, "the page has Leaflet's attribution (.leaflet-control-attribution)"):
        text = " ".join(attribution["text"].split())
        r.check(charts.HARBOUR_ATTRIBUTION_TEXT in text and charts.SEAMARKS_ATTRIBUTION_TEXT in text,
                "the attribution shows both layers' attributions as text (%r, %r)"
                % (charts.HARBOUR_ATTRIBUTION_TEXT, charts.SEAMARKS_ATTRIBUTION_TEXT), text)
        made = [tag for tag in attribution["tags"] if tag == "b"]
        links = [href for href in attribution["links"] if href and ("example.org" in href or "openseamap" in href)]
        r.check(not made and not links, "no element of the metadata's HTML in the attribution (no <b>, no link "
                "to example.org or openseamap.org)", (attribution["tags"], attribution["links"]))


def check_requests(r: Result, browser: Browser, url: str) -> None:
    origin = origin_of(url)
    statuses = browser.statuses()
    tiles = {u: s for u, s in statuses.items() if u.startswith(origin + "/tiles/")}
    missing = sorted(u[len(origin):] for u, s in tiles.items() if s != 200)
    r.check(tiles and not missing, "every tile the page asked for was there: %d tile requests, each 200 (the page "
            "keeps to each layer's zooms and bounds)" % len(tiles), "not 200: %s" % missing[:5])
    beyond = [u for u in tiles if (lambda m: m and int(m.group(2)) > LAYERS.get(int(m.group(1)), ("", 99))[1])(
        TILE_PATH.search(u))]
    r.check(not beyond, "no tile beyond a layer's maxzoom requested (over-zoom scales the last level)", beyond[:3])
    r.check(not foreign(browser.requests(), origin), "nothing requested from anywhere but the server",
            foreign(browser.requests(), origin)[:5])
    errors = browser.console_errors()
    r.check(not errors, "no error in the browser's console (a CSP violation, a failed load, an exception)", errors[:5])
    violations = browser.field("cspViolations")
    r.check(not violations, "the page saw no Content-Security-Policy violation", violations)
