"""Test 1: the demo drive through a real gpsd into the uplink and on to the stand-in: every fix once,
in order, in Traccar's units."""

from __future__ import annotations

import math

from support.gpsd_replay import time_ms
from support.traccar_standin import StandinProcess

from .harness import (KNOTS_PER_MPS, SPEED_TOLERANCE_KN, Uplink, connect_uplink, gpsd_times,
                      missing_and_extra, order_problem, query_of, start_replay, wait_replay_end, wait_stored)

TITLE = "every fix once, in order, in Traccar's units"
EXPECTATION = ("each fix gpsd reported is stored once, oldest first, on one connection; timestamp in ms = gpsd's "
               "fix time; lat/lon = gpsd's numbers; speed = gpsd's m/s x 1.943844 (knots); odometer (m, never "
               "decreasing) and motion (true/false) on every position; exit 0 on SIGTERM")
DEVICE = "lt-e2e-units"


def run(settings, r) -> None:
    workdir = settings.workdir("1-units")
    standin = StandinProcess(workdir, devices=[DEVICE])
    replay, witness = start_replay(settings, workdir)
    uplink = Uplink(settings, standin.url(DEVICE), workdir / "spool", replay.source, workdir, "uplink")
    connect_uplink(r, uplink, replay, witness)
    r.check(wait_replay_end(replay, witness), "gpsd reported the drive's last fix")
    fixes = witness.fixes()
    positions = wait_stored(standin, len(fixes), 30)
    code = uplink.terminate()
    r.check(code == 0, "the uplink exits 0 on SIGTERM", "exit %s" % code)
    expected = gpsd_times(fixes)
    missing, extra = missing_and_extra(positions, expected)
    r.check(len(positions) == len(expected) and not missing and not extra,
            "every fix gpsd reported is stored exactly once",
            "%d fixes from gpsd, %d stored, %d missing, %d not from gpsd" % (len(expected), len(positions),
                                                                           len(missing), len(extra)))
    problem = order_problem(positions)
    r.check(problem is None, "stored oldest first", problem or "times strictly increasing")
    connections = sorted({p["connection"] for p in positions})
    r.check(len(connections) == 1, "one keep-alive connection", "connections used: %s" % connections)
    by_time = {time_ms(fix["time"]): fix for fix in fixes}
    worst_speed, unit_errors, coordinate_errors, attribute_errors = 0.0, [], [], []
    previous_odometer = -math.inf
    for position in positions:
        fix = by_time.get(position["time_ms"])
        if fix is None:
            continue
        sent = query_of(position)
        if (float(sent.get("lat", "nan")), float(sent.get("lon", "nan"))) != (fix["lat"], fix["lon"]):
            coordinate_errors.append("%s: sent %s,%s, gpsd %r,%r" % (fix["time"], sent.get("lat"), sent.get("lon"),
                                                                     fix["lat"], fix["lon"]))
        if "speed" in fix:
            knots = fix["speed"] * KNOTS_PER_MPS
            worst_speed = max(worst_speed, abs(position["speed"] - knots))
            if abs(position["speed"] - knots) > SPEED_TOLERANCE_KN:
                unit_errors.append("%s: %r kn stored, gpsd %r m/s = %.4f kn" % (fix["time"], position["speed"],
                                                                                fix["speed"], knots))
        odometer = position["attributes"].get("odometer")
        motion = position["attributes"].get("motion")
        if not isinstance(odometer, float) or odometer < previous_odometer or not isinstance(motion, bool):
            attribute_errors.append("%s: odometer %r (before %r), motion %r" % (fix["time"], odometer,
                                                                               previous_odometer, motion))
        if isinstance(odometer, float):
            previous_odometer = odometer
    r.check(not coordinate_errors, "lat and lon are gpsd's numbers to the last digit",
            coordinate_errors[0] if coordinate_errors else "all %d" % len(positions))
    r.check(not unit_errors, "speed is in knots (gpsd's m/s x 1.943844)",
            unit_errors[0] if unit_errors else "largest difference %.5f kn" % worst_speed)
    r.check(not attribute_errors, "odometer (a number, never decreasing) and motion (true/false) on every position",
            attribute_errors[0] if attribute_errors else "last odometer %.1f m" % previous_odometer)
    moving = sum(1 for p in positions if p["attributes"].get("motion") is True)
    keys = sorted(set().union(*(query_of(p).keys() for p in positions))) if positions else []
    r.note("parameters sent: %s; %d of %d positions with motion=true" % (", ".join(keys), moving, len(positions)))
    r.figure = "%d fixes, %d stored, odometer %.1f m over the drive" % (len(expected), len(positions),
                                                                       max(previous_odometer, 0.0))
    standin.stop()
    replay.stop()
    witness.stop()
