"""Fault 9: the reader of loctrack's stdout goes away (| head -1) or stops reading, against the
flood emulator and against a real gpsd."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Tuple

from support.processes import free_port, kill_group, spawn

from .flood import epoch_index, flood_time, start_flood
from .harness import Context, Result, Server, gpsfake_log, ms, now, parallel, short, start_gpsfake
from .loctrack import Loctrack
from .reports import epochs, parse_fix, preamble


def fault_9(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def head_one():
        with Server(preamble() + epochs(0, 200), epoch_delay=0.1, linger=-1) as server:
            rc_file = ctx.out / "9-head.rc"
            script = '"$0" stream 127.0.0.1:%d | head -1; echo "${PIPESTATUS[0]}" > %s' % (server.port, rc_file)
            started = now()
            shell = spawn(["bash", "-c", script, ctx.loctrack], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
            try:
                out, err = shell.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                kill_group(shell)
                out, err = b"", b"(timeout)"
            elapsed = now() - started
            code = rc_file.read_text().strip() if rc_file.exists() else "?"
            lines = out.decode().splitlines()
            r.check(len(lines) == 1 and parse_fix(lines[0]) is not None, "| head -1: head gets one fix", lines[:2])
            r.check(code == "0", "| head -1: loctrack exits 0", code)
            r.check(not err.strip(), "| head -1: quietly (nothing on stderr)", err.decode()[:200])
            r.check(elapsed <= 2.0, "| head -1: the pipeline ends within 2 s (epochs every 0.1 s)", ms(elapsed))
            ended = server.clients[0].finished.wait(2) if server.clients else False
            commands = server.clients[0].commands if server.clients else []
            r.check(ended, "| head -1: the gpsd connection is closed", "%s; requests %s" % (
                server.clients[0].ended if server.clients else "no client", commands))
            figures["head"] = "| head -1: exit %s, pipeline %s" % (code, ms(elapsed))

    def stalled_reader():
        rate, run_for = 2000, ctx.stall_seconds + 10
        total = int(rate * run_for)
        flood, port = start_flood(ctx, total, rate, 1, linger=30)
        last_time = flood_time(total - 1, 1)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "9-stalled-reader", store=False)
        samples: List[Tuple[float, int, int]] = []
        stop_sampling = threading.Event()

        def sample():
            while not stop_sampling.is_set() and lt.running():
                rss, hwm = lt.status_kb("VmRSS"), lt.status_kb("VmHWM")
                if rss and hwm:
                    samples.append((now(), rss, hwm))
                time.sleep(0.25)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            lt.wait_lines(1, 30)
            time.sleep(3.0)
            before_rss = lt.status_kb("VmRSS") or 0
            before_count = lt.count
            lt.stall()
            stalled_at = now()
            time.sleep(ctx.stall_seconds)
            stall_hwm = lt.status_kb("VmHWM") or 0
            lt.resume()
            resumed_at = now()
            # How long until the output is live again: the epoch the flood is sending now is about
            # the one at the stall plus rate * elapsed (the output was live when the stall began).
            before_index = epoch_index(lt.last_line, 1)
            caught_up = None
            while now() < resumed_at + 10 and caught_up is None:
                index = epoch_index(lt.last_line, 1)
                live = before_index + rate * (now() - stalled_at)
                if index is not None and before_index is not None and index >= min(live - rate * 0.25, total - 1):
                    caught_up = now() - resumed_at
                time.sleep(0.02)
            got_more = lt.count > before_count + 100
            # the rest of the flood, then quiet
            lt.wait_for(lambda: last_time in lt.last_line, run_for + 10)
            lt.drain(0.5, 5)
            stop_sampling.set()
            peak_hwm = lt.status_kb("VmHWM") or 0
            errors = lt.stderr_lines()
            dropped_lines = [(stamp, text) for stamp, text in lt.err if "dropped the" in text]
            dropped = sum(int(m.group(1)) for _, text in dropped_lines
                          for m in [re.search(r"dropped the (\d+) oldest", text)] if m)
            printed = lt.count
            r.check(got_more and caught_up is not None and caught_up <= 5.0,
                    "stall: output resumes and is live again (the epoch being sent) within 5 s of the reader "
                    "reading again", "%d lines after resuming, live after %s" % (lt.count - before_count,
                                                                                  ms(caught_up)))
            r.check(all(stamp >= resumed_at - 0.5 for stamp, _ in dropped_lines) and len(dropped_lines) <= 1,
                    "stall: lines dropped (if any) are reported in one stderr line once output flows again",
                    short([text for _, text in dropped_lines]) if dropped_lines else "none dropped")
            r.check(printed + dropped == total, "stall: lines written + dropped and reported = fixes from the "
                    "emulator (%d): nothing lost silently" % total,
                    "%d written + %d dropped = %d" % (printed, dropped, printed + dropped))
            live_tail = last_time in lt.last_line
            r.check(live_tail, "stall: the last epoch gpsd sent is written (output live again)", lt.last_line[:90])
            growth_mb = (stall_hwm - before_rss) / 1024
            r.check(growth_mb <= 24, "stall: memory bounded (peak RSS during a %g s stall <= RSS before + 24 MB)"
                    % ctx.stall_seconds, "%.1f MB -> peak %.1f MB (+%.1f MB)" % (before_rss / 1024, stall_hwm / 1024,
                                                                                 growth_mb))
            unexpected = [text for text in errors if "dropped the" not in text]
            r.check(not unexpected, "stall: nothing else on stderr (gpsd kept sending: no 'no fix' report)",
                    short(unexpected))
            r.check(lt.stop() == 0, "stall: SIGTERM at the end: exit 0", lt.returncode)
            figures["stall"] = ("flood emulator, stall %g s at %d fixes/s: RSS %.1f MB before, peak %.1f MB during "
                                "(%.1f MB at the end); %d dropped and reported, %d written; live again %s after "
                                "the stall" % (ctx.stall_seconds, rate, before_rss / 1024, stall_hwm / 1024,
                                               peak_hwm / 1024, dropped, printed, ms(caught_up)))
        finally:
            stop_sampling.set()
            lt.stop()
            kill_group(flood)
            try:
                with open(ctx.out / "9-stalled-reader.rss", "w") as handle:
                    for stamp, rss, hwm in samples:
                        handle.write("%.2f %d %d\n" % (stamp - lt.started, rss, hwm))
            except OSError:
                pass

    def stalled_reader_real_gpsd():
        # The same stall with a real gpsd (gpsfake replaying a 5 Hz log as fast as it can, looped): what
        # the user gets when loctrack stops reading is up to gpsd, which drops what a client cannot take.
        log = gpsfake_log(r, "quectel-l76k-nmea.log", "stall with a real gpsd")
        if log is None:
            return
        port = free_port()
        workdir = Path(tempfile.mkdtemp(prefix="faults-gpsfake-", dir=str(ctx.out)))
        reported: List[float] = []  # when gpsd's watcher saw each new epoch (a fix TPV with a new time)
        previous = {"time": None}

        def count_epoch(stamp: float, report: dict) -> None:
            if report.get("mode", 0) >= 2 and "time" in report and "lat" in report:
                if report["time"] != previous["time"]:
                    reported.append(stamp)
                previous["time"] = report["time"]
        # no -1: the log is replayed again and again for as long as the stall takes
        fake = start_gpsfake(ctx, port, log, ["-c", "0.0005"], workdir, "9-gpsfake.err", count_epoch)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "9-stalled-reader-gpsd")
        try:
            if not r.check(lt.wait_lines(100, 60), "real-gpsd stall: loctrack prints gpsfake's fixes (100 within 60 s)",
                           lt.count):
                return
            control_start = now()
            time.sleep(2.0)
            stalled_at = now()
            control = (sum(1 for stamp, _ in lt.out if control_start <= stamp < stalled_at),
                       sum(1 for stamp in reported if control_start <= stamp < stalled_at))
            lt.stall()
            time.sleep(ctx.stall_gpsd_seconds)
            lt.resume()
            time.sleep(4.0)
            kill_group(fake)
            ended = now()
            lt.drain(0.5, 5)
            sent = sum(1 for stamp in reported if stalled_at <= stamp <= ended)
            written = sum(1 for stamp, _ in lt.out if stamp >= stalled_at)
            dropped = sum(int(m.group(1)) for text in lt.stderr_lines()
                          for m in [re.search(r"dropped the (\d+) oldest", text)] if m)
            silent = max(0, sent - written - dropped)  # (counts at the window's edges may differ by a few)
            false_silence = [text for text in lt.stderr_lines(before=ended) if "no fix from gpsd" in text]
            r.check(silent <= max(50, sent * 0.03),
                    "stall with a real gpsd: fixes gpsd reported during the stall are written or reported dropped "
                    "(none lost silently)", "gpsd reported %d, loctrack wrote %d, reported %d dropped: %d lost "
                    "without a word (before the stall, 2 s: gpsd %d, loctrack %d)" % (
                        sent, written, dropped, silent, control[1], control[0]))
            r.check(not false_silence, "stall with a real gpsd: no 'no fix from gpsd' report while gpsd kept sending",
                    short(false_silence))
            figures["gpsd"] = ("real gpsd (gpsfake, ~%d epochs/s with SKY), stall %g s: gpsd reported %d epochs, "
                               "%d written, %d reported dropped, %d lost silently" % (
                                   control[1] // 2, ctx.stall_gpsd_seconds, sent, written, dropped, silent))
        finally:
            kill_group(fake)
            lt.stop()
            shutil.rmtree(workdir, ignore_errors=True)

    parallel(head_one, stalled_reader, stalled_reader_real_gpsd)
    r.figure = "; ".join(figures[key] for key in ("head", "stall", "gpsd") if key in figures)
