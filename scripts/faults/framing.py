"""Fault 4, half a line then nothing: what the loctrack process costs while it waits (CPU,
context switches). The other framing faults (bursts, overlong and malformed lines) need no
process and are Swift tests (Tests/LocTrackTests/Unit/ReaderTests.swift)."""

from __future__ import annotations

import time

from support.procfs import proc_switches

from .harness import Context, Result, Server, cpu_ms, ms, now
from .loctrack import Loctrack
from .reports import epoch_time, epochs, preamble, tpv


# == fault 4: half a line, then nothing ===========================================================

def fault_4(ctx: Context, r: Result) -> None:
    lines = preamble() + epochs(0, 9, with_sky=False) + [tpv(10), tpv(11), tpv(12)]
    split_index = len(preamble()) + 10
    pause = 4.0
    with Server(lines, line_delay=0.05, pauses={split_index: pause}, split_pause=True, linger=-1) as server:
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "4-half-line")
        try:
            ok = lt.wait_for(lambda: bool(server.clients) and bool(server.clients[0].when("pause")), 30)
            r.check(ok, "the server sent half of epoch 10's TPV and paused")
            paused_at = server.clients[0].when("pause")[0] if ok else now()
            time.sleep(max(0.0, paused_at + 0.3 - now()))
            cpu0, switches0, t0 = lt.cpu(), proc_switches(lt.pid), now()
            time.sleep(max(0.0, paused_at + pause - 0.15 - now()))
            cpu1, switches1, t1 = lt.cpu(), proc_switches(lt.pid), now()
            cpu_used = (cpu1 or 0) - (cpu0 or 0)
            switches = (switches1 or 0) - (switches0 or 0)
            printed_during = [text for stamp, text in lt.out if stamp < t1]
            r.check(lt.wait_for(lambda: any(epoch_time(12) in text for _, text in lt.out), 30),
                    "the stream goes on after the pause", lt.count)
            resumed_at = server.clients[0].when("resume")[0] if server.clients[0].when("resume") else None
            completed = [stamp for stamp, text in lt.out if epoch_time(10) in text]
            latency = (completed[0] - resumed_at) if completed and resumed_at else None
            r.check(cpu_used <= 0.02, "no busy loop: CPU over %.1f s of the pause <= 20 ms" % (t1 - t0),
                    "%s, %d context switches" % (cpu_ms(cpu_used), switches))
            r.check(not any(epoch_time(10) in text for text in printed_during),
                    "the half line is not a fix before it completes", "")
            r.check(len(printed_during) == 10, "epochs 0-9 printed before the pause ended", len(printed_during))
            # As soon as: well before the 1.5 s quiet flush that a line still incomplete would wait for
            # (the margin is a loaded machine's, between this script and loctrack).
            r.check(latency is not None and latency <= 1.0, "epoch 10 printed as soon as its line completes "
                    "(<= 1 s, under the 1.5 s quiet flush)", ms(latency))
            times = lt.fix_times()
            r.check(times == [epoch_time(k) for k in range(13)], "every epoch printed once", len(times))
            r.figure = "CPU %s and %d context switches in %.1f s of a half line; the fix %s after the line completed" % (
                cpu_ms(cpu_used), switches, t1 - t0, ms(latency))
        finally:
            lt.stop()


# == fault 5: many reports in one TCP segment ===================================================
