"""The flood emulator (Benchmarks/emulator/flood_gpsd.c) as a gpsd that sends epochs as fast as it
can or at a set rate, and a Python stand-in for it when it cannot be built."""

from __future__ import annotations

import calendar
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

from support.processes import kill_group, spawn

from .harness import Context
from .reports import BASE_TIME, iso, preamble, sky, tpv

PACKAGE = Path(__file__).resolve().parent


def flood_command(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float,
                  satellites: int = 16) -> List[str]:
    """flood_gpsd: epoch k has time BASE_TIME + k * step_ms; rate 0 floods, else paced at rate Hz;
    satellites 0: TPV reports only, no SKY."""
    if ctx.flood:
        return [ctx.flood, "-n", str(epochs_count), "-r", str(rate), "-s", str(step_ms), "-l", str(linger),
                *(["-k", str(satellites)] if satellites else ["-t"]), "-C", "1", "-W", "30"]
    return [sys.executable, str(PACKAGE), "--python-flood", str(epochs_count), str(rate),
            str(step_ms), str(linger), str(satellites)]


def flood_time(k: int, step_ms: int) -> str:
    return '"time":"%s"' % iso(BASE_TIME + k * step_ms / 1000)


def start_flood(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int = 16):
    process = spawn(flood_command(ctx, epochs_count, rate, step_ms, linger, satellites), stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    port_line = process.stdout.readline().decode().strip()
    if not port_line.isdigit():
        kill_group(process)
        raise RuntimeError("flood emulator did not start: %r %r" % (port_line, process.stderr.read()[:300]))
    return process, int(port_line)


def epoch_index(line: str, step_ms: int) -> Optional[int]:
    """k of a flood_gpsd epoch, from the time in its output line."""
    match = re.search(r'"time":"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z"', line)
    if not match:
        return None
    year, month, day, hour, minute, second, millis = (int(x) for x in match.groups())
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - BASE_TIME
    return int(round((seconds * 1000 + millis) / step_ms))


# == the Python flood (when Benchmarks/emulator/flood_gpsd.c cannot be built) ============================

def python_flood(epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int) -> int:
    """A stand-in for flood_gpsd: the same banner, preamble, epoch times and positions, TPV + SKY
    per epoch (TPV alone for 0 satellites)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    print(listener.getsockname()[1], flush=True)
    connection, _ = listener.accept()
    connection.sendall(b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\r\n')
    request = b""
    while b"?WATCH" not in request or b";" not in request.split(b"?WATCH", 1)[1]:
        chunk = connection.recv(4096)
        if not chunk:
            return 1
        request += chunk
    connection.sendall(b"".join(line + b"\r\n" for line in preamble()))
    sky_line = sky(0, satellites) + b"\r\n" if satellites else b""
    started = time.monotonic()
    batch = []
    for k in range(epochs_count):
        batch.append(tpv(k, step=step_ms / 1000, walk=1e-6) + b"\r\n" + sky_line)
        if rate > 0:
            due = started + k / rate
            delay = due - time.monotonic()
            if delay > 0:
                connection.sendall(b"".join(batch))
                batch = []
                time.sleep(delay)
        elif len(batch) >= 200:
            connection.sendall(b"".join(batch))
            batch = []
    if batch:
        connection.sendall(b"".join(batch))
    time.sleep(linger)
    connection.close()
    return 0
