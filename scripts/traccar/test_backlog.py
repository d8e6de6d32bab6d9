"""Test 4: a backlog of 10,000 fixes spooled while the server is down (the flood emulator at full speed,
the server's port refusing connections), drained once it is up."""

from __future__ import annotations

import time

from support import flood_emulator
from support import spool as spool_files
from support.processes import free_port, terminate
from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import Uplink, order_problem, wait_stored

TITLE = "a 10,000-fix backlog spooled while the server is down, drained once it is up"
EXPECTATION = ("all 10,000 stored, each once, oldest first, on one connection, well under 30 s after the server "
               "is up; exit 0 on SIGTERM")
NEEDS_FLOOD = True
DEVICE = "lt-e2e-backlog"
FIXES = 10_000
STEP_MS = 1000  # the flood's fixes a second apart: 2 h 47 min of driving at 1 Hz
FLOOD_BASE_MS = 1_735_689_600_000  # flood_gpsd's epoch 0: 2025-01-01T00:00:00Z
TARGET_S = 30.0


def run(settings, r) -> None:
    workdir = settings.workdir("4-backlog")
    port = free_port()  # reserved, not listening: connections are refused until the stand-in binds it
    url = "http://127.0.0.1:%d/?id=%s" % (port, DEVICE)
    emulator, gpsd_port = flood_emulator.start(settings.flood, ["-n", FIXES, "-t", "-s", STEP_MS, "-C", 1,
                                                                "-l", 600, "-W", 30])
    uplink = Uplink(settings, url, workdir / "spool", "127.0.0.1:%d" % gpsd_port, workdir, "uplink")
    # The backlog is there once the flood's last fix is in the spool.
    last_fix = b"timestamp=%d&" % (FLOOD_BASE_MS + (FIXES - 1) * STEP_MS)
    spooled = wait_until(lambda: spool_files.holds(str(workdir / "spool"), last_fix), 60, 0.25)
    r.check(bool(spooled), "the uplink spooled the whole flood while the server was down (its last fix, within 60 s)")
    up = time.monotonic()
    standin = StandinProcess(workdir, devices=[DEVICE], port=port)
    positions = wait_stored(standin, FIXES, 120)
    drained = positions[-1]["arrival"] - up if len(positions) >= FIXES else None
    first_after = positions[0]["arrival"] - up if positions else None
    code = uplink.terminate()
    expected = [FLOOD_BASE_MS + k * STEP_MS for k in range(FIXES)]
    stored = [p["time_ms"] for p in positions]
    r.check(stored == expected, "all %d stored, each once, oldest first" % FIXES,
            "%d stored%s" % (len(stored), "" if stored == expected else ", first difference at %s" % next(
                (i for i, (a, b) in enumerate(zip(stored, expected)) if a != b), min(len(stored), FIXES))))
    problem = order_problem(positions)
    r.check(problem is None, "never a newer fix before an older one", problem or "times strictly increasing")
    connections = sorted({p["connection"] for p in positions})
    r.check(len(connections) == 1, "one keep-alive connection", "connections used: %s" % connections)
    r.check(drained is not None and drained < TARGET_S, "drained within %g s of the server coming up" % TARGET_S,
            "the last of %d stored %s after the server came up (the first after %s)" % (
                FIXES, "%.2f s" % drained if drained is not None else "never",
                "%.2f s" % first_after if first_after is not None else "never"))
    r.check(code == 0, "the uplink exits 0 on SIGTERM", "exit %s" % code)
    stats = standin.stats()
    r.figure = "%d positions in %s s (%s per second over the drain; the first %.2f s after the server was up)" % (
        len(positions), "%.2f" % drained if drained else "-",
        "%.0f" % (FIXES / (drained - first_after)) if drained and drained > first_after else "-",
        first_after if first_after is not None else -1)
    r.note("stand-in: %d requests, %d connections" % (stats["requests"], stats["connections"]))
    standin.stop()
    terminate(emulator, 2)

