"""PNG written and read by hand (zlib + struct, no imaging library): the tiles of the MBTiles files
the tests and the benchmark make (scripts/support/mbtiles.py), and the few pixels of a browser's
screenshot that a test reads back (scripts/serve's chart test).

encode() writes 8-bit RGB or RGBA, one IDAT, unfiltered rows; solid() a one-colour picture at
almost no cost; chunk() one chunk (mbtiles.py adds a private ancillary chunk of padding, which
gives a tile a realistic size without the cost of compressing noise); decode() reads 8-bit
greyscale, RGB and RGBA, non-interlaced, all five row filters: what Chromium's
Page.captureScreenshot produces. Canvas draws rectangles, and digits and '/' in a 3x5 pixel font.
"""

from __future__ import annotations

import struct
import zlib
from typing import List, Sequence, Tuple

SIGNATURE = b"\x89PNG\r\n\x1a\n"

# A 3x5 pixel font for tile labels such as "14/8030/5513": each glyph five rows of three bits.
_GLYPHS = {
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "001", "001", "001"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    "/": ("001", "001", "010", "100", "100"),
}


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC-32 over type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


class Canvas:
    """A width x height picture of 3 (RGB) or 4 (RGBA) bytes a pixel, filled with `fill`."""

    def __init__(self, width: int, height: int, fill: Sequence[int]):
        self.width, self.height, self.channels = width, height, len(fill)
        if self.channels not in (3, 4):
            raise ValueError("a fill of 3 (RGB) or 4 (RGBA) values")
        self.rows = [bytearray(bytes(fill) * width) for _ in range(height)]

    def rectangle(self, left: int, top: int, width: int, height: int, colour: Sequence[int]) -> None:
        """Fills the rectangle (clipped to the canvas) with colour (as many values as channels)."""
        left, top = max(0, left), max(0, top)
        right, bottom = min(self.width, left + width), min(self.height, top + height)
        if right <= left or bottom <= top:
            return
        run = bytes(colour) * (right - left)
        for y in range(top, bottom):
            self.rows[y][left * self.channels:right * self.channels] = run

    def text(self, left: int, top: int, words: str, colour: Sequence[int], scale: int = 2) -> None:
        """Draws words (digits and '/') with its top-left corner at (left, top)."""
        for index, character in enumerate(words):
            glyph = _GLYPHS.get(character)
            if glyph is None:
                continue
            origin = left + index * 4 * scale
            for row, bits in enumerate(glyph):
                for column, bit in enumerate(bits):
                    if bit == "1":
                        self.rectangle(origin + column * scale, top + row * scale, scale, scale, colour)

    def png(self, level: int = 6) -> bytes:
        return encode(self.width, self.height, self.channels, self.rows, level)


def encode(width: int, height: int, channels: int, rows: Sequence[bytes], level: int = 6) -> bytes:
    """A PNG of 8-bit RGB (channels 3) or RGBA (4) rows, each row unfiltered (filter byte 0)."""
    colour_type = {3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    parts = [SIGNATURE, chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)),
             chunk(b"IDAT", zlib.compress(raw, level)), chunk(b"IEND", b"")]
    return b"".join(parts)


def solid(width: int, height: int, rgb: Sequence[int]) -> bytes:
    """A PNG of one colour, as cheap as a PNG gets: 1-bit indexed colour, so the compressed pixels
    are the same for every colour (made once per size) and only the one-entry palette differs."""
    key = (width, height)
    if key not in _SOLID_IDAT:
        rows = b"".join(b"\x00" + bytes((width + 7) // 8) for _ in range(height))
        _SOLID_IDAT[key] = chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    return (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 3, 0, 0, 0))
            + chunk(b"PLTE", bytes(rgb[:3])) + _SOLID_IDAT[key])


_SOLID_IDAT: dict = {}


class Picture:
    """A decoded PNG: width, height, channels (1 grey, 3 RGB, 4 RGBA) and the unfiltered rows."""

    def __init__(self, width: int, height: int, channels: int, rows: List[bytes]):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def pixel(self, x: int, y: int) -> Tuple[int, ...]:
        """(r, g, b) or (r, g, b, a) at (x, y); grey as (v, v, v)."""
        start = x * self.channels
        values = tuple(self.rows[y][start:start + self.channels])
        return values * 3 if self.channels == 1 else values


def decode(data: bytes) -> Picture:
    """Reads an 8-bit, non-interlaced greyscale, RGB or RGBA PNG (ValueError otherwise)."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    position, header, idat = len(SIGNATURE), None, []
    while position + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("a PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {0: 1, 2: 3, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError("PNG of depth %d, colour type %d, interlace %d: not read here" % (depth, colour_type, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows: List[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        _unfilter(kind, row, previous, channels)
        rows.append(bytes(row))
        previous = row
    return Picture(width, height, channels, rows)


def _unfilter(kind: int, row: bytearray, previous: bytearray, step: int) -> None:
    if kind == 0:
        return
    for i in range(len(row)):
        left = row[i - step] if i >= step else 0
        up = previous[i]
        if kind == 1:
            predicted = left
        elif kind == 2:
            predicted = up
        elif kind == 3:
            predicted = (left + up) // 2
        elif kind == 4:
            corner = previous[i - step] if i >= step else 0
            estimate = left + up - corner
            distances = (abs(estimate - left), abs(estimate - up), abs(estimate - corner))
            predicted = left if distances[0] <= distances[1] and distances[0] <= distances[2] else \
                up if distances[1] <= distances[2] else corner
        else:
            raise ValueError("PNG row filter %d" % kind)
        row[i] = (row[i] + predicted) & 0xFF
