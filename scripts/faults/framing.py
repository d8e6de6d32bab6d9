"""Faults 4-7, what arrives on the connection: half a line then nothing, many reports in one TCP
segment, lines over libgps's 20 KB buffer and over 64 KiB, malformed reports."""

from __future__ import annotations

import json
import time
from typing import Dict, List, Optional, Tuple

from support.procfs import proc_switches

from .harness import Context, Result, Server, cpu_ms, ms, now, short
from .loctrack import Loctrack
from .reports import DEVICE, epoch_time, epochs, preamble, sky, tpv


# == fault 4: half a line, then nothing ===========================================================

def fault_4(ctx: Context, r: Result) -> None:
    lines = preamble() + epochs(0, 9, with_sky=False) + [tpv(10), tpv(11), tpv(12)]
    split_index = len(preamble()) + 10
    pause = 4.0
    with Server(lines, line_delay=0.05, pauses={split_index: pause}, split_pause=True, linger=-1) as server:
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "4-half-line")
        try:
            ok = lt.wait_for(lambda: bool(server.clients) and bool(server.clients[0].when("pause")), 10)
            r.check(ok, "the server sent half of epoch 10's TPV and paused")
            paused_at = server.clients[0].when("pause")[0] if ok else now()
            time.sleep(max(0.0, paused_at + 0.3 - now()))
            cpu0, switches0, t0 = lt.cpu(), proc_switches(lt.pid), now()
            time.sleep(max(0.0, paused_at + pause - 0.15 - now()))
            cpu1, switches1, t1 = lt.cpu(), proc_switches(lt.pid), now()
            cpu_used = (cpu1 or 0) - (cpu0 or 0)
            switches = (switches1 or 0) - (switches0 or 0)
            printed_during = [text for stamp, text in lt.out if stamp < t1]
            r.check(lt.wait_for(lambda: any(epoch_time(12) in text for _, text in lt.out), 5),
                    "the stream goes on after the pause", lt.count)
            resumed_at = server.clients[0].when("resume")[0] if server.clients[0].when("resume") else None
            completed = [stamp for stamp, text in lt.out if epoch_time(10) in text]
            latency = (completed[0] - resumed_at) if completed and resumed_at else None
            r.check(cpu_used <= 0.02, "no busy loop: CPU over %.1f s of the pause <= 20 ms" % (t1 - t0),
                    "%s, %d context switches" % (cpu_ms(cpu_used), switches))
            r.check(not any(epoch_time(10) in text for text in printed_during),
                    "the half line is not a fix before it completes", "")
            r.check(len(printed_during) == 10, "epochs 0-9 printed before the pause ended", len(printed_during))
            r.check(latency is not None and latency <= 0.3, "epoch 10 printed as soon as its line completes (<= 300 ms)",
                    ms(latency))
            times = lt.fix_times()
            r.check(times == [epoch_time(k) for k in range(13)], "every epoch printed once", len(times))
            r.figure = "CPU %s and %d context switches in %.1f s of a half line; the fix %s after the line completed" % (
                cpu_ms(cpu_used), switches, t1 - t0, ms(latency))
        finally:
            lt.stop()


# == fault 5: many reports in one TCP segment ===================================================

def fault_5(ctx: Context, r: Result) -> None:
    head = preamble()
    lines = head + epochs(0, 49, with_sky=False) + epochs(50, 99, with_sky=True)
    first_burst = len(head)
    second_burst = len(head) + 50
    pause = 3.0
    with Server(lines, burst=True, pauses={first_burst: 0.5, second_burst: pause}, linger=pause) as server:
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "5-burst")
        try:
            ok = lt.wait_for(lambda: bool(server.clients) and len(server.clients[0].when("burst")) >= 3, 10)
            r.check(ok, "the server wrote 50 TPVs in one write, then 50 TPV+SKY in one write")
            lt.wait_lines(100, pause + 1)
            bursts = server.clients[0].when("burst") if server.clients else []
            resume = server.clients[0].when("resume %d" % second_burst) if server.clients else []
            figures = []
            for label, index, sent, pause_end in (("50 TPVs (17 KB)", 50, bursts[1] if len(bursts) > 1 else None,
                                                   resume[0] if resume else None),
                                                  ("50 TPV+SKY (%d KB)" % (sum(len(x) + 1 for x in lines[second_burst:]) // 1024),
                                                   100, bursts[2] if len(bursts) > 2 else None, None)):
                got = [stamp for stamp, _ in lt.out[:index]]
                done = got[-1] if len(got) == index else None
                latency = (done - sent) if done and sent else None
                limit = (pause_end - sent) if pause_end and sent else pause
                r.check(latency is not None and latency <= 1.0 and latency < limit,
                        "%s in one write: all %d fixes printed at once (<= 1 s, before the %g s pause ends)" % (
                            label, 50, pause), ms(latency))
                figures.append("%s: last fix %s after the write" % (label, ms(latency)))
            times = lt.fix_times()
            r.check(times == [epoch_time(k) for k in range(100)], "all 100 epochs printed once, in order", len(times))
            r.figure = "; ".join(figures)
        finally:
            lt.stop()


# == fault 6: lines longer than libgps's 20 KB buffer ============================================

def fault_6(ctx: Context, r: Result) -> None:
    big_sky = sky(0, satellites=400)  # valid JSON, ~30 KB: a SKY with very many satellites
    garbage_50k = b"x" * 50_000  # over libgps's 20 KB; 25 KB arrive with no newline, then a pause
    garbage_200k = bytes((65 + (n * 7) % 26) for n in range(200_000))  # 100 KB (> 64 KiB) before any newline
    padded_tpv = tpv(15)[:-1] + b',"pad":"' + b"p" * 30_000 + b'"}'  # valid JSON TPV of ~30 KB
    good = lambda first, last: [tpv(k) for k in range(first, last + 1)]  # noqa: E731
    lines = (preamble() + good(0, 4) + [big_sky] + good(5, 7) + [garbage_50k] + good(8, 10) + [garbage_200k]
             + good(11, 14) + [padded_tpv] + good(16, 20))
    index_50k = lines.index(garbage_50k)
    index_200k = lines.index(garbage_200k)
    with Server(lines, line_delay=0.02, pauses={index_50k: 1.0, index_200k: 1.0}, split_pause=True,
                linger=-1) as server:
        lt = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % server.port], "6-long-lines")
        try:
            lt.wait_for(lambda: any(epoch_time(20) in text for _, text in lt.out), 12)
            lt.drain(0.3, 3)
            alive = lt.running()
            times = set(lt.fix_times())
            expected = [epoch_time(k) for k in range(21) if k != 15]
            missing = [t for t in expected if t not in times]
            r.check(alive and not missing, "the stream goes on: every good TPV around the long lines is a fix",
                    "missing %s" % missing if missing else "%d of %d" % (len(expected), len(expected)))
            errors = lt.stderr_lines()
            overlong = [text for text in errors if "longer than 65536" in text]
            garbage = [text for text in errors if "not a gpsd report" in text and "xxxx" in text]
            sky_reported = [text for text in errors if '"SKY"' in text]
            r.check(len(overlong) == 1, "the 200 KB line (100 KB before a pause, no newline) is detected once as "
                    "longer than 64 KiB (--verbose)", short(overlong))
            r.check(len(garbage) == 1, "the 50 KB garbage line (25 KB, pause, rest) is skipped and reported once",
                    short(garbage))
            r.check(not sky_reported, "the valid 30 KB SKY (%d bytes) is not reported as skipped" % len(big_sky),
                    short(sky_reported))
            rss = lt.status_kb("VmHWM")
            padded = epoch_time(15) in times
            r.note("a valid %d-byte TPV padded with an unknown 30 KB string key %s" % (
                len(padded_tpv), "became a fix (libgps ignores the unknown key)" if padded else
                "was not a fix: %s" % short([t for t in errors if "15.000Z" in t or "pad" in t], 1)))
            r.figure = "%d/%d good fixes around a 30 KB SKY, a 50 KB and a 200 KB line; the 200 KB line reported " \
                       "%d time(s); peak RSS %s MB" % (len(expected) - len(missing), len(expected), len(overlong),
                                                      "%.1f" % (rss / 1024) if rss else "?")
        finally:
            lt.stop()


# == fault 7: malformed input ======================================================================

def fault_7(ctx: Context, r: Result) -> None:
    """Each case is one line on its own device path /dev/caseNN, so its fate shows in stdout (device)
    and in --verbose stderr (the excerpt starts with it). Good TPVs on /dev/ttyACM0 run between them."""
    def t(k: int, device: str, body: str) -> bytes:
        return ('{"class":"TPV","device":"%s",%s' % (device, body)).encode()
    ok_fields = '"mode":3,"time":"%s","lat":38.5,"lon":-122.5,"altHAE":10.0,"eph":3.0}'
    # (name, line, expectation): "fix" a complete fix; "nofix" never a fix, reported with --verbose;
    # "nofix-quiet" never a fix, reporting optional (not malformed: a TPV that claims no fix); "note" report only.
    cases: List[Tuple[str, bytes, str]] = []

    def case(name: str, body: str, expect: str, raw: Optional[bytes] = None):
        index = len(cases)
        device = "/dev/case%02d" % index
        line = raw.replace(b"DEV", device.encode()) if raw is not None else t(index, device, body % epoch_time(1000 + index)
                                                                            if "%s" in body else body)
        cases.append((name, line, expect))

    case("truncated JSON", '"mode":3,"time":"%s","lat":38.5,"lon":-122', "nofix")
    case("truncated in a string", '"mode":3,"time":"%s","lat":38.5,"lon":-122.5,"alt', "nofix")
    case("unknown class", "", "nofix", raw=b'{"class":"FOO","device":"DEV","mode":3,"lat":38.5,"lon":-122.5}')
    case('"lat":"abc" (wrong type)', '"mode":3,"time":"%s","lat":"abc","lon":-122.5}', "nofix")
    case('"lat":[1,2] (array for a number)', '"mode":3,"time":"%s","lat":[1,2],"lon":-122.5}', "nofix")
    case('"mode":"3" (string)', '"mode":"3","time":"%s","lat":38.5,"lon":-122.5}', "nofix")
    case("lat 123 (out of range)", '"mode":3,"time":"%s","lat":123.0,"lon":-122.5}', "nofix")
    case("lon -200 (out of range)", '"mode":3,"time":"%s","lat":38.5,"lon":-200.0}', "nofix")
    case("lat NaN (bare, not JSON)", '"mode":3,"time":"%s","lat":NaN,"lon":-122.5}', "nofix")
    case('lat "NaN" (string)', '"mode":3,"time":"%s","lat":"NaN","lon":-122.5}', "nofix")
    case("lat 1e999 (infinite)", '"mode":3,"time":"%s","lat":1e999,"lon":-122.5}', "nofix")
    case("mode 9 (no such mode)", '"mode":9,"time":"%s","lat":38.5,"lon":-122.5}', "nofix")
    case("time garbage", '"mode":3,"time":"yesterday","lat":38.5,"lon":-122.5}', "nofix")
    case("no time (gpsd at start-up)", '"mode":3,"lat":38.5,"lon":-122.5}', "nofix")
    case("trailing bytes after the object", '"mode":3,"time":"%s","lat":38.5,"lon":-122.5}xyz', "nofix")
    case("not JSON at all", "", "nofix", raw=b"DEV \xff\xfe\x00garbage {{{")
    case("empty object", "", "nofix", raw=b'{}')
    case("libgps 3.22 hang input 1", "", "nofix", raw=b'{="class":"TPV","device":"DEV"')
    case("libgps 3.22 hang input 2 (nested class)", "", "nofix-quiet",
         raw=b'{"class":"TPV","device":"DEV","a":[{"class":"GST"}]}')
    case("unknown array-valued key before lat/lon", '"mode":3,"time":"%s","foo":[1,[2,{"b":3}]],"lat":38.5,'
         '"lon":-122.5,"altHAE":10.0,"eph":3.0}', "fix")
    case("unknown object-valued key", '"mode":3,"time":"%s","bar":{"x":[1]},"lat":38.5,"lon":-122.5,'
         '"altHAE":10.0,"eph":3.0}', "fix")
    case("unknown key nested 2000 deep", '"mode":3,"time":"%s","deep":' + "[" * 2000 + "]" * 2000 +
         ',"lat":38.5,"lon":-122.5,"altHAE":10.0,"eph":3.0}', "fix")
    case("control: a valid TPV", ok_fields, "fix")
    case("time in 1980 (GPS week 0)", '"mode":3,"time":"1980-01-06T00:00:00.000Z","lat":38.5,"lon":-122.5}',
         "note")
    gst = b'{"class":"GST","device":"/dev/ttyACM0","time":"2025-01-01T00:00:00.000Z","rms":2.0,"major":3.0,' \
          b'"minor":2.0,"orient":0.0,"lat":1.5,"lon":1.6,"alt":2.9}'
    lines = preamble()
    marker = 0
    for _, line, _ in cases:
        lines.append(tpv(marker))
        lines.append(line)
        marker += 1
    lines.append(gst)
    lines += [tpv(k) for k in range(marker, marker + 3)]
    last_marker = marker + 2
    with Server(lines, line_delay=0.01, linger=-1) as server:
        verbose = Loctrack(ctx, ["stream", "--verbose", "127.0.0.1:%d" % server.port], "7-malformed-verbose")
        quiet = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "7-malformed-quiet")
        try:
            for lt in (verbose, quiet):
                lt.wait_for(lambda lt=lt: any(epoch_time(last_marker) in text for _, text in lt.out), 10)
            time.sleep(1.8)  # a held one-off fix on a case's device is flushed after 1.5 s of quiet
            alive = verbose.running() and quiet.running()
            codes = [verbose.stop(), quiet.stop()]
            r.check(alive and codes == [0, 0], "no crash, no hang: both loctracks ran to the end (SIGTERM: exit 0)",
                    "exit %s" % codes)
            markers = [fix.get("time") for _, fix in verbose.fixes() if fix.get("device") == DEVICE]
            r.check(markers == [epoch_time(k) for k in range(last_marker + 1)],
                    "every good TPV between the bad lines is a fix", "%d of %d" % (len(markers), last_marker + 1))
            by_device: Dict[str, dict] = {}
            for _, fix in verbose.fixes():
                by_device.setdefault(fix.get("device", ""), fix)
            errors = verbose.stderr_lines()
            outcome_lines = []
            wrong_fix, unreported, quiet_leak = [], [], []
            for index, (name, line, expect) in enumerate(cases):
                device = "/dev/case%02d" % index
                fix = by_device.get(device)
                excerpt = line[:60].decode("utf-8", "replace")
                reported = [text for text in errors if device in text or text.endswith(": " + excerpt)]
                outcome = "FIX" if fix else "no fix"
                outcome_lines.append("%-42s -> %-6s%s" % (name, outcome, (" | reported: " + reported[0][10:90])
                                                          if reported else " | not reported"))
                if expect == "fix":
                    complete = fix is not None and fix.get("lat") == 38.5 and fix.get("lon") == -122.5 \
                        and fix.get("altHAE") == 10.0 and fix.get("eph") == 3.0
                    if not complete:
                        wrong_fix.append("%s: expected a complete fix, got %s" % (name, fix))
                elif expect.startswith("nofix"):
                    if fix is not None:
                        wrong_fix.append("%s: became a fix %s" % (name, json.dumps(fix)[:140]))
                    elif not reported and expect == "nofix":
                        unreported.append(name)
                else:
                    r.note("%s: %s%s" % (name, "accepted as a fix: " + json.dumps(fix)[:100] if fix else "no fix",
                                         " (reported: %s)" % reported[0][10:80] if reported else ""))
            for text in outcome_lines:
                r.note(text)
            r.check(not wrong_fix, "exactly the well-formed TPVs become fixes (unknown nested keys are dropped, the "
                    "rest kept); no malformed line is a fix", "; ".join(wrong_fix))
            r.check(not unreported, "--verbose reports every malformed line that is not a fix",
                    "not reported: %s" % unreported if unreported else "")
            quiet_leak = quiet.stderr_lines()
            r.check(not quiet_leak, "without --verbose nothing is printed for them", short(quiet_leak))
            gst_reports = [text for text in errors if '"GST"' in text]
            r.check(not any("not a gpsd report" in text for text in gst_reports),
                    "a report of a gpsd class loctrack does not use (GST) is not called 'not a gpsd report'",
                    short(gst_reports, 1))
            bad = [i for i, (_, _, e) in enumerate(cases) if e.startswith("nofix")]
            must_report = sum(1 for _, _, e in cases if e == "nofix")
            r.figure = ("%d malformed lines: %d became fixes, %d of %d reported with --verbose (0 without); "
                        "%d/%d good fixes; 3 valid TPVs with unknown nested keys: %d fixes" % (
                            len(bad), sum(1 for i in bad if "/dev/case%02d" % i in by_device),
                            must_report - len(unreported), must_report, len(markers), last_marker + 1,
                            sum(1 for i, (n, _, e) in enumerate(cases) if e == "fix" and "unknown" in n
                                and "/dev/case%02d" % i in by_device)))
        finally:
            verbose.stop()
            quiet.stop()
