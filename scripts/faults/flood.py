"""The flood emulator (scripts/support/flood_gpsd.c, the one flood generator: the benchmark runs it
too) as a gpsd that sends epochs as fast as it can or at a set rate."""

from __future__ import annotations

import calendar
import re
import select
import subprocess
from typing import List, Optional

from support.processes import kill_group, spawn

from .harness import Context
from .reports import BASE_TIME, iso

FLOOD_WATCH_TIMEOUT = 30  # seconds either flood waits for the client's ?WATCH (flood_gpsd -W)
START_TIMEOUT = 10  # seconds a flood has to print its port


def flood_command(ctx: Context, epochs_count: int, rate: float, step_ms: int, linger: float,
                  satellites: int = 16) -> List[str]:
    """flood_gpsd: epoch k has time BASE_TIME + k * step_ms; rate 0 floods, else paced at rate Hz;
    satellites 0: TPV reports only, no SKY."""
    return [ctx.flood, "-n", str(epochs_count), "-r", str(rate), "-s", str(step_ms), "-l", str(linger),
            *(["-k", str(satellites)] if satellites else ["-t"]), "-C", "1", "-W", str(FLOOD_WATCH_TIMEOUT)]


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

