"""Headless Chromium driven by chromedriver (Debian's chromium, chromium-driver, python3-selenium).

Every name but 127.0.0.1 is made unresolvable (--host-resolver-rules), so a page that loads
anything from the internet fails visibly: the requests it made are read from Chromium's own
network log (requests()), its console errors (a Content-Security-Policy violation, a failed
load) from the browser log (console_errors()).

The page keeps what it shows in `window.loctrack` (web/README.md, "For the browser tests": ready,
lastEventId, marker, accuracyRadius, trackPoints, trackTotal, trackLast, fixCount, status, mode,
fixStatus, satellitesUsed, satellitesSeen, regions, regionColours, stale, banner, loadMs,
eventsOpen, follow, tiles, cspViolations, distanceToday, moving, tripState, tripDistance) and in the elements #fix-status, #sat-used, #sat-seen and
#banner; page() reads them, each field on its own, so a field the page lacks reads as None
instead of failing the read.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FIELDS = ["ready", "lastEventId", "marker", "accuracyRadius", "trackPoints", "trackTotal", "trackLast", "fixCount", "status",
          "mode", "fixStatus", "satellitesUsed", "satellitesSeen", "regions", "regionColours", "stale", "banner", "loadMs",
          "eventsOpen", "follow", "tiles", "cspViolations", "distanceToday", "moving", "tripState", "tripDistance"]
ELEMENTS = ["fix-status", "sat-used", "sat-seen", "banner"]
DESKTOP = (1200, 800)
PHONE = (390, 844)

# Reads window.loctrack field by field (a field holding a Leaflet object would not survive
# JSON), plus the text of the contract's elements.
_READ = """
const out = {fields: {}, elements: {}, present: typeof window.loctrack === 'object' && window.loctrack !== null};
for (const name of arguments[0]) {
  try { const v = out.present ? window.loctrack[name] : undefined;
        out.fields[name] = v === undefined ? null : JSON.parse(JSON.stringify(v)); }
  catch (e) { out.fields[name] = null; }
}
for (const id of arguments[1]) {
  const e = document.getElementById(id);
  out.elements[id] = e ? {text: e.textContent.trim(), visible: !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length)} : null;
}
return out;
"""

# Records every change of what the page shows of the regions and of its staleness, with Date.now(),
# every 20 ms, from the moment it is installed.
_RECORDER = """
window.__pageLog = [];
let last = '';
setInterval(() => {
  const l = window.loctrack || {};
  const entry = {regions: l.regions || null, colours: l.regionColours || null, stale: l.stale, banner: l.banner};
  const now = JSON.stringify(entry);
  if (now !== last) { last = now; entry.t = Date.now(); window.__pageLog.push(entry); }
}, 20);
"""


def missing() -> List[str]:
    """What is not installed for the browser tests (make serve-test installs all of it)."""
    absent = []
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        absent.append("chromium (Debian package chromium)")
    if not Path(CHROMEDRIVER).exists():
        absent.append("chromedriver (Debian package chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        absent.append("selenium for this Python (Debian package python3-selenium, for /usr/bin/python3)")
    return absent


class Browser:
    def __init__(self, width: int = DESKTOP[0], height: int = DESKTOP[1]):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
                         "--window-size=%d,%d" % (width, height), "--enable-precise-memory-info",
                         "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                         "--disable-background-networking", "--disable-component-update",
                         # The page under test keeps running while a screenshot is made in another tab:
                         # no throttling of background tabs' timers.
                         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                         "--disable-backgrounding-occluded-windows"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(30)
        self.size = (width, height)
        self._metrics(width, height, mobile=False)
        self._performance: List[Dict] = []
        self._console: List[Dict] = []

    # -- loading and reading -----------------------------------------------------------------------

    def open(self, url: str, timeout: float = 20.0) -> float:
        """Loads url and waits for window.loctrack.ready; the seconds that took (raises on timeout)."""
        started = time.monotonic()
        self.driver.get(url)
        if not self.wait(lambda page: page["fields"].get("ready") is True, timeout):
            page = self.page()
            raise RuntimeError("the page at %s was not ready within %g s (window.loctrack %s; console: %s)" % (
                url, timeout, "present" if page["present"] else "absent", self.console_errors()[:3]))
        return time.monotonic() - started

    def page(self) -> Dict[str, Any]:
        return self.driver.execute_script(_READ, FIELDS, ELEMENTS)

    def field(self, name: str) -> Any:
        return self.page()["fields"].get(name)

    def text(self, element: str) -> Optional[str]:
        found = self.page()["elements"].get(element)
        return found["text"] if found else None

    def wait(self, condition, timeout: float, interval: float = 0.05) -> Optional[Dict[str, Any]]:
        """The page (as page() reads it) once condition(page) holds, else None after timeout."""
        deadline = time.monotonic() + timeout
        while True:
            page = self.page()
            try:
                if condition(page):
                    return page
            except (KeyError, TypeError, IndexError, ValueError):
                pass
            if time.monotonic() >= deadline:
                return None
            time.sleep(interval)

    def evaluate(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def record(self) -> None:
        """Starts recording the page's regions, colours, staleness and banner as they change."""
        self.driver.execute_script(_RECORDER)

    def page_log(self) -> List[Dict]:
        """What record() saw: {t (ms, Date.now()), regions, colours, stale, banner} at each change."""
        return self.driver.execute_script("return window.__pageLog || []")

    # -- what the page did -------------------------------------------------------------------------

    def _drain_logs(self) -> None:
        for entry in self.driver.get_log("performance"):
            try:
                self._performance.append(json.loads(entry["message"])["message"])
            except (KeyError, ValueError):
                continue
        self._console.extend(self.driver.get_log("browser"))

    def requests(self) -> List[str]:
        """Every URL the page asked for (Network.requestWillBeSent), in order."""
        self._drain_logs()
        return [m["params"]["request"]["url"] for m in self._performance
                if m.get("method") == "Network.requestWillBeSent" and "request" in m.get("params", {})]

    def responses(self) -> Dict[str, str]:
        """The MIME type each URL was answered with (Network.responseReceived; the last answer per URL)."""
        self._drain_logs()
        return {m["params"]["response"]["url"]: m["params"]["response"].get("mimeType", "")
                for m in self._performance
                if m.get("method") == "Network.responseReceived" and "response" in m.get("params", {})}

    def statuses(self) -> Dict[str, int]:
        """The HTTP status each URL was answered with (Network.responseReceived; the last per URL)."""
        self._drain_logs()
        return {m["params"]["response"]["url"]: m["params"]["response"].get("status")
                for m in self._performance
                if m.get("method") == "Network.responseReceived" and "response" in m.get("params", {})}

    def failed_requests(self) -> List[str]:
        self._drain_logs()
        return [m["params"].get("errorText", "") + " " + str(m["params"].get("requestId"))
                for m in self._performance if m.get("method") == "Network.loadingFailed"]

    def console_errors(self, unless_between=()) -> List[str]:
        """The console's SEVERE messages (CSP violations, failed loads, uncaught exceptions), but
        not the favicon's 404, nor a network error (net::ERR_...) logged between any (start, end)
        of unless_between (wall-clock seconds): the connections a test cut on purpose."""
        self._drain_logs()
        found = []
        for entry in self._console:
            message = entry.get("message", "")
            if entry.get("level") != "SEVERE" or "favicon.ico" in message:
                continue
            at = entry.get("timestamp", 0) / 1000.0
            if "net::ERR_" in message and any(start <= at <= end for start, end in unless_between):
                continue
            found.append(message)
        return found

    def heap(self) -> Dict[str, Optional[float]]:
        """The page's JavaScript heap in bytes: V8's (CDP Runtime.getHeapUsage) and performance.memory's."""
        usage = self.driver.execute_cdp_cmd("Runtime.getHeapUsage", {})
        memory = self.driver.execute_script(
            "return performance.memory ? {used: performance.memory.usedJSHeapSize, total: performance.memory.totalJSHeapSize} : null")
        return {"v8_used": usage.get("usedSize"), "v8_total": usage.get("totalSize"),
                "js_used": memory and memory.get("used"), "js_total": memory and memory.get("total")}

    def collect_garbage(self) -> None:
        self.driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})

    # -- pictures ----------------------------------------------------------------------------------

    def _metrics(self, width: int, height: int, mobile: bool, scale: float = 1.0) -> None:
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})

    def snapshots(self, url: str, shots, timeout: float = 20.0) -> None:
        """Opens url in a new tab once per (path, width, height, mobile) of shots, at that size, so
        the page fits the track so far to that viewport as a visitor would see it; a PNG of each;
        then closes the tab and returns to the page under test, which kept running."""
        original = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        try:
            for path, width, height, mobile in shots:
                self._metrics(width, height, mobile)
                self.open(url, timeout)
                time.sleep(0.7)  # the first paint after ready: tiles none, the sky plot, fonts
                path.parent.mkdir(parents=True, exist_ok=True)
                shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
                import base64
                path.write_bytes(base64.b64decode(shot["data"]))
        finally:
            self.driver.close()
            self.driver.switch_to.window(original)

    def screenshot(self, path: Path) -> None:
        """A PNG of the tab as it is now (the page under test, not a fresh load)."""
        import base64
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def pixel(self, x: float, y: float) -> tuple:
        """The colour (r, g, b) on screen at the page's CSS pixel (x, y) of the viewport: a 1x1
        screenshot of that spot (what was composited there, every layer included), read back."""
        import base64
        from support import png
        scroll = self.driver.execute_script("return [window.scrollX, window.scrollY]")
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": {
            "x": int(x) + scroll[0], "y": int(y) + scroll[1], "width": 1, "height": 1, "scale": 1}})
        return png.decode(base64.b64decode(shot["data"])).pixel(0, 0)[:3]

    def quit(self) -> None:
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 - a browser that already went away
            pass


def origin_of(url: str) -> str:
    """scheme://host:port of url."""
    scheme, _, rest = url.partition("://")
    return scheme + "://" + rest.split("/", 1)[0]


def foreign(urls: List[str], origin: str) -> List[str]:
    """The URLs that are not the page's own origin (data:, blob: and about: are the page's own)."""
    return [url for url in urls if not (url == origin or url.startswith(origin + "/"))
            and not url.startswith(("data:", "blob:", "about:"))]


def measure_load(url: str, rounds: int = 3, timeout: float = 30.0) -> Dict[str, Any]:
    """Loads url `rounds` times in a fresh tab state (about:blank in between) and reports, per round,
    the page's own loadMs, the time from navigation to ready, the heap, and the points drawn."""
    browser = Browser()
    try:
        results = []
        for _ in range(rounds):
            browser.driver.get("about:blank")
            seconds = browser.open(url, timeout)
            page = browser.page()["fields"]
            heap = browser.heap()  # as loaded: garbage included, the larger figure
            results.append({"ready_ms": seconds * 1000, "load_ms": page.get("loadMs"),
                            "track_points": page.get("trackPoints"), "heap": heap})
        return {"rounds": results, "console_errors": browser.console_errors(),
                "foreign_requests": foreign(browser.requests(), origin_of(url))}
    finally:
        browser.quit()
