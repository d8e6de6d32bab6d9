"""Fault 3: the peer is not gpsd (silent, another banner, an NMEA talker), never answers, or closes
at once."""

from __future__ import annotations

import time
from typing import Dict, Optional, Sequence, Tuple

from support.procfs import sockets_to

from .harness import Context, Result, Server, Unresponsive, cpu_ms, ms, now, parallel, short
from .loctrack import Loctrack


def connected_at(server: Server, lt: Loctrack) -> float:
    """When loctrack's first connection to the server was accepted: the moment its timings (the 2 s
    banner wait, the backoff) start from; the spawn when it never connected."""
    clients = list(server.clients)
    return clients[0].connected_at if clients else lt.started


def fault_3(ctx: Context, r: Result) -> None:
    figures: Dict[str, str] = {}
    nmea = (b"$GPGGA,213121.000,4404.1295864,N,12118.8685453,W,2,07,1.2,1102.537,M,-20.300,M,,0000*5F\r\n")

    def once_against(kind: str, not_gpsd: Optional[bytes], chatter: Optional[float], send_banner: bool,
                     limit: Tuple[float, float], message, extra: Sequence[str] = ()):
        with Server([], not_gpsd=not_gpsd, chatter=chatter, send_banner=send_banner) as server:
            lt = Loctrack(ctx, ["once", "--timeout", "10"] + list(extra) + ["127.0.0.1:%d" % server.port],
                          "3-once-" + kind)
            code = lt.wait_exit(30)
            lt.stop()
            elapsed = (lt.exited_at or now()) - connected_at(server, lt)
            errors = lt.stderr_lines()
            r.check(code == 69 and limit[0] <= elapsed <= limit[1],
                    "%s: once exits 69 %g-%g s after it connected" % (kind, limit[0], limit[1]),
                    "exit %s after %s" % (code, ms(elapsed)))
            messages = (message,) if isinstance(message, str) else message
            r.check(len(errors) == 1 and any(text in errors[0] for text in messages),
                    "%s: one clear stderr line (%s)" % (kind, " or ".join("'%s'" % text for text in messages)),
                    short(errors))
            figures[kind] = "%s: exit %s in %s" % (kind, code, ms(elapsed))

    def no_reconnect_against(kind: str, not_gpsd: bytes, chatter: Optional[float]):
        with Server([], not_gpsd=not_gpsd, chatter=chatter) as server:
            lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % server.port], "3-noreconnect-" + kind)
            code = lt.wait_exit(30)
            lt.stop()
            elapsed = (lt.exited_at or now()) - connected_at(server, lt)
            r.check(code == 69 and elapsed <= 3.0, "%s: stream --no-reconnect exits 69 within 3 s of its connection" % kind,
                    "exit %s after %s" % (code, ms(elapsed)))

    def stream_retries(kind: str, seconds: float, attempts: Tuple[int, int], **options):
        with Server([], **options) as server:
            lt = Loctrack(ctx, ["stream", "127.0.0.1:%d" % server.port], "3-stream-" + kind)
            try:
                # The window starts at its first connection (not at the spawn: a loaded machine may
                # take long to start a process).
                lt.wait_for(lambda: bool(server.clients), 30)
                first = connected_at(server, lt)
                cpu0 = lt.cpu() or 0.0
                time.sleep(max(0.0, first + seconds - now()))
                cpu_used = (lt.cpu() or 0.0) - cpu0
                stamps = [client.connected_at for client in list(server.clients) if client.connected_at <= first + seconds]
                count = len(stamps)
                gaps = [b - a for a, b in zip(stamps, stamps[1:])]
                errors = lt.stderr_lines()
                r.check(lt.running() and attempts[0] <= count <= attempts[1],
                        "%s: stream keeps retrying with backoff: %d-%d connections in %g s" % (
                            kind, attempts[0], attempts[1], seconds),
                        "%d connections, gaps %s s" % (count, ", ".join("%.2f" % gap for gap in gaps)))
                r.check(cpu_used is not None and cpu_used <= 0.05, "%s: no spin (CPU <= 50 ms in %g s)" % (kind, seconds),
                        cpu_ms(cpu_used))
                r.check(len(errors) == 1 and "waiting for gpsd" in errors[0],
                        "%s: one stderr line, no flood" % kind, short(errors))
                r.check(lt.count == 0, "%s: no output" % kind, lt.count)
                figures["stream-" + kind] = "stream vs %s: %d connections in %g s, CPU %s" % (
                    kind, count, seconds, cpu_ms(cpu_used))
            finally:
                lt.stop()

    def unresponsive_host():
        # The TCP handshake never completes (SYNs dropped): no banner within 2 s either.
        with Unresponsive() as peer:
            lt = Loctrack(ctx, ["stream", "--no-reconnect", "127.0.0.1:%d" % peer.port], "3-unresponsive")
            # Timed from its SYN (its socket in SYN_SENT), not from the spawn.
            lt.wait_for(lambda: lt.exited_at is not None
                        or any(row[3] == "02" for row in sockets_to(lt.pid, peer.port)), 30)
            syn_at = now()
            code = lt.wait_exit(30)
            elapsed = (lt.exited_at or now()) - syn_at
            errors = lt.stderr_lines()
            lt.stop()
            r.check(code == 69 and elapsed <= 4.0,
                    "unresponsive host (connect never completes): stream --no-reconnect gives up with 69 "
                    "within 4 s (no banner within 2 s)",
                    "exit %s after %s%s, stderr %s" % (code, ms(elapsed), "" if code is not None else
                                                       " (still connecting: killed)", short(errors)))
            figures["unresponsive"] = "unresponsive host: %s" % (
                "exit %s in %s" % (code, ms(elapsed)) if code is not None else "no exit in 30 s")

    parallel(
        unresponsive_host,
        lambda: once_against("silent peer", b"", None, True, (1.8, 3.0), "is not gpsd: no VERSION banner within 2 s"),
        lambda: once_against("ssh-like banner", b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n", None, True,
                             (1.8, 3.0), "is not gpsd"),
        # An NMEA-over-TCP talker (e.g. a ser2net port): never a VERSION, but a line every 0.25 s.
        lambda: once_against("chatty NMEA talker", nmea, 0.25, True, (1.8, 3.0), "is not gpsd"),
        lambda: no_reconnect_against("chatty NMEA talker", nmea, 0.25),
        # The same talker writing as fast as loctrack reads: data is always waiting, yet no banner.
        lambda: once_against("flooding NMEA talker", nmea * 700, 0, True, (1.8, 4.0), "is not gpsd"),
        # gpsd out of client slots closes at once; loctrack's ?WATCH may already be on its way, so the close
        # reaches loctrack as a FIN or as a RST: either message is clear.
        lambda: once_against("accept-and-close", None, None, False, (0.0, 1.0),
                             ("closed before sending a VERSION", "Connection reset by peer")),
        # Each attempt waits 2 s for the banner, then 0.25-0.5 s, 0.5-1 s, …: 3-4 connections in 8 s.
        lambda: stream_retries("silent peer", 8.0, (3, 4), not_gpsd=b""),
        # Attempts at 0, 0.25-0.5, 0.75-1.5, 1.75-3.5, 3.75-7.5 s: 4-5 connections in 6 s.
        lambda: stream_retries("accept-and-close", 6.0, (4, 5), send_banner=False),
    )
    order = ["silent peer", "ssh-like banner", "chatty NMEA talker", "flooding NMEA talker", "accept-and-close",
             "unresponsive", "stream-silent peer",
             "stream-accept-and-close"]
    r.figure = "; ".join(figures[key] for key in order if key in figures)
