"""Reading loctrack's spool folder (docs/spool.md) from the outside: the records it holds and how
many are not yet acknowledged. `head` holds two slots "LTSH" u64 u32-CRC, the larger valid one
being the first unacknowledged sequence; each `SEQUENCE.seg` holds records [u32 length][u32 CRC]
[body] from SEQUENCE on, a body [u8 qos][u8 retain][u16 topic length][topic][payload].

Used by scripts/traccar (what an uplink has spooled before it is killed) and the bench (what a
publisher left unacknowledged)."""

from __future__ import annotations

import os
import struct
import zlib
from typing import List, Optional, Tuple


def head(folder: str) -> Optional[int]:
    """The first unacknowledged sequence, or None when there is no spool to read."""
    try:
        with open(os.path.join(folder, "head"), "rb") as f:
            slots = f.read()
    except OSError:
        return None
    heads = [struct.unpack_from("<Q", slots, at + 4)[0] for at in (0, 16)
             if slots[at:at + 4] == b"LTSH" and len(slots) >= at + 16
             and zlib.crc32(slots[at:at + 12]) == struct.unpack_from("<I", slots, at + 12)[0]]
    return max(heads, default=0)


def records(folder: str) -> List[Tuple[int, bytes]]:
    """(sequence, payload) of every whole record in the folder's segments, in sequence order (a
    torn record at a segment's end, which the spool cuts off when it is next opened, left out)."""
    found: List[Tuple[int, bytes]] = []
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".seg"))
    except OSError:
        return found
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
        except OSError:
            continue  # retired meanwhile
        sequence, at = int(name[:-4]), 0
        while at + 8 <= len(data):
            length, checksum = struct.unpack_from("<II", data, at)
            body = data[at + 8:at + 8 + length]
            if len(body) < length or zlib.crc32(body) != checksum or len(body) < 4:
                break
            topic_length = struct.unpack_from("<H", body, 2)[0]
            found.append((sequence, body[4 + topic_length:]))
            sequence, at = sequence + 1, at + 8 + length
    return found


def holds(folder: str, part: bytes) -> bool:
    """Whether a record's payload contains `part` (a Traccar uplink's spool holds each fix as its
    OsmAnd query: b"timestamp=MS&" finds a fix by its time)."""
    return any(part in payload for _, payload in records(folder))


def pending(folder: str) -> Optional[int]:
    """How many messages are still unacknowledged, or None when there is no spool to read."""
    first = head(folder)
    if first is None:
        return None
    return sum(1 for sequence, _ in records(folder) if sequence >= first)
