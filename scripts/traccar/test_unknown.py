"""Test 3: the server does not know the device (400) for 25 s, then it is added in Traccar: one line on
stderr, the next request about 30 s after the 400 and none in between, nothing dropped, then everything
in order."""

from __future__ import annotations

import time

from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import (Uplink, connect_uplink, gpsd_times, missing_and_extra, order_problem, start_replay,
                      wait_replay_end, wait_stored)

TITLE = "an unknown device id (400) for 25 s, then the device is added"
EXPECTATION = ("the first request answered 400; one stderr line naming the device and the 400; the next request "
               "(the probe) 20-45 s after it and none in between (no hammering); the device is added 25 s after the "
               "400: the first request after that is answered 200 and every fix gpsd reported is stored, oldest "
               "first; exit 0 on SIGTERM")
DEVICE = "lt-e2e-unknown"
UNKNOWN_S = 25.0  # then the device is added: the probe about 30 s after the 400 finds it
PROBE_RANGE_S = (20.0, 45.0)  # "about 30 s": jitter, a loaded machine


def run(settings, r) -> None:
    workdir = settings.workdir("3-unknown")
    standin = StandinProcess(workdir)  # knows no device
    replay, witness = start_replay(settings, workdir)
    uplink = Uplink(settings, standin.url(DEVICE), workdir / "spool", replay.source, workdir, "uplink")
    connect_uplink(r, uplink, replay, witness)

    first = wait_until(lambda: standin.requests(), 30, 0.05)
    r.check(bool(first) and first[0]["status"] == 400, "the first request gets 400 (unknown id)",
            "status %s: %s" % (first[0]["status"], first[0]["target"][:120]) if first else "no request within 30 s")
    if not first:
        return
    first_400 = first[0]["arrival"]
    time.sleep(max(0.0, first_400 + UNKNOWN_S - time.monotonic()))
    standin.device(DEVICE, "known")
    added = time.monotonic()
    r.check(wait_replay_end(replay, witness), "gpsd reported the drive's last fix")
    fixes = witness.fixes()
    # A probe just before the add (the short end of "about 30 s") puts the next one a whole interval later.
    positions = wait_stored(standin, len(fixes), max(0.0, first_400 + 2 * PROBE_RANGE_S[1] - time.monotonic()))
    code = uplink.terminate()

    requests = standin.requests()
    interval = requests[1]["arrival"] - first_400 if len(requests) > 1 else None
    r.check(interval is not None and PROBE_RANGE_S[0] <= interval <= PROBE_RANGE_S[1],
            "the next request about 30 s after the 400, none in between (no hammering)",
            "the second request %s after the first" % ("%.1f s" % interval if interval is not None else "never"))
    after_add = [q for q in requests if q["arrival"] >= added]
    r.check(bool(after_add) and after_add[0]["status"] == 200, "the first request after the device was added is "
            "answered 200", "%s, %.1f s after the add" % (after_add[0]["outcome"], after_add[0]["arrival"] - added)
            if after_add else "no request after the add")
    said = [line for line in uplink.stderr_lines() if "400" in line]
    r.check(len(said) == 1 and DEVICE in said[0], "one stderr line naming the device and the 400",
            " | ".join(said) if said else "none; stderr: %s" % " | ".join(uplink.stderr_lines())[-300:])
    expected = gpsd_times(fixes)
    missing, extra = missing_and_extra(positions, expected)
    r.check(len(positions) == len(expected) and not missing and not extra,
            "every fix gpsd reported is stored once the device is known",
            "%d fixes from gpsd, %d stored, %d missing" % (len(expected), len(positions), len(missing)))
    problem = order_problem(positions)
    r.check(problem is None, "stored oldest first", problem or "times strictly increasing")
    r.check(code == 0, "the uplink exits 0 on SIGTERM", "exit %s" % code)
    statuses = [q["status"] for q in requests]
    r.figure = "%d requests answered 400, the probe %s after the first; %d positions stored, the first %.1f s after " \
               "the first 400" % (statuses.count(400), "%.1f s" % interval if interval is not None else "never",
                                   len(positions), positions[0]["arrival"] - first_400 if positions else -1)
    standin.stop()
    replay.stop()
    witness.stop()
