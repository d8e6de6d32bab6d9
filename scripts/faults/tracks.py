"""What a track file written by `loctrack stream --output` must hold, per format, checked from its
bytes: the file parses (GPX with Python's XML parser, ElementTree, and GPX 1.1's structure; CSV with
the csv module; each JSON line with json.loads; each text line against its shape), and each record
is a fix of the flood emulator's, with a time that parses.

A file that fault 11 records into again and again holds one *run* per recording that wrote
anything: the epochs 0, 1, … m-1 of that recording's emulator (each starts again at epoch 0,
2025-01-01 00:00Z, 100 ms apart), and for GPX one segment per run. TrackChecker gives the runs'
lengths, after checking that the runs checked before are all still there, byte for byte: records
neither lost, nor changed, nor repeated."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from typing import Callable, Dict, List, Tuple

from .reports import BASE_TIME

STEP_MS = 100  # the flood emulator's epochs, in fix time
FIRST_LAT, LAT_STEP = 38.110494, 1.2e-6  # its latitude walk: epoch k at FIRST_LAT + k * LAT_STEP

GPX = "{http://www.topografix.com/GPX/1/1}"
GPX_TAIL = b"    </trkseg>\n  </trk>\n</gpx>\n"  # what ends every GPX file loctrack writes
CSV_HEADER = ["time", "device", "mode", "status", "lat", "lon", "altHAE", "altMSL", "eph", "epx", "epy", "epv",
              "speed", "track", "climb", "stationary"]
TEXT_LINE = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)  [23]D(?: [A-Z]+)?  (-?\d+\.\d{7}), "
                       r"(-?\d+\.\d{7})  ±\d+\.\d m  .*/dev/\S+")
# GPX 1.1's xsd:sequence for <gpx>, <trk> and a point (wptType): children must come in this order.
GPX_ORDER = ["metadata", "wpt", "rte", "trk", "extensions"]
TRK_ORDER = ["name", "cmt", "desc", "src", "link", "number", "type", "extensions", "trkseg"]
WPT_ORDER = ["ele", "time", "magvar", "geoidheight", "name", "cmt", "desc", "src", "link", "sym", "type", "fix",
             "sat", "hdop", "vdop", "pdop", "ageofdgpsdata", "dgpsid", "extensions"]
GPX_FIXES = {"none", "2d", "3d", "dgps", "pps"}


class TrackError(Exception):
    """The file is not what loctrack promises (the message says where and why)."""


def epoch_of_time(text: str) -> int:
    """The emulator's epoch whose fix time `text` (ISO 8601, UTC) is."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise TrackError("a time that does not parse: %r" % (text,)) from None
    millis = round((moment.timestamp() - BASE_TIME) * 1000)
    if millis % STEP_MS:
        raise TrackError("a time that is no epoch of the emulator: %s" % text)
    return millis // STEP_MS


def epoch_of_latitude(lat: float) -> int:
    return round((lat - FIRST_LAT) / LAT_STEP)


def same_epoch(time_text: str, latitude: str, where: str) -> int:
    """The epoch of a record whose time and latitude must be those of one epoch."""
    epoch = epoch_of_time(time_text)
    try:
        if epoch_of_latitude(float(latitude)) == epoch:
            return epoch
    except ValueError:
        pass
    raise TrackError("%s: time %s and latitude %s are not one epoch's" % (where, time_text, latitude))


def in_order(tags: List[str], order: List[str]) -> bool:
    positions = [order.index(tag) if tag in order else -1 for tag in tags]
    return -1 not in positions and positions == sorted(positions)


def local(tag: str) -> str:
    return tag[len(GPX):] if tag.startswith(GPX) else tag


def gpx_segments(data: bytes) -> List[ET.Element]:
    """The <trkseg> elements of a whole GPX file, after checking it against GPX 1.1's structure."""
    parser, view = ET.XMLParser(), memoryview(data)
    try:
        for start in range(0, len(data), 1 << 16):  # fed in pieces: other threads get the GIL between them
            parser.feed(view[start:start + (1 << 16)])
        root = parser.close()
    except ET.ParseError as error:
        raise TrackError("XML: %s" % error) from None
    if root.tag != GPX + "gpx" or root.get("version") != "1.1":
        raise TrackError("root %s version %s, not GPX 1.1's <gpx version=\"1.1\">" % (root.tag, root.get("version")))
    if not in_order([local(child.tag) for child in root], GPX_ORDER):
        raise TrackError("<gpx> children not in GPX 1.1's order: %s" % [local(child.tag) for child in root])
    tracks = root.findall(GPX + "trk")
    if len(tracks) != 1:
        raise TrackError("%d <trk> elements, not 1" % len(tracks))
    if not in_order([local(child.tag) for child in tracks[0]], TRK_ORDER):
        raise TrackError("<trk> children not in GPX 1.1's order: %s" % [local(child.tag) for child in tracks[0]])
    segments = tracks[0].findall(GPX + "trkseg")
    for number, segment in enumerate(segments):
        if not len(segment):
            raise TrackError("segment %d is empty" % number)
    return segments


def gpx_epochs(segment: ET.Element, valid_shapes: set) -> List[int]:
    """The epochs of a <trkseg>'s points, each checked: GPX 1.1's children in order, lat/lon in
    range, a <time> that parses, a <fix>."""
    epochs = []
    for point in segment:
        shape = tuple(local(child.tag) for child in point)
        if shape not in valid_shapes:
            if local(point.tag) != "trkpt" or not in_order(list(shape), WPT_ORDER):
                raise TrackError("<%s> with children %s in a segment" % (local(point.tag), shape))
            valid_shapes.add(shape)
        try:
            lat, lon = float(point.get("lat")), float(point.get("lon"))
        except (TypeError, ValueError):
            raise TrackError("a <trkpt> without a numeric lat/lon: %s" % point.attrib) from None
        if not (-90 <= lat <= 90 and -180 <= lon < 180):
            raise TrackError("a <trkpt> out of range: %s" % point.attrib)
        if point.findtext(GPX + "fix") not in GPX_FIXES:
            raise TrackError("a <trkpt> without a GPX <fix>: %s" % point.attrib)
        epochs.append(same_epoch(point.findtext(GPX + "time"), point.get("lat"), "a <trkpt>"))
    return epochs


def lines_of(data: bytes, end: bytes = b"\n") -> List[str]:
    """The lines of a line format, each ended by `end` (a last line without it was cut short)."""
    if data and not data.endswith(end):
        raise TrackError("the last line has no %r: %r" % (end, data[-80:]))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TrackError("not UTF-8: %s" % error) from None
    if end != b"\n" and text.count("\n") != text.count(end.decode()):
        raise TrackError("a line not ended by %r" % end)
    return text.split(end.decode())[:-1] if text else []


def csv_epochs(data: bytes, first: bool) -> List[int]:
    lines_of(data, b"\r\n")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    if first and rows and rows[0] != CSV_HEADER:
        raise TrackError("the first row is not loctrack's header: %s" % rows[0])
    epochs = []
    for number, row in enumerate(rows[1:] if first else rows, 1):
        if len(row) != len(CSV_HEADER) or row[-1] not in ("true", "false"):
            raise TrackError("row %d has %d fields (or a cut last one): %s" % (number, len(row), row))
        epochs.append(same_epoch(row[0], row[4], "row %d" % number))
    return epochs


def json_epochs(data: bytes, shape: Callable[[dict], int]) -> List[int]:
    epochs = []
    for number, line in enumerate(lines_of(data), 1):
        try:
            value = json.loads(line)
            epochs.append(shape(value))
        except (ValueError, KeyError, TypeError, IndexError, TrackError) as error:
            raise TrackError("line %d is not a whole record of its format (%s): %r" % (number, error, line[:200]))
    return epochs


def tpv_record(value: dict) -> int:
    if value["class"] != "TPV" or value["mode"] not in (2, 3):
        raise ValueError("not a TPV fix")
    return epoch_of_time(value["time"])


def feature_record(value: dict) -> int:
    if value["type"] != "Feature" or value["geometry"]["type"] != "Point":
        raise ValueError("not a GeoJSON Point Feature")
    tpv_record(value["properties"])
    return same_epoch(value["properties"]["time"], value["geometry"]["coordinates"][1], "its Point")


def owntracks_record(value: dict) -> int:
    if value["_type"] != "location":
        raise ValueError("not an OwnTracks location")
    epoch = epoch_of_latitude(value["lat"])  # tst has whole seconds only
    if value["tst"] != BASE_TIME + epoch * STEP_MS // 1000:
        raise ValueError("tst %s is not the time of epoch %d" % (value["tst"], epoch))
    return epoch


def text_epochs(data: bytes, first: bool) -> List[int]:
    epochs = []
    for number, line in enumerate(lines_of(data), 1):
        match = TEXT_LINE.fullmatch(line)
        if not match:
            raise TrackError("line %d is not a text fix line: %r" % (number, line[:200]))
        epochs.append(same_epoch(match.group(1), match.group(2), "line %d" % number))
    return epochs


EPOCHS: Dict[str, Callable[[bytes, bool], List[int]]] = {
    "csv": csv_epochs, "text": text_epochs,
    "json": lambda data, first: json_epochs(data, tpv_record),
    "geojson": lambda data, first: json_epochs(data, feature_record),
    "owntracks": lambda data, first: json_epochs(data, owntracks_record),
}


def split_runs(epochs: List[int]) -> List[int]:
    """The lengths of the runs 0, 1, … m-1 that `epochs` is made of; a TrackError if it is not."""
    lengths: List[int] = []
    for position, epoch in enumerate(epochs):
        if epoch == 0:
            lengths.append(1)
        elif lengths and epoch == epochs[position - 1] + 1:
            lengths[-1] += 1
        else:
            previous = epochs[position - 1] if position else None
            raise TrackError("record %d is epoch %d after epoch %s: lost or repeated records"
                             % (position + 1, epoch, previous))
    return lengths


class TrackChecker:
    """Checks one track file after each recording into it: the bytes checked before are still
    there, unchanged (GPX: up to its closing tags, which the next points replace); what was added
    since is checked record by record; a GPX file is parsed whole every time. check() returns
    the runs' lengths; a TrackError says what is wrong. A new TrackChecker checks a file whole."""

    def __init__(self, format_name: str):
        self.format = format_name
        self.checked = b""
        self.runs: List[int] = []
        self.shapes: set = set()

    def check(self, data: bytes) -> List[int]:
        kept = self.checked[:-len(GPX_TAIL)] if self.format == "gpx" else self.checked
        if not data.startswith(kept):
            same = next((n for n, (a, b) in enumerate(zip(kept, data)) if a != b), min(len(kept), len(data)))
            raise TrackError("bytes checked before changed or went (from offset %d of %d)" % (same, len(kept)))
        if self.format != "gpx":
            added = split_runs(EPOCHS[self.format](data[len(kept):], not kept))
        elif not data.endswith(GPX_TAIL):
            raise TrackError("the file does not end with loctrack's closing tags: %r" % data[-80:])
        else:
            segments = gpx_segments(data)
            if [len(segment) for segment in segments[:len(self.runs)]] != self.runs:
                raise TrackError("segments changed: %s before, %s now" % (self.runs[-5:], [
                    len(segment) for segment in segments[:len(self.runs)]][-5:]))
            added = []
            for segment in segments[len(self.runs):]:
                lengths = split_runs(gpx_epochs(segment, self.shapes))
                if len(lengths) != 1:
                    raise TrackError("a segment that is not one recording: runs %s" % lengths)
                added += lengths
        self.checked, self.runs = data, self.runs + added
        return self.runs


def repaired(data: bytes, format_name: str) -> Tuple[bytes, int]:
    """A file whose writer was killed mid-write as loctrack continues it: its whole records (GPX:
    with the closing tags), and how many bytes of a torn end loctrack must cut."""
    if format_name != "gpx":
        end = data.rfind(b"\n") + 1
        return data[:end], len(data) - end
    point = data.rfind(b"</trkpt>")
    if point < 0:
        if data:
            raise TrackError("no whole <trkpt> in it: loctrack would refuse to continue it")
        return b"", 0
    end = point + len(b"</trkpt>")
    end += data[end:end + 1] == b"\n"
    rest = data[end:]
    clean = rest == GPX_TAIL or re.sub(rb"\s", b"", rest) == re.sub(rb"\s", b"", GPX_TAIL)
    return data[:end] + GPX_TAIL, 0 if clean else len(rest)
