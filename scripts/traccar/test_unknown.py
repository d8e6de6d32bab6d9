"""Test 3: the server does not know the device (400) until the uplink asks again, about 30 s later; the
device is added in Traccar then: one line on stderr, no request in between, nothing dropped, then
everything in order by the next probe."""

from __future__ import annotations

import time

from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import (Uplink, connect_uplink, gpsd_times, missing_and_extra, order_problem, start_replay,
                      wait_replay_end, wait_stored)

TITLE = "an unknown device id (400) until the uplink's first probe, about 30 s, then the device is added"
EXPECTATION = ("the first request answered 400; one stderr line naming the device and the 400; the next request "
               "(the probe) about 30 s later and none in between (no hammering); the device is added then: every "
               "fix gpsd reported is stored, oldest first, by the next probe; exit 0 on SIGTERM")
DEVICE = "lt-e2e-unknown"
PROBE_RANGE_S = (20.0, 45.0)  # "about 30 s": jitter, a loaded machine
PROBE_SLACK_S = 10.0


def run(settings, r) -> None:
    workdir = settings.workdir("3-unknown")
    standin = StandinProcess(workdir)  # knows no device
    replay, witness = start_replay(settings, workdir)
    uplink = Uplink(settings, standin.url(DEVICE), workdir / "spool", replay.source, workdir, "uplink")
    connect_uplink(r, uplink, replay, witness)

    first = wait_until(lambda: standin.requests(), 30, 0.05)
    r.check(bool(first) and first[0]["status"] == 400, "the first request gets 400 (unknown id)",
            str(first[0] if first else "no request within 30 s"))
    if not first:
        return
    first_400 = first[0]["arrival"]
    probed = wait_until(lambda: len(standin.requests()) >= 2, PROBE_RANGE_S[1] + 5, 0.05)
    standin.device(DEVICE, "known")
    added = time.monotonic()
    while_unknown = standin.requests()
    interval = while_unknown[1]["arrival"] - first_400 if probed else None
    r.check(probed and PROBE_RANGE_S[0] <= interval <= PROBE_RANGE_S[1] and len(while_unknown) == 2
            and all(q["status"] == 400 for q in while_unknown),
            "the next request about 30 s after the 400, none in between (no hammering)",
            "%d requests, the second %s after the first" % (
                len(while_unknown), "%.1f s" % interval if interval is not None else "never (within %g s)"
                % (PROBE_RANGE_S[1] + 5)))
    if not probed:
        return

    r.check(wait_replay_end(replay, witness), "gpsd reported the drive's last fix")
    fixes = witness.fixes()
    positions = wait_stored(standin, len(fixes), max(0.0, added + interval + PROBE_SLACK_S - time.monotonic()))
    delivered = positions[0]["arrival"] - added if positions else None
    code = uplink.terminate()
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
    r.check(delivered is not None and delivered <= interval + PROBE_SLACK_S,
            "delivered by the next probe once the device is known",
            "first position %s after the device was added (probe interval %.1f s)"
            % ("%.1f s" % delivered if delivered is not None else "never", interval))
    r.check(code == 0, "the uplink exits 0 on SIGTERM", "exit %s" % code)
    r.figure = "400 then a probe %.1f s later; %d positions stored, the first %.1f s after the device was added" % (
        interval, len(positions), delivered if delivered is not None else -1)
    standin.stop()
    replay.stop()
    witness.stop()
