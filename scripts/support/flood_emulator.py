"""The flood emulator (flood_gpsd.c beside this file, compiled by the Makefile) as a process: started on a
free loopback port (-p 0), which it prints on its first line once it listens."""

from __future__ import annotations

import select
import subprocess
from typing import Sequence, Tuple

from .processes import spawn, terminate


def start(binary: str, args: Sequence, timeout: float = 10) -> Tuple[subprocess.Popen, int]:
    """flood_gpsd -p 0 ARGS; (the process, its port). The process is spawn()ed: ended at exit."""
    process = spawn([binary, "-p", "0"] + [str(a) for a in args], stdout=subprocess.PIPE)
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else b""
    if not line.strip().isdigit():
        terminate(process, 2)
        raise RuntimeError("flood_gpsd did not print its port within %g s" % timeout)
    return process, int(line)
