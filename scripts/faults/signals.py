"""Fault 10: SIGINT and SIGTERM while streaming, waiting for gpsd, after gpsd died, while connecting,
in once, and with stdout stalled: the exit code, what is written, and how fast it exits."""

from __future__ import annotations

import signal
import time
from typing import Callable, List, Optional, Tuple

from support.processes import free_port, kill_group
from support.procfs import sockets_to

from .flood import start_flood
from .harness import Context, Result, Server, Unresponsive, load_average, ms, parallel
from .loctrack import Loctrack
from .reports import epoch_time, learning_epochs, preamble

SIGNAL_EXIT_LIMIT = 0.200  # seconds from SIGINT/SIGTERM to exit (issue item 10)


# == fault 10: SIGINT / SIGTERM =========================================================================

def timed_signal(r: Result, label: str, make: Callable[[], Tuple["Loctrack", Callable[[], None]]],
                 number: int, expect_code: int, verify: Optional[Callable[["Loctrack"], Tuple[bool, str, str]]] = None,
                 attempts: int = 3, exit_wait: float = 5.0) -> Optional[float]:
    """Starts a loctrack with make() (which returns it and a cleanup), signals it, measures signal -> exit.
    A latency over the limit is retried (a loaded box); every attempt's figure is reported."""
    figures = []
    best = None
    for attempt in range(attempts):
        lt, cleanup = make()
        try:
            sent = lt.send_signal(number)
            code = lt.wait_exit(exit_wait)
            latency = (lt.exited_at - sent) if lt.exited_at else None
            lt.stop(timeout=0.5)
            if attempt == 0 or code != expect_code:
                r.check(code == expect_code, "%s: exit %d" % (label, expect_code), code)
            if verify and attempt == 0:
                ok, what, observed = verify(lt)
                r.check(ok, "%s: %s" % (label, what), observed)
            figures.append(ms(latency))
            if latency is not None and (best is None or latency < best):
                best = latency
            if latency is not None and latency <= SIGNAL_EXIT_LIMIT:
                break
        finally:
            cleanup()
            lt.stop()
    note = "" if len(figures) == 1 else " (attempts %s, load %s)" % (", ".join(figures), load_average())
    r.check(best is not None and best <= SIGNAL_EXIT_LIMIT, "%s: exit within 200 ms of the signal" % label,
            ms(best) + note)
    return best


def fault_10(ctx: Context, r: Result) -> None:
    results: List[str] = []  # appended from several threads (list.append is atomic)

    def streaming(number: int):
        holder = {}

        def make():
            # Two TPVs per epoch: loctrack holds the newest epoch (it may still grow) when the signal comes.
            server = Server(preamble() + learning_epochs(0, 9), line_delay=0.03, linger=-1)
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "10-streaming-%s" % signal.Signals(number).name)
            # All sent and read (nothing left in loctrack's socket); epoch 9 is then still held (the
            # quiet flush is at 1.5 s; the verdict does not depend on it, the note says whether it was).
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines)
                        and lt.has_read_all_from(server.port), 30)
            holder["server"] = server
            holder["held_before"] = epoch_time(9) not in "".join(text for _, text in lt.out)
            return lt, server.stop

        def verify(lt: Loctrack):
            fixes = [fix for _, fix in lt.fixes()]
            server = holder["server"]
            commands = server.clients[0].commands if server.clients else []
            unwatched = any('"enable":false' in command for command in commands)
            ok = ([fix.get("time") for fix in fixes] == [epoch_time(k) for k in range(10)]
                  and fixes[-1].get("mode") == 3 and unwatched)
            return ok, "every accepted fix written, including the held epoch 9 (gpsd's last TPV of it), and the " \
                       "watch closed (?WATCH enable:false)", "%d fixes, epoch 9 held at the signal: %s, commands %s" % (
                           len(fixes), holder["held_before"], commands)
        best = timed_signal(r, "streaming, %s" % signal.Signals(number).name, make, number, 0, verify)
        results.append("streaming %s %s" % (signal.Signals(number).name, ms(best)))

    def waiting(number: int):
        def make():
            port = free_port()
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-waiting-%s" % signal.Signals(number).name)
            lt.wait_stderr("waiting for gpsd", 30)
            time.sleep(0.6)  # in the middle of a backoff sleep
            return lt, lambda: None
        best = timed_signal(r, "waiting for gpsd, %s" % signal.Signals(number).name, make, number, 0)
        results.append("waiting %s %s" % (signal.Signals(number).name, ms(best)))

    def gpsd_dead(number: int):
        holder = {}

        def make():
            port = free_port()
            server = Server(preamble() + learning_epochs(0, 4), port=port, line_delay=0.03, linger=-1)
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-gpsd-dead-%s" % signal.Signals(number).name)
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].lines_sent >= len(server.fake.lines)
                        and lt.has_read_all_from(port), 30)
            server.stop()
            lt.wait_stderr("waiting for gpsd", 30)
            time.sleep(0.7)
            holder["lt"] = lt
            return lt, lambda: None

        def verify(lt: Loctrack):
            times = lt.fix_times()
            noticed = any("waiting for gpsd" in text for text in lt.stderr_lines())
            return times == [epoch_time(k) for k in range(5)] and noticed, \
                "loctrack had noticed gpsd die, and the fixes from before are all written", \
                "%d fixes, 'waiting for gpsd' on stderr: %s" % (len(times), noticed)
        best = timed_signal(r, "gpsd dead, %s" % signal.Signals(number).name, make, number, 0, verify)
        results.append("gpsd dead %s %s" % (signal.Signals(number).name, ms(best)))

    def connecting(number: int):
        holder = {}

        def make():
            peer = Unresponsive()
            holder["peer"] = peer
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % peer.port], "10-connecting-%s" % signal.Signals(number).name)
            # Blocked in connect() (gps_open): its SYN unanswered.
            lt.wait_for(lambda: any(row[3] == "02" for row in sockets_to(lt.pid, peer.port)), 30)
            return lt, peer.close
        best = timed_signal(r, "connecting to an unresponsive gpsd host, %s" % signal.Signals(number).name, make,
                            number, 0, attempts=1, exit_wait=3.0)
        results.append("connecting %s %s" % (signal.Signals(number).name, ms(best) if best is not None else
                                             "no exit within 3 s"))

    def stalled_stdout():
        # stdout's reader has stopped: the first SIGTERM waits to write what is queued (every accepted
        # fix is written); a second one ends loctrack at once with 143.
        flood, port = start_flood(ctx, 20_000, 2000, 1, linger=60)
        lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % port], "10-stalled-stdout", store=False)
        try:
            lt.wait_lines(1, 30)
            lt.stall()
            # The pipe is full: loctrack's writer sleeps in write(), lines queue up in loctrack.
            r.check(lt.wait_for(lt.blocked_writing, 30), "stdout stalled: loctrack blocked writing to the full pipe",
                    "%d bytes unread in the pipe" % lt.stdout_unread())
            lt.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            still = lt.running()
            sent = lt.send_signal(signal.SIGTERM)
            code = lt.wait_exit(5)
            latency = (lt.exited_at - sent) if lt.exited_at else None
            r.check(still and code == 143 and latency is not None and latency <= SIGNAL_EXIT_LIMIT,
                    "stdout stalled: the first SIGTERM waits to write the queued fixes, a second exits 143 within "
                    "200 ms", "running after the first: %s, exit %s %s after the second" % (still, code, ms(latency)))
            results.append("second SIGTERM (stdout stalled) %s" % ms(latency))
        finally:
            lt.resume()
            lt.stop()
            kill_group(flood)

    def once(number: int, code: int):
        def make():
            server = Server(preamble(), linger=-1)  # gpsd up, no fix
            lt = Loctrack(ctx, ["once", "--timeout", "10", "127.0.0.1:%d" % server.port],
                          "10-once-%s" % signal.Signals(number).name)
            lt.wait_for(lambda: bool(server.clients) and server.clients[0].watched, 30)
            return lt, server.stop
        best = timed_signal(r, "once waiting for a fix, %s" % signal.Signals(number).name, make, number, code)
        results.append("once %s %s" % (signal.Signals(number).name, ms(best)))

    # Four light scenarios side by side (nothing else runs meanwhile: this fault runs alone);
    # within each, one signal at a time.
    parallel(lambda: [streaming(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: [waiting(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: [gpsd_dead(number) for number in (signal.SIGINT, signal.SIGTERM)],
             lambda: (once(signal.SIGINT, 130), once(signal.SIGTERM, 143), connecting(signal.SIGTERM)),
             stalled_stdout)
    order = ["streaming", "waiting", "gpsd dead", "once", "second", "connecting"]
    results.sort(key=lambda text: (next(i for i, key in enumerate(order) if text.startswith(key)), text))
    r.figure = "signal -> exit: " + ", ".join(results)
