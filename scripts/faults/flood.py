"""The flood emulator (scripts/support/flood_gpsd.c) as a gpsd that sends epochs as fast as it
can or at a set rate, and a Python stand-in for it when it cannot be built: the scripted gpsd
(support/scripted_gpsd.py) with the flood's script."""

from __future__ import annotations

import calendar
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List, Optional

from support.processes import kill_group, spawn
from support.scripted_gpsd import FakeGpsd, serve_command_line

from .harness import Context
from .reports import BASE_TIME, iso, preamble, sky, tpv

PACKAGE = Path(__file__).resolve().parent
FLOOD_WATCH_TIMEOUT = 30  # seconds either flood waits for the client's ?WATCH (flood_gpsd -W)
START_TIMEOUT = 10  # seconds a flood has to print its port


def flood_command(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float,
                  satellites: int = 16) -> List[str]:
    """flood_gpsd: epoch k has time BASE_TIME + k * step_ms; rate 0 floods, else paced at rate Hz;
    satellites 0: TPV reports only, no SKY."""
    if ctx.flood:
        return [ctx.flood, "-n", str(epochs_count), "-r", str(rate), "-s", str(step_ms), "-l", str(linger),
                *(["-k", str(satellites)] if satellites else ["-t"]), "-C", "1", "-W", str(FLOOD_WATCH_TIMEOUT)]
    return [sys.executable, str(PACKAGE), "--python-flood", str(epochs_count), str(rate),
            str(step_ms), str(linger), str(satellites)]


def flood_time(k: int, step_ms: int) -> str:
    return '"time":"%s"' % iso(BASE_TIME + k * step_ms / 1000)


def start_flood(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int = 16):
    process = spawn(flood_command(ctx, epochs_count, rate, step_ms, linger, satellites), stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT)
    port_line = process.stdout.readline().decode().strip() if ready else ""
    if not port_line.isdigit():
        kill_group(process)  # before reading stderr: its end is then certain
        raise RuntimeError("flood emulator did not print its port within %d s: %r %r"
                           % (START_TIMEOUT, port_line, process.stderr.read()[:300]))
    return process, int(port_line)


def epoch_index(line: str, step_ms: int) -> Optional[int]:
    """k of a flood_gpsd epoch, from the time in its output line."""
    match = re.search(r'"time":"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z"', line)
    if not match:
        return None
    year, month, day, hour, minute, second, millis = (int(x) for x in match.groups())
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - BASE_TIME
    return int(round((seconds * 1000 + millis) / step_ms))


# == the Python flood (when flood_gpsd.c cannot be built) ==========================================

def flood_script(epochs_count: int, step_ms: int, satellites: int) -> Iterator[bytes]:
    """What flood_gpsd sends after ?WATCH: the preamble, then TPV + SKY per epoch (TPV alone
    for 0 satellites), with its epoch times and positions; generated as they are sent."""
    yield from preamble()
    sky_line = sky(0, satellites) if satellites else None
    for k in range(epochs_count):
        yield tpv(k, step=step_ms / 1000, walk=1e-6)
        if sky_line is not None:
            yield sky_line


def python_flood(epochs_count: int, rate: float, step_ms: int, linger: float, satellites: int) -> int:
    """A stand-in for flood_gpsd: the scripted gpsd (support/scripted_gpsd.py) with the flood's
    script, one client, gpsd's \\r\\n line ends, 200 epochs per write when flooding (rate 0),
    epoch k at k / rate seconds when paced; then silent `linger` seconds, then FIN. Prints its
    port like flood_gpsd; gives up (exit 1) if no client has come and gone within
    FLOOD_WATCH_TIMEOUT + linger + a second per 1,000 epochs."""
    per_epoch = 2 if satellites else 1
    server = FakeGpsd(lambda: flood_script(epochs_count, step_ms, satellites), max_clients=1,
                      burst=True, burst_lines=200 * per_epoch, epoch_rate=rate, line_end=b"\r\n",
                      linger=linger, watch_timeout=FLOOD_WATCH_TIMEOUT)
    timeout = FLOOD_WATCH_TIMEOUT + linger + 60 + epochs_count / 1000 + (epochs_count / rate if rate > 0 else 0)
    return serve_command_line(server, timeout, name="python flood")
