"""Fault 8: the receiver goes silent, gpsd loses the device; once --max-age against gpsd's stale fix."""

from __future__ import annotations

import time
from typing import Dict

from .harness import Context, Result, Server, ms, now, parallel, short
from .loctrack import Loctrack
from .reports import DEVICE, epoch_time, epochs, iso, preamble, tpv


# == fault 8: device lost, receiver silent, --max-age ============================================

def fault_8(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}

    def stream_silence_and_device_loss():
        lost = ('{"class":"DEVICE","path":"%s","activated":0}' % DEVICE).encode()
        back = preamble()[2]
        lines = preamble() + epochs(0, 9)          # 10 epochs, then the receiver goes silent for 7 s
        silent_at = len(lines)
        lines += epochs(10, 14)                     # resumes
        lost_at = len(lines)
        lines += [lost, lost]                        # gpsd reports the device lost (twice), then silence
        back_at = len(lines)
        lines += [back] + epochs(15, 19)
        with Server(lines, epoch_delay=0.1, pauses={silent_at: 7.0, lost_at + 1: 0.5, back_at: 6.5},
                    linger=-1) as server:
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "8-silence-device-lost")
            try:
                done = lt.wait_for(lambda: any(epoch_time(19) in text for _, text in lt.out), 30)
                lt.drain(0.3, 2)
                r.check(done, "the stream resumes when data returns (every time)", lt.count)
                client = server.clients[0]
                silence_start = client.when("pause %d" % silent_at)[0]
                lost_sent = client.when("pause %d" % (lost_at + 1))[0] - 0.0
                back_sent = client.when("resume %d" % back_at)[0]
                errors = lt.stderr_lines()
                with lt.cond:
                    stamped = list(lt.err)
                no_fix = [(stamp, text) for stamp, text in stamped if "no fix from gpsd" in text]
                resumed = [(stamp, text) for stamp, text in stamped if "fixes resumed" in text]
                lost_lines = [(stamp, text) for stamp, text in stamped if "lost device" in text]
                last_fix_before = max((stamp for stamp, text in lt.out if stamp < silence_start + 0.5), default=None)
                first_silence = (no_fix[0][0] - last_fix_before) if no_fix and last_fix_before else None
                r.check(first_silence is not None and 4.8 <= first_silence <= 6.0,
                        "silent receiver: 'no fix from gpsd for 5 s' about 5 s after the last fix",
                        "%s after it" % ms(first_silence))
                lost_delay = (lost_lines[0][0] - lost_sent) if lost_lines else None
                r.check(len(lost_lines) == 1 and lost_delay is not None and lost_delay <= 1.0,
                        "device lost: reported once (gpsd said it twice), within 1 s",
                        "%d lines, %s after DEVICE activated:0" % (len(lost_lines), ms(lost_delay)))
                r.check(lost_lines and DEVICE in lost_lines[0][1], "the report names the device",
                        lost_lines[0][1] if lost_lines else "")
                r.check(len(no_fix) == 2, "'no fix' once per silence (2 silences: 7 s, then 7 s after the loss)",
                        short([text for _, text in no_fix]))
                r.check(len(resumed) == 2 and all(stamp > back_sent - 8 for stamp, _ in resumed),
                        "'fixes resumed' once each time fixes return", short([text for _, text in resumed]))
                times = lt.fix_times()
                r.check(times == [epoch_time(k) for k in range(20)], "every epoch printed once", len(times))
                unexpected = [text for text in errors if not any(key in text for key in
                                                               ("no fix from gpsd", "fixes resumed", "lost device"))]
                r.check(not unexpected, "nothing else on stderr", short(unexpected))
                figures["stream"] = "device loss reported %s after gpsd's DEVICE, silence after %s; resumed each time" % (
                    ms(lost_delay), ms(first_silence))
            finally:
                lt.stop()

    def once_max_age(label: str, age: float, max_age: str, expect_code: int, limit: float):
        # gpsd's last fix is `age` seconds old by its own clock; the receiver has since gone silent
        # (the replay sends only the preamble, then nothing). ?POLL answers with that fix.
        stale = tpv(0, when=iso(time.time() - age))
        with Server(preamble(), poll_tpv=stale, linger=-1) as server:
            lt = Loctrack(ctx, ["once", "--max-age", max_age, "--timeout", "2", "127.0.0.1:%d" % server.port],
                          "8-once-" + label.replace(" ", "-"))
            code = lt.wait_exit(20)
            lt.stop()
            # Timed from its connection to gpsd, not from the spawn: how long a loaded machine takes
            # to start a process is not the promise.
            connected = server.clients[0].connected_at if server.clients else lt.started
            elapsed = (lt.exited_at or now()) - connected
            r.check(code == expect_code and elapsed <= limit,
                    "once --max-age %s, gpsd's fix %gs old: %s" % (
                        max_age, age, "exit 0 with it at once" if expect_code == 0 else "never printed; exit 75 at --timeout"),
                    "exit %s %s after it connected, stdout %s" % (code, ms(elapsed), short([text for _, text in lt.out], 1)))
            figures[label] = "%s: exit %s in %s" % (label, code, ms(elapsed))

    parallel(stream_silence_and_device_loss,
             lambda: once_max_age("10 s old", 10.0, "2", 75, 2.6),
             lambda: once_max_age("1 s old", 1.0, "2", 0, 0.5),
             lambda: once_max_age("fresh, max-age 0", 0.2, "0", 75, 2.6))
    r.figure = "; ".join(figures[key] for key in ("stream", "10 s old", "1 s old", "fresh, max-age 0") if key in figures)
