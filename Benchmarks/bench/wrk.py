"""wrk (Debian's) walking a list of paths against a server: the load of the serve-tiles part.

`wrk -t THREADS -c CONNECTIONS -d SECONDS --latency -s tile_paths.lua URL -- PATHS THREADS`: the
Lua script (beside this file) asks for the list's paths one after another, each thread from its
own offset, and prints one JSON line at the end, which run() returns with the rate worked out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Optional

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tile_paths.lua")


def binary() -> Optional[str]:
    return shutil.which("wrk")


def run(port: int, paths_file: str, seconds: float, connections: int = 8, threads: int = 2,
        timeout_s: float = 2.0) -> dict:
    """One run; its figures: requests, per_s, bytes, errors (each kind, and their sum), p50/p90/p99/max in ms.
    Raises RuntimeError when wrk fails or prints no figures."""
    command = [binary() or "wrk", "-t", str(threads), "-c", str(connections), "-d", "%gs" % seconds, "--latency",
               "--timeout", "%gs" % timeout_s, "-s", SCRIPT, "http://127.0.0.1:%d" % port, "--", paths_file,
               str(threads)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    line = next((text for text in reversed(done.stdout.splitlines()) if text.startswith("{")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError("wrk exited %d: %s %s" % (done.returncode, done.stdout[-300:], done.stderr[-300:]))
    figures = json.loads(line)
    seconds_run = figures["duration_us"] / 1e6
    errors = {kind: figures[kind] for kind in ("connect", "read", "write", "status", "timeout")}
    return {"requests": figures["requests"], "per_s": figures["requests"] / seconds_run if seconds_run else None,
            "bytes": figures["bytes"], "errors": errors, "error_total": sum(errors.values()),
            "p50": figures["p50_us"] / 1000, "p90": figures["p90_us"] / 1000, "p99": figures["p99_us"] / 1000,
            "max": figures["max_us"] / 1000, "mean": figures["mean_us"] / 1000, "seconds": seconds_run}
