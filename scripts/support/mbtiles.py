"""MBTiles files made by the tests and the benchmark (Python's sqlite3, tiles from support/png.py),
and the bad files `loctrack serve --tiles-file` must refuse.

Every raster tile says where it belongs: a base tile (RGB) is filled with a colour that encodes
its own z/x/y (colour_of; decode_colour reads it back), with a grid line on its top and left
edges and its address written in its top-left corner; an overlay tile (RGBA) is transparent but
for a square in its middle (OVERLAY_SQUARE) in a darker colour that encodes the same. The rows are
stored as MBTiles stores them, in TMS order (tile_row = 2^z - 1 - y): a server that forgets to
flip the row serves another tile, of another colour, with another label.

  tiles_in(zooms, bounds)     the XYZ addresses of the tiles that intersect bounds, zoom by zoom
  base_tile / overlay_tile    one tile's PNG
  write_mbtiles(path, ...)    the file: the usual `tiles` table, or mbutil's layout (`map` +
                              `images`, images deduplicated, `tiles` a view over both); WAL mode,
                              with rows left in the -wal file on request
  make_chart(path, ...)       a Chart (the file, its metadata, the bytes each address must give)
  make_big_chart(path, MB)    several hundred MB quickly: incompressible padding, many rows; the
                              expected bytes recomputed on demand rather than kept
  JPEG_TILE, WEBP_TILE        fixed 256x256 tiles of those formats (made once with Chromium's canvas)
  padded_tile(address, size)  a tile of exactly `size` bytes, cheap: a one-colour PNG and a private
                              ancillary chunk of random bytes (the same for the same address), for
                              a realistic size at no cost: the big chart's and the bench's
  the bad files               not_sqlite, empty_file, no_tiles_table, wrong_columns, vector_tiles,
                              unknown_format, no_tiles, fifo; a folder and a missing path need no
                              helper
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import math
import os
import random
import shutil
import sqlite3
import zlib
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from .png import Canvas, chunk, solid

Address = Tuple[int, int, int]  # XYZ: z, x, y (y counted from the north, as a slippy map asks)
Bounds = Tuple[float, float, float, float]  # west, south, east, north (WGS 84 degrees)

WORLD: Bounds = (-180.0, -85.051129, 180.0, 85.051129)
TILE_SIZE = 256
OVERLAY_SQUARE = (88, 168)  # the overlay tile's opaque square: x and y from 88 up to (not incl.) 168
LABEL_COLOUR = (48, 48, 48)
PADDING_CHUNK = b"paDd"  # ancillary (p), private (a), reserved bit clear (D), safe to copy (d)

# 256x256 tiles of a flat colour, encoded by Chromium's canvas (toDataURL, quality 0.3), the ICC
# profile left out: a JPEG (JFIF) and a lossy WebP (a simple VP8 file).
JPEG_TILE = zlib.decompress(base64.b64decode(
    "eNr7f+P/AwYBLzdPNwZGRgYGRiBk+H+bwZlBWkhEXERQWlxMXE5GWkHDSVtDVVUj0MrWwCkhNDUlPjQ2OqtiZmNW4YTi6NjWrW0T"
    "5i1evXZ1esOek7uWHZ+5YvUSkCGMMnJyGsoaftrafkvyYvOWkAz+H2AQ5AC5iZlRiYFJkJFZkPH/EQZRsFNRADNQWEQAXZQBpJgR"
    "QzELSLEgpuJbDDzMjEBrmAUZ7BlmcAsxjIIBBMz/bwIAzW1TSQ=="))
WEBP_TILE = base64.b64decode(
    "UklGRroAAABXRUJQVlA4IK4AAADwEACdASoAAQABPxGIwVosKSckICgBgCIJaW7hdrEbQAnsA99snIe+2TkPfbJyHvtk5D32ych7"
    "7ZOQ99snIe+2TkPfbJyHvtk5D32ych77ZOQ99snIe+2TkPfbJyHvtk5D32ych77ZOQ99snIe+2TkPfbJyHvtk5D32ych77ZOQ99s"
    "nIe+2TkPfbJyHvtk4UAA/v0Kf/rXn7kYAf+DZIpyQF0JwcMCAAAAAAAAAAA=")


# -- where tiles are ---------------------------------------------------------------------------------

def tile_of(lat: float, lon: float, z: int) -> Tuple[int, int]:
    """The XYZ (x, y) of the tile at zoom z holding (lat, lon) (Web Mercator, clamped to the grid)."""
    n = 1 << z
    fx, fy = _fractions(lat, lon)
    return min(n - 1, max(0, int(fx * n))), min(n - 1, max(0, int(fy * n)))


def _fractions(lat: float, lon: float) -> Tuple[float, float]:
    """(lon, lat) as fractions of the Web Mercator square, 0 at the west and north edges."""
    lat = max(-85.0511287798, min(85.0511287798, lat))
    rad = math.radians(lat)
    return (lon + 180.0) / 360.0, (1.0 - math.log(math.tan(rad) + 1.0 / math.cos(rad)) / math.pi) / 2.0


def tiles_in(zooms: Iterable[int], bounds: Bounds = WORLD) -> List[Address]:
    """Every XYZ tile of the given zooms that shares more than an edge with bounds."""
    west, south, east, north = bounds
    found = []
    for z in zooms:
        n = 1 << z
        fx0, fy0 = _fractions(north, west)
        fx1, fy1 = _fractions(south, east)
        x0, y0 = int(fx0 * n), int(fy0 * n)
        x1, y1 = math.ceil(fx1 * n) - 1, math.ceil(fy1 * n) - 1  # an edge on a tile boundary: not that tile
        for x in range(max(0, x0), min(n - 1, x1) + 1):
            for y in range(max(0, y0), min(n - 1, y1) + 1):
                found.append((z, x, y))
    return found


def tms_row(z: int, y: int) -> int:
    """MBTiles' tile_row for an XYZ y."""
    return (1 << z) - 1 - y


# -- what a tile looks like ----------------------------------------------------------------------------

def colour_of(z: int, x: int, y: int) -> Tuple[int, int, int]:
    """A base tile's colour: 21 bits (z: 5, x: low 8, y: low 8) as 7 bits on top of 128 in each
    channel, so light enough to read a label on. Unique within a file whose tiles of one zoom
    span fewer than 256 columns and rows; the flipped row (2^z - 1 - y) always differs."""
    value = (z & 0x1F) << 16 | (x & 0xFF) << 8 | (y & 0xFF)
    return 128 + (value >> 14 & 0x7F), 128 + (value >> 7 & 0x7F), 128 + (value & 0x7F)


def overlay_colour_of(z: int, x: int, y: int) -> Tuple[int, int, int]:
    """An overlay tile's square: the base colour less 128 on each channel (dark, told apart)."""
    return tuple(value - 128 for value in colour_of(z, x, y))  # type: ignore[return-value]


def decode_colour(rgb: Sequence[int]) -> Optional[Tuple[str, int, int, int]]:
    """("base" or "overlay", z, x & 0xFF, y & 0xFF) of a pixel's colour, None if it is neither."""
    r, g, b = rgb[:3]
    if min(r, g, b) >= 128:
        kind, r, g, b = "base", r - 128, g - 128, b - 128
    elif max(r, g, b) < 128:
        kind = "overlay"
    else:
        return None
    value = r << 14 | g << 7 | b
    return kind, value >> 16, value >> 8 & 0xFF, value & 0xFF


def padding(address: Address, size: int) -> bytes:
    """`size` random bytes, the same for the same address every time (seeded by it)."""
    z, x, y = address
    return random.Random(z << 60 | x << 30 | y).randbytes(size)


def base_tile(z: int, x: int, y: int) -> bytes:
    """The base tile of (z, x, y): its colour, a grid line on its top and left edges, its address
    written in its top-left corner."""
    colour = colour_of(z, x, y)
    canvas = Canvas(TILE_SIZE, TILE_SIZE, colour)
    canvas.rectangle(0, 0, TILE_SIZE, 1, LABEL_COLOUR)
    canvas.rectangle(0, 0, 1, TILE_SIZE, LABEL_COLOUR)
    canvas.text(6, 6, "%d/%d/%d" % (z, x, y), LABEL_COLOUR, scale=2)
    return canvas.png(level=1)


def overlay_tile(z: int, x: int, y: int) -> bytes:
    """The overlay tile of (z, x, y): transparent but for OVERLAY_SQUARE in overlay_colour_of."""
    canvas = Canvas(TILE_SIZE, TILE_SIZE, (0, 0, 0, 0))
    start, end = OVERLAY_SQUARE
    canvas.rectangle(start, start, end - start, end - start, overlay_colour_of(z, x, y) + (255,))
    return canvas.png(level=1)


def padded_tile(address: Address, size: int) -> bytes:
    """A tile of exactly `size` bytes (at least about 100): a square of the address's colour
    (png.solid) and, before IEND, padding (random bytes, the same for the same address)."""
    head = solid(TILE_SIZE, TILE_SIZE, colour_of(*address))
    return head[:-12] + chunk(PADDING_CHUNK, padding(address, max(0, size - len(head) - 12))) + head[-12:]


# -- the file ------------------------------------------------------------------------------------------

FLAT_SCHEMA = """
CREATE TABLE metadata (name TEXT, value TEXT);
CREATE UNIQUE INDEX metadata_name ON metadata (name);
CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
"""

# mbutil's layout (mapbox/mbutil, and what many tools copy): images stored once by id.
MBUTIL_SCHEMA = """
CREATE TABLE metadata (name TEXT, value TEXT);
CREATE UNIQUE INDEX name ON metadata (name);
CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
CREATE TABLE images (tile_data BLOB, tile_id TEXT);
CREATE UNIQUE INDEX images_id ON images (tile_id);
CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
    map.tile_row AS tile_row, images.tile_data AS tile_data
    FROM map JOIN images ON images.tile_id = map.tile_id;
"""


def write_mbtiles(path: Path, tiles: Iterable[Tuple[Address, bytes]], metadata: Mapping[str, str],
                  layout: str = "flat", wal: bool = False,
                  wal_rows: Iterable[Tuple[Address, bytes]] = ()) -> Path:
    """Writes an MBTiles file at path (replacing one there): `tiles` (XYZ address, bytes), stored
    with TMS rows; `metadata` as name/value rows; layout "flat" (a `tiles` table) or "mbutil".
    wal: the file is left in WAL mode; `wal_rows` are then written after a checkpoint and left in
    path-wal only, as a writer that is still running (or was killed) leaves them."""
    if layout not in ("flat", "mbutil"):
        raise ValueError("layout flat or mbutil")
    path = Path(path)
    work = path.with_name(path.name + ".writing")
    for leftover in (path, Path(str(path) + "-wal"), Path(str(path) + "-shm"), work, Path(str(work) + "-wal"),
                     Path(str(work) + "-shm")):
        if leftover.is_file():
            leftover.unlink()
    connection = sqlite3.connect(str(work), isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=%s" % ("WAL" if wal else "OFF"))
        connection.execute("PRAGMA synchronous=OFF")
        connection.executescript(FLAT_SCHEMA if layout == "flat" else MBUTIL_SCHEMA)
        connection.execute("BEGIN")
        connection.executemany("INSERT INTO metadata (name, value) VALUES (?, ?)", list(metadata.items()))
        _insert(connection, tiles, layout)
        connection.execute("COMMIT")
        if not wal:
            connection.close()
            work.rename(path)
            return path
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = list(wal_rows)
        if rows:
            connection.execute("PRAGMA wal_autocheckpoint=0")
            connection.execute("BEGIN")
            _insert(connection, rows, layout)
            connection.execute("COMMIT")
        # Copied while this connection is still open: closing it would checkpoint the WAL away.
        shutil.copyfile(work, path)
        if rows:
            shutil.copyfile(str(work) + "-wal", str(path) + "-wal")
        connection.close()
        work.unlink()
        return path
    except BaseException:
        connection.close()
        raise


def _insert(connection: sqlite3.Connection, tiles: Iterable[Tuple[Address, bytes]], layout: str) -> None:
    if layout == "flat":
        connection.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)",
                               ((z, x, tms_row(z, y), data) for (z, x, y), data in tiles))
        return
    for (z, x, y), data in tiles:
        tile_id = hashlib.md5(data).hexdigest()
        connection.execute("INSERT OR IGNORE INTO images (tile_data, tile_id) VALUES (?, ?)", (data, tile_id))
        connection.execute("INSERT INTO map VALUES (?, ?, ?, ?)", (z, x, tms_row(z, y), tile_id))


class Chart:
    """An MBTiles file the test made: its path, the metadata it holds, `tiles`, the bytes each XYZ
    address must be answered with (a Mapping; other addresses have no tile), and the rows it holds
    that must not be served: `in_wal` (only in its -wal file) and `strays` (outside its metadata's
    zooms or bounds)."""

    def __init__(self, path: Path, metadata: Dict[str, str], tiles: Mapping[Address, bytes], fmt: str = "png",
                 in_wal: Sequence[Address] = (), strays: Sequence[Address] = ()):
        self.path, self.metadata, self.tiles, self.format = Path(path), metadata, tiles, fmt
        self.in_wal, self.strays = list(in_wal), list(strays)

    @property
    def addresses(self) -> List[Address]:
        return sorted(self.tiles)

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    def zooms(self) -> Tuple[int, int]:
        levels = [z for z, _, _ in self.tiles]
        return min(levels), max(levels)


def metadata_for(name: Optional[str], zooms: Sequence[int], bounds: Bounds, fmt: str = "png",
                 kind: Optional[str] = None, attribution: Optional[str] = None,
                 center: Optional[Tuple[float, float, int]] = None, **others: str) -> Dict[str, str]:
    """MBTiles metadata as the tools write it (every value text); a None is left out."""
    values = {"name": name, "format": fmt, "minzoom": str(min(zooms)), "maxzoom": str(max(zooms)),
              "bounds": ",".join(_number(v) for v in bounds), "type": kind, "attribution": attribution,
              "center": None if center is None else ",".join(_number(v) for v in center)}
    values.update(others)
    return {key: value for key, value in values.items() if value is not None}


def _number(value: float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def make_chart(path: Path, zooms: Sequence[int], bounds: Bounds, metadata: Optional[Dict[str, str]] = None,
               overlay: bool = False, layout: str = "flat", wal: bool = False, wal_zoom: Optional[int] = None,
               shared: Sequence[Address] = (), strays: Sequence[Address] = ()) -> Chart:
    """A chart of base (or overlay) tiles at `zooms` over `bounds`, its metadata (default: none).
    shared: addresses whose tile is one and the same image (a sea of one colour, which mbutil's
    layout stores once) instead of their own. strays: tiles stored although outside the zooms or
    bounds the metadata states (a server must not serve them). wal_zoom: with wal, that zoom's
    tiles stay in the -wal file (not in `tiles`: an immutable open does not see them)."""
    make = overlay_tile if overlay else base_tile
    sea = make(0, 0, 0)
    addresses = tiles_in(zooms, bounds)
    tiles = {address: (sea if address in shared else make(*address)) for address in addresses}
    in_wal = {address: data for address, data in tiles.items() if wal and address[0] == wal_zoom}
    stored = [(address, data) for address, data in tiles.items() if address not in in_wal]
    stored += [(address, make(*address)) for address in strays]
    write_mbtiles(path, stored, metadata or {}, layout=layout, wal=wal, wal_rows=in_wal.items())
    return Chart(path, dict(metadata or {}), {a: d for a, d in tiles.items() if a not in in_wal},
                 in_wal=sorted(in_wal), strays=strays)


def make_fixed_chart(path: Path, data: bytes, fmt: str, zooms: Sequence[int], bounds: Bounds,
                     metadata: Optional[Dict[str, str]] = None) -> Chart:
    """A chart whose every tile is `data` (JPEG_TILE, WEBP_TILE): for the Content-Type."""
    tiles = {address: data for address in tiles_in(zooms, bounds)}
    write_mbtiles(path, tiles.items(), metadata or {})
    return Chart(path, dict(metadata or {}), tiles, fmt)


class _Recomputed(Mapping):
    """address -> bytes, each made again when asked (a big chart's bytes are not kept)."""

    def __init__(self, addresses: List[Address], make: Callable[[Address], bytes]):
        self._addresses, self._set, self._make = addresses, set(addresses), make

    def __getitem__(self, address: Address) -> bytes:
        if address not in self._set:
            raise KeyError(address)
        return self._make(address)

    def __iter__(self) -> Iterator[Address]:
        return iter(self._addresses)

    def __len__(self) -> int:
        return len(self._addresses)


def make_big_chart(path: Path, megabytes: int, tile_kb: Tuple[int, int] = (16, 24), first_zoom: int = 4,
                   metadata: Optional[Dict[str, str]] = None) -> Chart:
    """A chart of about `megabytes` MB: whole zoom levels of the world from first_zoom up, the last
    one partly filled from its first column on; each tile a padded_tile of tile_kb KiB (a size per
    tile, from its address), random bytes that neither SQLite nor a file system can shrink. About
    7 s for 400 MB here (the random bytes and the disk)."""
    low, high = tile_kb
    target = megabytes * 1_000_000

    def size_of(address: Address) -> int:
        z, x, y = address
        return 1024 * (low + (x * 7 + y * 13 + z) % (high - low + 1))

    addresses: List[Address] = []
    total, z = 0, first_zoom
    while total < target:
        n = 1 << z
        for x in range(n):
            for y in range(n):
                addresses.append((z, x, y))
                total += size_of((z, x, y))
            if total >= target:
                break
        z += 1

    def make(address: Address) -> bytes:
        return padded_tile(address, size_of(address))

    values = dict(metadata or {})
    values.setdefault("name", "Big chart")
    values.setdefault("format", "png")
    values.setdefault("minzoom", str(first_zoom))
    values.setdefault("maxzoom", str(addresses[-1][0]))
    write_mbtiles(path, ((address, make(address)) for address in addresses), values)
    return Chart(path, values, _Recomputed(addresses, make))


# -- files loctrack must refuse ----------------------------------------------------------------------

def not_sqlite(path: Path) -> Path:
    """A text file with an .mbtiles name."""
    path.write_text("This is not an SQLite database, only a file named like one.\n" * 100)
    return path


def empty_file(path: Path) -> Path:
    """Zero bytes (SQLite takes it for an empty database: no tiles table)."""
    path.write_bytes(b"")
    return path


def _database(path: Path, script: str, rows: Iterable[Tuple[str, Sequence]] = ()) -> Path:
    if path.exists():
        path.unlink()
    connection = sqlite3.connect(str(path), isolation_level=None)
    try:
        connection.executescript(script)
        for statement, values in rows:
            connection.execute(statement, values)
    finally:
        connection.close()
    return path


def no_tiles_table(path: Path) -> Path:
    """An SQLite database with metadata but neither a tiles table nor a tiles view."""
    return _database(path, "CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE other (a INTEGER);",
                     [("INSERT INTO metadata VALUES (?, ?)", ("name", "No tiles here"))])


def wrong_columns(path: Path) -> Path:
    """A `tiles` table without MBTiles' columns (z, x, y, data)."""
    return _database(path, "CREATE TABLE metadata (name TEXT, value TEXT); "
                           "CREATE TABLE tiles (z INTEGER, x INTEGER, y INTEGER, data BLOB);",
                     [("INSERT INTO tiles VALUES (?, ?, ?, ?)", (0, 0, 0, base_tile(0, 0, 0)))])


def vector_tiles(path: Path, say_format: bool = True) -> Path:
    """Vector tiles: gzip-compressed protobuf bytes, with `format` pbf in the metadata (say_format)
    or without any format (the bytes alone tell)."""
    layer = b"\x1a\x0b\x78\x02\x0a\x05water\x28\x80\x20"  # a protobuf Tile with one named layer
    rows = [("INSERT INTO tiles VALUES (?, ?, ?, ?)", (z, x, tms_row(z, y), gzip.compress(layer)))
            for z, x, y in tiles_in(range(0, 3))]
    if say_format:
        rows.append(("INSERT INTO metadata VALUES (?, ?)", ("format", "pbf")))
    rows.append(("INSERT INTO metadata VALUES (?, ?)", ("name", "Vector tiles")))
    return _database(path, FLAT_SCHEMA, rows)


def unknown_format(path: Path, fmt: str = "tiff") -> Path:
    """Raster-looking rows whose metadata says a format loctrack does not serve."""
    return _database(path, FLAT_SCHEMA, [("INSERT INTO metadata VALUES (?, ?)", ("format", fmt)),
                                         ("INSERT INTO tiles VALUES (?, ?, ?, ?)", (0, 0, 0, b"II*\x00" + b"\x00" * 60))])


def no_tiles(path: Path) -> Path:
    """A well-formed MBTiles file with metadata and not a single tile."""
    return _database(path, FLAT_SCHEMA, [("INSERT INTO metadata VALUES (?, ?)", ("format", "png")),
                                         ("INSERT INTO metadata VALUES (?, ?)", ("name", "Empty"))])


def fifo(path: Path) -> Path:
    """A named pipe: opening it for reading would block until a writer comes."""
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path
