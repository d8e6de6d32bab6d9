"""Faults 1 and 2: gpsd not running when loctrack starts, and gpsd killed and restarted mid-stream
(a scripted gpsd, and gpsfake with a real gpsd)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from support.processes import free_port, kill_group

from .harness import Context, Result, Server, cpu_ms, gpsfake_log, ms, now, parallel, short, start_gpsfake
from .loctrack import Loctrack
from .reports import epoch_time, epochs, learning_epochs, preamble


# == fault 1: gpsd not running at start ========================================================

def parse_retry_delay(text: str) -> Optional[float]:
    match = re.search(r"retrying in (\d+) ms", text)
    if match:
        return int(match.group(1)) / 1000
    match = re.search(r"retrying in (\d+)\.(\d) s", text)
    if match:
        return int(match.group(1)) + int(match.group(2)) / 10
    return None


def fault_1(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def once_without_gpsd():
        port = free_port()
        lt = Loctrack(ctx, ["once", "127.0.0.1:%d" % port], "1-once-no-gpsd")
        code = lt.wait_exit(20)
        lt.stop()
        elapsed = (lt.exited_at or now()) - lt.started
        errors = lt.stderr_lines()
        r.check(code == 69, "once: exit 69", code)
        # Not waiting for gpsd: a once that waited would end only at its --timeout, 30 s. How soon
        # after the spawn it exits is a figure (a loaded machine takes long to start a process).
        r.check(elapsed < 20.0, "once: exits without waiting for gpsd (well before its 30 s --timeout)", ms(elapsed))
        r.check(len(errors) == 1, "once: exactly one stderr line", short(errors))
        first = errors[0] if errors else ""
        r.check("127.0.0.1:%d" % port in first and "can't connect to host/port pair" in first,
                "once: the line names the source and libgps's reason (gps_errstr)", first)
        r.check(lt.count == 0, "once: nothing on stdout", lt.count)
        figures["once"] = "once: exit %s in %s" % (code, ms(elapsed))

    def stream_until_gpsd_appears():
        port = free_port()
        lt = Loctrack(ctx, ["stream", "--format", "json", "127.0.0.1:%d" % port], "1-stream-waits")
        try:
            lt.wait_stderr("waiting for gpsd", 30)  # its first attempt failed: it waits from here
            cpu0, t0 = lt.cpu(), now()
            time.sleep(3.2)
            cpu_wait, waited = (lt.cpu() or 0) - (cpu0 or 0), now() - t0
            errors = lt.stderr_lines()
            r.check(len(errors) == 1 and "waiting for gpsd" in errors[0] and "127.0.0.1:%d" % port in errors[0],
                    "stream: one stderr line while gpsd is missing, naming the source and 'waiting for gpsd'",
                    short(errors))
            r.check(lt.count == 0, "stream: no output while waiting", lt.count)
            r.check(lt.running(), "stream: still running (waits, does not exit)", "exit %s" % lt.returncode)
            r.check(cpu_wait <= 0.03, "stream: no spin while waiting (CPU over %.1f s <= 30 ms)" % waited,
                    cpu_ms(cpu_wait))
            with Server(preamble() + epochs(0, 40), port=port, epoch_delay=0.1, linger=-1):
                appeared = now()
                got = lt.wait_lines(3, 8)
                first = lt.out[0][0] - appeared if lt.out else None
                # Attempts so far at 0, <=0.5, <=1.5, <=3.5 s, the next one 2-4 s after that: normally
                # within 4 s; 8 s is the bound should a loaded box have delayed this script past attempt 5.
                r.check(got and first is not None and first <= 8.5,
                        "stream: prints fixes once gpsd appears (at the next attempt of its backoff)",
                        ms(first))
                connected = [text for text in lt.stderr_lines() if "connected to gpsd" in text]
                r.check(len(connected) == 1, "stream: says once that it is connected again", short(connected))
                lt.drain(0.3, 2)
            code = lt.stop()
            r.check(code == 0, "stream: SIGTERM afterwards: exit 0", code)
            figures["stream"] = "stream: 1 stderr line and %s CPU in %.1f s without gpsd; first fix %s after gpsd appeared" % (
                cpu_ms(cpu_wait), waited, ms(first))
        finally:
            lt.stop()

    def backoff_sequence():
        port = free_port()
        lt = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % port], "1-backoff")
        try:
            cpu0 = lt.cpu() or 0.0
            # The 7th delay is the first drawn from the 30 s cap; it is announced after
            # d1+...+d6 <= 31.5 s.
            lt.wait_for(lambda: sum(1 for _, text in lt.err if "retrying in" in text) >= 7, 34)
            cpu_used = (lt.cpu() or 0.0) - cpu0
            with lt.cond:
                retries = [(stamp, parse_retry_delay(text)) for stamp, text in lt.err if "retrying in" in text]
            delays = [delay for _, delay in retries]
            r.check(len(retries) >= 7 and all(delay is not None for delay in delays),
                    "stream --verbose: one 'retrying in …' line per attempt, 7 within 34 s", len(retries))
            bad = []
            for index, delay in enumerate(delays[:7]):
                step = min(0.5 * (2 ** index), 30.0)
                # "N.D s" is cut to 100 ms, so allow 0.1 s below the lower bound.
                if delay is None or not (step / 2 - 0.1 <= delay <= step):
                    bad.append("retry %d: %s s not in [%g, %g]" % (index + 1, delay, step / 2, step))
            r.check(not bad, "backoff: retry k waits between half and all of min(0.5 s * 2^(k-1), 30 s)",
                    "; ".join(bad) or ", ".join("%g" % d for d in delays[:7]))
            gaps = []
            for (stamp, delay), (next_stamp, _) in zip(retries, retries[1:]):
                gaps.append((next_stamp - stamp, delay))
            wrong = ["%.2f s after announcing %g s" % (gap, delay) for gap, delay in gaps
                     if delay is not None and not (delay - 0.15 <= gap <= delay + 0.6)]
            r.check(not wrong, "backoff: the next attempt really comes after the announced delay", "; ".join(wrong)
                    or "%d gaps match" % len(gaps))
            r.check(cpu_used <= 0.05, "backoff: no spin (CPU over the whole wait <= 50 ms)",
                    "%s over %.0f s" % (cpu_ms(cpu_used), now() - lt.started))
            figures["backoff"] = "delays %s s (cap step 30 s), CPU %s in %.0f s" % (
                ", ".join("%g" % d for d in delays[:7] if d is not None), cpu_ms(cpu_used), now() - lt.started)
        finally:
            lt.stop()

    parallel(once_without_gpsd, stream_until_gpsd_appears, backoff_sequence)
    r.figure = "; ".join(figures[key] for key in ("once", "stream", "backoff") if key in figures)


# == fault 2: gpsd killed and restarted mid-stream ===============================================

def fault_2(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def scripted_restart():
        port = free_port()
        first = Server(preamble() + epochs(0, 29), port=port, epoch_delay=0.1, linger=-1)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "2-scripted-restart")
        second = None
        try:
            r.check(lt.wait_lines(30, 30), "scripted: 30 epochs before the kill printed", lt.count)
            killed = now()
            first.stop()
            time.sleep(1.0)  # gpsd is down: connections are refused meanwhile
            # The restarted gpsd re-reports the last 2 epochs, then continues to epoch 59.
            second = Server(preamble() + epochs(28, 59), port=port, epoch_delay=0.1, linger=-1)
            lt.wait_for(lambda: any(epoch_time(59) in text for _, text in lt.out), 30)
            lt.drain(0.3, 2)
            times = lt.fix_times()
            expected = [epoch_time(k) for k in range(60)]
            duplicates = sorted({t for t in times if times.count(t) > 1})
            r.check(times == expected, "scripted: every epoch 0..59 printed once, in order (the restarted gpsd "
                    "re-sent 28, 29)", "%d lines, duplicates %s, missing %s" % (
                        len(times), duplicates, sorted(set(expected) - set(times))[:5]))
            watch = second.clients[0].commands if second.clients else []
            r.check(any(command.startswith("?WATCH") and '"enable":false' not in command for command in watch),
                    "scripted: the WATCH is sent again on the new connection", watch)
            reconnected = (second.clients[0].connected_at - killed) if second.clients else None
            errors = lt.stderr_lines()
            waiting = [text for text in errors if "waiting for gpsd" in text]
            connected = [text for text in errors if "connected to gpsd" in text]
            r.check(len(waiting) == 1 and len(connected) == 1 and len(errors) == 2,
                    "scripted: stderr says once that gpsd went away and once that it is back", short(errors, 4))
            figures["scripted"] = "scripted: reconnected %s after the kill (gpsd down 1.0 s), %d/60 epochs, %d twice" % (
                ms(reconnected), len(set(times)), len(duplicates))
        finally:
            lt.stop()
            first.stop()
            if second:
                second.stop()

    def no_reconnect():
        server = Server(preamble() + learning_epochs(0, 9), line_delay=0.05, linger=-1)
        port = server.port
        lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % port], "2-no-reconnect")
        try:
            # Everything sent and read: epoch 9 is then still held (it may grow) when gpsd dies.
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines)
                        and lt.has_read_all_from(port), 30)
            killed = now()
            server.stop()
            code = lt.wait_exit(20)
            latency = (lt.exited_at - killed) if lt.exited_at else None
            lt.stop()
            errors = lt.stderr_lines()
            r.check(code == 69, "--no-reconnect: exit 69 when gpsd goes away", code)
            # A figure, not a bound: it exits, it does not wait for gpsd (which would be for ever).
            r.check(latency is not None, "--no-reconnect: exits (without waiting for gpsd)", ms(latency))
            r.check(len(errors) == 1 and "lost the connection" in errors[0] and "127.0.0.1:%d" % port in errors[0],
                    "--no-reconnect: one stderr line naming the source", short(errors))
            fixes = [fix for _, fix in lt.fixes()]
            r.check([fix.get("time") for fix in fixes] == [epoch_time(k) for k in range(10)]
                    and all(fix.get("mode") == 3 for fix in fixes),
                    "--no-reconnect: every epoch accepted before the loss written, the held one too (gpsd's last "
                    "TPV of each)", "%d fixes" % len(fixes))
            figures["no-reconnect"] = "--no-reconnect: exit %s %s after the kill" % (code, ms(latency))
        finally:
            lt.stop()
            server.stop()

    def gpsfake_restart():
        log = gpsfake_log(r, "skytraq-dgps.log", "real-gpsd restart")
        if log is None:
            return
        lines = log.read_text(errors="replace").splitlines(keepends=True)
        header = [line for line in lines if line.startswith("#")]
        body = [line for line in lines if not line.startswith("#")]
        starts = [index for index, line in enumerate(body) if line.startswith("$GPGGA")]
        cut = starts[35]
        workdir = Path(tempfile.mkdtemp(prefix="faults-gpsfake-", dir=str(ctx.out)))
        (workdir / "part1.log").write_text("".join(header + body[:cut]))
        (workdir / "part2.log").write_text("".join(header + body[cut:]))
        port = free_port()
        watcher: Dict[str, List[Tuple[float, dict]]] = {"1": [], "2": []}

        def start_part(part: str) -> subprocess.Popen:
            # -1: replay the log once, then gpsfake (and its gpsd) end
            return start_gpsfake(ctx, port, workdir / ("part%s.log" % part), ["-1", "-W", "10", "-c", "0.02"],
                                 workdir, "2-gpsfake%s.err" % part,
                                 lambda stamp, report: watcher[part].append((stamp, report)))

        fake1 = fake2 = None
        lt = None
        try:
            fake1 = start_part("1")
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "2-gpsfake-restart")
            started = lt.wait_lines(12, 25)
            r.check(started, "gpsfake: loctrack prints the first gpsd's fixes", lt.count)
            kill_group(fake1)
            killed = now()
            fake2 = start_part("2")
            try:
                fake2.wait(timeout=40)
            except subprocess.TimeoutExpired:
                r.check(False, "gpsfake: the second gpsfake finishes its log (within 40 s)")
            lt.drain(0.5, 3)
            fixes = lt.fixes()
            times = [fix.get("time") for _, fix in fixes]
            duplicates = sorted({t for t in times if times.count(t) > 1})
            connected_at = lt.wait_stderr("connected to gpsd", 0, after=killed)

            def is_fix(report):
                return report.get("mode", 0) >= 2 and "time" in report and "lat" in report and "lon" in report
            first_seen: Dict[str, float] = {}
            for stamp, report in watcher["2"]:
                if is_fix(report):
                    first_seen.setdefault(report["time"], stamp)
            margin = 0.15
            # From the first epoch loctrack printed after the reconnection on, by the epochs' own
            # times (not by when two processes' lines were read here): every epoch gpsd reported.
            printed_after_kill = {fix.get("time") for stamp, fix in fixes if stamp > killed}
            resumed = min(printed_after_kill & set(first_seen), default=None)
            after = sorted(t for t in first_seen if resumed is not None and t >= resumed)
            missing = [t for t in after if t not in printed_after_kill]
            r.check(connected_at is not None, "gpsfake: loctrack reconnects to the restarted gpsd",
                    "%s after the kill" % (ms(connected_at - killed) if connected_at else "never"))
            r.check(len(after) >= 10 and not missing,
                    "gpsfake: every epoch the restarted gpsd reported from loctrack's first fix after the "
                    "reconnection on is printed", "%d of %d, missing %s" % (len(after) - len(missing), len(after),
                                                                           missing[:5]))
            r.check(not duplicates, "gpsfake: no epoch printed twice", duplicates[:5])
            gpsd1 = sorted({report["time"] for stamp, report in watcher["1"]
                            if is_fix(report) and stamp < killed - margin and lt.out and stamp > lt.out[0][0]})
            lost1 = [t for t in gpsd1 if t not in set(times)]
            r.check(not lost1, "gpsfake: every epoch the first gpsd reported before the kill was printed",
                    "missing %s" % lost1[:5] if lost1 else "%d epochs" % len(gpsd1))
            figures["gpsfake"] = ("gpsfake: reconnected %s after SIGKILL of gpsfake+gpsd, %d/%d epochs after "
                                  "reconnection printed, %d twice" % (
                                      ms(connected_at - killed) if connected_at else "never",
                                      len(after) - len(missing), len(after), len(duplicates)))
        finally:
            kill_group(fake1)
            kill_group(fake2)
            if lt:
                lt.stop()
            shutil.rmtree(workdir, ignore_errors=True)

    parallel(scripted_restart, no_reconnect, gpsfake_restart)
    r.figure = "; ".join(figures[key] for key in ("scripted", "gpsfake", "no-reconnect") if key in figures)
