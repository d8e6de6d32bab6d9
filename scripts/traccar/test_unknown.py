"""Test 3: the server does not know the device for 30 s (400), then it is added in Traccar: one line
on stderr, about one probe per 30 s meanwhile, nothing dropped, then everything in order."""

from __future__ import annotations

import math
import time

from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import (Uplink, connect_uplink, gpsd_times, missing_and_extra, order_problem, start_replay,
                      wait_replay_end, wait_stored)

TITLE = "an unknown device id (400) for 30 s, then the device is added"
EXPECTATION = ("one stderr line naming the device and the 400; meanwhile about one request per 30 s (no "
               "hammering); once the device is known, every fix gpsd reported is stored, oldest first, "
               "within a probe interval; exit 0 on SIGTERM")
DEVICE = "lt-e2e-unknown"
ADD_AFTER_S = 25.0  # after the first 400: the probe ~30 s after it finds the device known
PROBE_S = 30.0
PROBE_SLACK_S = 10.0  # "about" 30 s: jitter, a loaded machine


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
    time.sleep(max(0.0, first_400 + ADD_AFTER_S - time.monotonic()))
    while_unknown = standin.requests()
    standin.device(DEVICE, "known")
    added = time.monotonic()
    allowed = 1 + math.ceil(ADD_AFTER_S / PROBE_S)
    r.check(len(while_unknown) <= allowed and all(q["status"] == 400 for q in while_unknown),
            "about one request per 30 s while the device is unknown (no hammering)",
            "%d requests in the %.0f s after the first 400 (at most %d)" % (len(while_unknown), ADD_AFTER_S, allowed))

    r.check(wait_replay_end(replay, witness), "gpsd reported the drive's last fix")
    fixes = witness.fixes()
    positions = wait_stored(standin, len(fixes), PROBE_S + PROBE_SLACK_S)
    delivered = positions[0]["arrival"] - first_400 if positions else None
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
    r.check(delivered is not None and delivered <= PROBE_S + PROBE_SLACK_S,
            "delivered within a probe interval of the first 400",
            "first position %s after the first 400, the device added %.0f s after it"
            % ("%.1f s" % delivered if delivered is not None else "never", added - first_400))
    r.check(code == 0, "the uplink exits 0 on SIGTERM", "exit %s" % code)
    statuses = [q["status"] for q in standin.requests()]
    r.figure = "%d requests answered 400 in all (%d in the %.0f s after the first), then %d positions stored, the " \
               "first %.1f s after the first 400" % (statuses.count(400), len(while_unknown), ADD_AFTER_S, len(positions),
                                                    delivered if delivered is not None else -1)
    standin.stop()
    replay.stop()
    witness.stop()
