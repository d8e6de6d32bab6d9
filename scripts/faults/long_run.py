"""Fault 12 (--long): a million fixes from the flood emulator, then 300,000 paced; memory must stay flat."""

from __future__ import annotations

from typing import Dict, Tuple

from support.processes import kill_group

from .flood import flood_time, start_flood
from .harness import Context, Result, now, short
from .loctrack import Loctrack


# == fault 12: a million fixes ===========================================================================

def fault_12(ctx: Context, r: Result) -> None:
    total, checkpoint = 1_000_000, 100_000
    flood, port = start_flood(ctx, total, 0, 100, linger=900)
    lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "12-million", store=False)
    try:
        marks: Dict[int, Tuple[float, int, int]] = {}
        for target in (checkpoint, 500_000):
            if lt.wait_lines(target, 600):
                marks[target] = (now() - lt.started, lt.status_kb("VmHWM") or 0, lt.status_kb("VmRSS") or 0)
        last = flood_time(total - 1, 100)
        lt.wait_for(lambda: last in lt.last_line, 600)
        lt.drain(0.5, 5)
        marks[total] = (now() - lt.started, lt.status_kb("VmHWM") or 0, lt.status_kb("VmRSS") or 0)
        cpu_used = lt.cpu()
        errors = lt.stderr_lines()
        r.check(lt.count == total and last in lt.last_line, "all %d fixes written, the last one last" % total,
                "%d lines" % lt.count)
        r.check(not [text for text in errors if "dropped" in text], "none dropped (this reader keeps up)",
                short(errors))
        hwm_100k = marks.get(checkpoint, (0, 0, 0))[1] / 1024
        hwm_end = marks[total][1] / 1024
        r.check(hwm_end <= hwm_100k * 1.10 + 2, "memory flat: peak RSS at 1,000,000 fixes <= peak at 100,000 + 10 % "
                "+ 2 MB", "%.1f MB at 100k, %.1f MB at 500k, %.1f MB at 1M" % (
                    hwm_100k, marks.get(500_000, (0, 0, 0))[1] / 1024, hwm_end))
        r.check(hwm_end <= 64, "memory bounded: peak RSS <= 64 MB", "%.1f MB" % hwm_end)
        r.figure = "flood: peak RSS %.1f MB at 100k fixes (%.1f s), %.1f MB at 500k, %.1f MB at 1M (%.1f s, CPU " \
                   "%.1f s)" % (hwm_100k, marks.get(checkpoint, (0,))[0], marks.get(500_000, (0, 0))[1] / 1024,
                                hwm_end, marks[total][0], cpu_used or 0)
    finally:
        lt.stop()
        kill_group(flood)
    # The same at a pace loctrack keeps up with: does memory stay flat when nothing backs up?
    rate, paced_total = 10_000, 300_000
    flood, port = start_flood(ctx, paced_total, rate, 1, linger=900)
    lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "12-paced", store=False)
    try:
        marks = {}
        for target in (paced_total // 10, paced_total):
            if lt.wait_lines(target, 120):
                marks[target] = lt.status_kb("VmHWM") or 0
        first, end = marks.get(paced_total // 10, 0) / 1024, marks.get(paced_total, 0) / 1024
        r.check(lt.count == paced_total and end <= first * 1.10 + 2,
                "paced at %d fixes/s (no backlog): peak RSS flat from %dk to %dk fixes" % (
                    rate, paced_total // 10000, paced_total // 1000),
                "%.1f MB -> %.1f MB, %d lines" % (first, end, lt.count))
        r.figure += "; paced %d/s: %.1f MB at %dk, %.1f MB at %dk" % (rate, first, paced_total // 10000, end,
                                                                      paced_total // 1000)
    finally:
        lt.stop()
        kill_group(flood)
