"""Traccar's OsmAnd decoder (port 5055) as a pure function, and what Traccar does with a position
after its 200: the rules of ../shared/docs/traccar-facts.md, read from Traccar's
OsmAndProtocolDecoder, FilterHandler and DistanceHandler. No sockets here: traccar_standin serves
these rules over HTTP, and scripts/traccar/selftest.py checks them against the decoder's own test
vectors.

decode(request, devices, now_ms, last_known) -> Decoded, one of:
  POSITION   reply 200; Decoded.position is what Traccar stores (unless filter.future drops it)
  BAD_REQUEST  reply 400: the id is unknown, or there is none
  CLOSE      close the connection with no reply: a disabled device, a number that does not parse,
             latitude or longitude out of range, a date that does not parse (Traccar's decoder
             throws, and Netty closes the channel)
  JSON       Content-Type application/json: Traccar's JSON decoder, which this stand-in does not
             follow (a query-form body it cannot parse as JSON: Traccar closes with no reply)
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple
from urllib.parse import unquote_plus

POSITION, BAD_REQUEST, CLOSE, JSON = "position", "bad-request", "close", "json"

KNOWN, UNKNOWN, DISABLED = "known", "unknown", "disabled"

JAVA_INTEGER_MAX = 2 ** 31 - 1  # `timestamp < Integer.MAX_VALUE` is seconds, else milliseconds
FUTURE_LIMIT_S = 86_400  # filter.future's default
EQUATORIAL_EARTH_RADIUS_M = 6_378_137.0  # DistanceCalculator's radius

# Traccar's `osmand.speed` settings, as the factor from that unit to knots (its default: knots).
SPEED_TO_KNOTS = {"kn": 1.0, "kmh": 1 / 1.852, "mps": 1.943844, "mph": 0.868976}

# Java's Double.parseDouble: an optional sign, then NaN, Infinity, or a decimal number with an
# optional exponent and an optional f/F/d/D suffix; surrounding whitespace is trimmed. (Hex floats
# also parse in Java; no tracker sends them, so they count as bad numbers here.)
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)")
_JAVA_LONG = re.compile(r"[+-]?\d+")


class DecodeError(ValueError):
    """What makes Traccar's decoder throw: the connection is closed with no reply."""


def java_double(text: str) -> float:
    trimmed = text.strip()
    if not _JAVA_DOUBLE.fullmatch(trimmed):
        raise DecodeError("not a number: %r" % text)
    return float(trimmed.rstrip("fFdD").replace("Infinity", "inf"))


def java_int(text: str) -> int:
    if not _JAVA_LONG.fullmatch(text):
        raise DecodeError("not an integer: %r" % text)
    return int(text)


def parse_timestamp(text: str) -> int:
    """Milliseconds since 1970: a whole number below 2^31 - 1 is seconds, else milliseconds; a text
    with a T is ISO 8601 (without a zone: UTC here); else `yyyy-MM-dd HH:mm:ss` in the server's
    time zone, which is UTC for this stand-in."""
    if _JAVA_LONG.fullmatch(text) and abs(int(text)) < 2 ** 63:
        value = int(text)
        return value * 1000 if value < JAVA_INTEGER_MAX else value
    try:
        if "T" in text:
            moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        else:
            moment = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError as error:
        raise DecodeError("not a date: %r (%s)" % (text, error)) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(round(moment.timestamp() * 1000))


def query_parameters(text: str) -> Dict[str, List[str]]:
    """Netty's QueryStringDecoder.parameters(): keys in the order they first appear, each with all
    its values; `+` is a space; a key without `=` has an empty value; empty keys are skipped."""
    parameters: Dict[str, List[str]] = {}
    for piece in text.split("&"):
        if not piece:
            continue
        key, _, value = piece.partition("=")
        key = _unquote(key)
        if not key:
            continue
        parameters.setdefault(key, []).append(_unquote(value))
    return parameters


def _unquote(text: str) -> str:
    """unquote_plus, skipped for the plain text most parameters are (the stand-in's ceiling in the bench)."""
    return unquote_plus(text) if "%" in text or "+" in text else text


@dataclass
class Request:
    """One HTTP request as the decoder sees it."""
    method: str
    target: str  # the request URI: path and query
    body: bytes = b""
    content_type: Optional[str] = None

    def parameters(self) -> Dict[str, List[str]]:
        """The query's parameters; if the URI has none, the body parsed as a form, whatever its type."""
        _, _, query = self.target.partition("?")
        found = query_parameters(query)
        if not found:
            found = query_parameters(self.body.decode("ascii", "replace"))
        return found


@dataclass
class Position:
    device: str
    time_ms: int  # fix time (= device time)
    latitude: float
    longitude: float
    valid: bool = True
    outdated: bool = False  # no coordinates: the last known ones (Traccar's getLastLocation)
    speed: float = 0.0  # knots, as Traccar stores it
    course: float = 0.0
    altitude: float = 0.0
    accuracy: float = 0.0
    attributes: Dict[str, object] = field(default_factory=dict)
    cells: List[Tuple[int, ...]] = field(default_factory=list)
    wifis: List[Tuple[str, int]] = field(default_factory=list)
    server_time_ms: int = 0
    time_from_server: bool = False  # no timestamp: the server's clock
    nan: bool = False  # a NaN passed the decoder's range checks (latitude or longitude)

    def as_dict(self) -> Dict[str, object]:
        found = dict(self.__dict__)
        found["attributes"] = dict(self.attributes)
        for key in ("latitude", "longitude", "speed", "course", "altitude", "accuracy"):
            if isinstance(found[key], float) and not math.isfinite(found[key]):
                found[key] = repr(found[key])  # JSON has no NaN: "nan", "inf"
        found["attributes"] = {key: (repr(value) if isinstance(value, float) and not math.isfinite(value) else value)
                               for key, value in self.attributes.items()}
        return found


@dataclass
class Decoded:
    outcome: str
    position: Optional[Position] = None
    reason: str = ""
    device: Optional[str] = None


def decode(request: Request, devices, now_ms: int, last_known=lambda device: None,
           speed_unit: str = "kn") -> Decoded:
    """Decodes one request as Traccar's OsmAnd decoder does. devices(id) says KNOWN, UNKNOWN or
    DISABLED; last_known(id) gives the (latitude, longitude) of the device's last stored position,
    or None."""
    content_type = (request.content_type or "").strip().lower()
    if content_type.startswith("application/json"):
        return Decoded(JSON, reason="Content-Type application/json selects Traccar's JSON decoder")
    device: Optional[str] = None
    position = Position(device="", time_ms=0, latitude=0.0, longitude=0.0, server_time_ms=now_ms)
    has_time = has_latitude = has_longitude = False
    try:
        # In the order the keys first appear, as Netty's map iterates: an unknown id answers 400 as
        # soon as it is met, and a bad number met before it closes the connection first.
        for key, values in request.parameters().items():
            for value in values:
                if key in ("id", "deviceid"):
                    state = devices(value)
                    if state == UNKNOWN:
                        return Decoded(BAD_REQUEST, reason="unknown device %r" % value, device=value)
                    if state == DISABLED:
                        return Decoded(CLOSE, reason="disabled device %r" % value, device=value)
                    device = value
                elif key == "valid":
                    position.valid = value.lower() == "true" or value == "1"
                elif key == "timestamp":
                    position.time_ms = parse_timestamp(value)
                    has_time = True
                elif key == "lat":
                    position.latitude = java_double(value)
                    has_latitude = True
                elif key == "lon":
                    position.longitude = java_double(value)
                    has_longitude = True
                elif key == "location":
                    parts = value.split(",")
                    if len(parts) < 2:
                        raise DecodeError("location without a longitude: %r" % value)
                    position.latitude, position.longitude = java_double(parts[0]), java_double(parts[1])
                    has_latitude = has_longitude = True
                elif key == "cell":
                    parts = value.split(",")
                    if len(parts) < 4:
                        raise DecodeError("cell with fewer than 4 numbers: %r" % value)
                    position.cells.append(tuple(java_int(part) for part in parts[:5]))
                elif key == "wifi":
                    parts = value.split(",")
                    if len(parts) < 2:
                        raise DecodeError("wifi without a signal level: %r" % value)
                    position.wifis.append((parts[0].replace("-", ":"), java_int(parts[1])))
                elif key == "speed":
                    position.speed = java_double(value) * SPEED_TO_KNOTS[speed_unit]
                elif key in ("bearing", "heading"):
                    position.course = java_double(value)
                elif key == "altitude":
                    position.altitude = java_double(value)
                elif key == "accuracy":
                    position.accuracy = java_double(value)
                elif key == "hdop":
                    position.attributes["hdop"] = java_double(value)
                elif key == "batt":
                    position.attributes["batteryLevel"] = java_double(value)
                elif key == "charge":
                    position.attributes["charge"] = value.lower() == "true"
                elif key == "driverUniqueId":
                    position.attributes["driverUniqueId"] = value
                else:
                    position.attributes[key] = attribute(value)
        # Position.setLatitude/setLongitude refuse values out of range; NaN compares false and passes.
        if abs(position.latitude) > 90:
            raise DecodeError("latitude out of range: %r" % position.latitude)
        if abs(position.longitude) > 180:
            raise DecodeError("longitude out of range: %r" % position.longitude)
    except DecodeError as error:
        return Decoded(CLOSE, reason=str(error), device=device)
    if device is None:
        return Decoded(BAD_REQUEST, reason="no id or deviceid")
    position.device = device
    if not has_time:
        position.time_ms, position.time_from_server = now_ms, True
    if not (has_latitude and has_longitude):
        known = last_known(device)
        position.latitude, position.longitude = known if known is not None else (0.0, 0.0)
        position.outdated = True
    position.nan = math.isnan(position.latitude) or math.isnan(position.longitude)
    return Decoded(POSITION, position=position, device=device)


def attribute(value: str):
    """Any other key: a number is a double, true/false a boolean, anything else the text."""
    try:
        return java_double(value)
    except DecodeError:
        return True if value == "true" else False if value == "false" else value


def beyond_future(position: Position, now_ms: int, limit_s: int = FUTURE_LIMIT_S) -> bool:
    """FilterHandler's filter.future: a fix dated more than limit_s ahead is dropped after the 200."""
    return limit_s > 0 and position.time_ms > now_ms + limit_s * 1000


def traccar_distance(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """DistanceCalculator.distance: haversine on the equatorial radius, in metres."""
    radians = math.pi / 180
    a = (math.sin((lat2 - lat1) * radians / 2) ** 2
         + math.cos(lat1 * radians) * math.cos(lat2 * radians) * math.sin((lon2 - lon1) * radians / 2) ** 2)
    return EQUATORIAL_EARTH_RADIUS_M * 2 * math.atan2(math.sqrt(a), math.sqrt(1 - a))


class NaiveDistance:
    """DistanceHandler: each stored position gets `distance` to the device's previous one in
    arrival order, with no accuracy check, and `totalDistance` the running sum (what makes a parked
    car gain kilometres). coordinates.filter (off by default) keeps the previous coordinates when
    the move is at most min_error metres, or at least max_error for an invalid fix."""

    def __init__(self, coordinates_filter: bool = False, min_error: int = 0, max_error: int = 0):
        self.coordinates_filter, self.min_error, self.max_error = coordinates_filter, min_error, max_error
        self.last: Dict[str, Position] = {}

    def add(self, position: Position) -> None:
        last = self.last.get(position.device)
        distance, total = 0.0, 0.0
        if last is not None:
            total = float(last.attributes.get("totalDistance", 0.0))
            distance = traccar_distance(position.latitude, position.longitude, last.latitude, last.longitude)
            if self.coordinates_filter and last.latitude != 0 and last.longitude != 0:
                satisfies_min = self.min_error == 0 or distance > self.min_error
                satisfies_max = self.max_error == 0 or distance < self.max_error or position.valid
                if not (satisfies_min and satisfies_max):
                    position.valid, position.latitude, position.longitude = last.valid, last.latitude, last.longitude
                    distance = 0.0
        position.attributes["distance"] = distance
        position.attributes["totalDistance"] = total + distance
        self.last[position.device] = position

    def last_known(self, device: str) -> Optional[Tuple[float, float]]:
        last = self.last.get(device)
        return None if last is None else (last.latitude, last.longitude)
