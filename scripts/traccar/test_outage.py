"""Test 2: an outage of 503s and closes without a reply, with a SIGKILL of the uplink inside it and a
restart on the same spool: nothing lost, oldest first, a repeat only where a reply was lost."""

from __future__ import annotations

import time

from support import spool as spool_files
from support.traccar_standin import StandinProcess
from support.waiting import wait_until

from .harness import (Uplink, connect_uplink, gpsd_times, missing_and_extra, order_problem, start_replay,
                      wait_replay_end, wait_stored)

TITLE = "an outage (503s, closes without a reply) with a SIGKILL inside it, restart on the same spool"
EXPECTATION = ("every fix gpsd reported is stored, oldest first; a time repeats only where the stand-in stored a "
               "position and closed without replying (at most once each); the restarted uplink sends the spool "
               "first and is back within the 5 s backoff cap once the server answers; exit 0 on SIGTERM")
DEVICE = "lt-e2e-outage"
FIRST_503_S = 2.0  # a short outage of 503s early in the drive
CLOSES, LOST_REPLIES = 2, 2  # closes before decoding, then positions stored whose reply is lost
BACKOFF_CAP_S = 5.0


def run(settings, r) -> None:
    workdir = settings.workdir("2-outage")
    spool = workdir / "spool"
    standin = StandinProcess(workdir, devices=[DEVICE])
    replay, witness = start_replay(settings, workdir)
    first = Uplink(settings, standin.url(DEVICE), spool, replay.source, workdir, "uplink-1")
    connect_uplink(r, first, replay, witness)

    r.check(len(wait_stored(standin, 40, 30)) >= 40, "40 positions stored before the outage")
    standin.fault(status=503, seconds=FIRST_503_S)
    time.sleep(FIRST_503_S + 0.5)
    standin.fault(close=CLOSES, drop_reply=LOST_REPLIES)
    counted = wait_until(lambda: _faults_done(standin), 20, 0.1)
    r.check(counted, "the uplink met %d closes and %d lost replies" % (CLOSES, LOST_REPLIES),
            str(standin.stats()["counts"]))
    standin.fault(status=503, seconds=600)  # the long outage, with the SIGKILL inside it
    r.check(wait_replay_end(replay, witness), "gpsd reported the drive's last fix during the outage")
    # The SIGKILL comes once the uplink has spooled gpsd's last fix: what it had read and not yet
    # spooled would be lost, as docs/spool.md says, and that is not what this test is about.
    last_fix = b"timestamp=%d&" % gpsd_times(witness.fixes())[-1]
    r.check(bool(wait_until(lambda: spool_files.holds(str(spool), last_fix), 30)),
            "the uplink spooled gpsd's last fix before its SIGKILL (within 30 s)")
    stored_before_kill = standin.stats()["positions"]
    first.kill()
    restarted, seen = time.monotonic(), standin.stats()["requests"]
    second = Uplink(settings, standin.url(DEVICE), spool, replay.source, workdir, "uplink-2")
    met = wait_until(lambda: any(q["arrival"] >= restarted and q["status"] == 503 for q in standin.requests(seen)),
                     30, 0.2)
    r.check(bool(met), "the restarted uplink met the outage's 503s too (within 30 s)")
    ended = time.monotonic()
    standin.fault(clear=True)
    fixes = witness.fixes()
    positions = wait_stored(standin, len(fixes) + LOST_REPLIES, 60)
    code = second.terminate()

    after = positions[stored_before_kill:]
    back_in = after[0]["arrival"] - ended if after else None
    requests = standin.requests()
    by_request = {q["request"]: q for q in requests}
    lost_reply_times = [p["time_ms"] for p in positions
                        if by_request.get(p["request"], {}).get("outcome") == "position-reply-dropped"]
    expected = gpsd_times(fixes)
    missing, extra = missing_and_extra(positions, expected)
    r.check(not missing and not extra, "every fix gpsd reported is stored, none other",
            "%d fixes from gpsd, %d stored, %d missing, %d not from gpsd" % (len(expected), len(positions),
                                                                           len(missing), len(extra)))
    problem = order_problem(positions, lost_reply_times)
    repeats = len(positions) - len(set(p["time_ms"] for p in positions))
    r.check(problem is None, "oldest first; a time repeats only where its reply was lost",
            problem or "%d repeats, %d lost replies" % (repeats, len(lost_reply_times)))
    r.check(back_in is not None and back_in <= BACKOFF_CAP_S + 1.0,
            "the restarted uplink is back within the backoff cap once the server answers",
            "first position %s after the outage ended" % ("%.2f s" % back_in if back_in is not None else "never"))
    r.check(code == 0, "the restarted uplink exits 0 on SIGTERM", "exit %s" % code)
    outcomes = standin.stats()["counts"]
    r.note("requests by outcome: %s; %d stored before the SIGKILL, %d after the restart"
           % (outcomes, stored_before_kill, len(after)))
    r.figure = "%d fixes, %d stored (%d repeats after %d lost replies), back %.2f s after the outage" % (
        len(expected), len(positions), repeats, len(lost_reply_times), back_in if back_in is not None else -1)
    standin.stop()
    replay.stop()
    witness.stop()


def _faults_done(standin) -> bool:
    counts = standin.stats()["counts"]
    return counts.get("fault-close", 0) >= CLOSES and counts.get("position-reply-dropped", 0) >= LOST_REPLIES
