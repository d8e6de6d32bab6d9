#!/usr/bin/python3
"""The Python gps client of loctrack's benchmarks: gpsd's own Python module (Debian
package python3-gps), used the way its documentation shows.

Opens a watch (WATCH_ENABLE | WATCH_JSON), reads report after report with
session.read(), and prints "TIME LAT LON" for each TPV with mode >= 2. stdout
is flushed when nothing more is waiting, as the C client flushes once per
wake-up: a burst costs one write, a lone fix is out at once.

Usage: gps_client.py [--once] [HOST:PORT]     (default 127.0.0.1:2947)
  --once   exit 0 after the first TPV with mode >= 2.
Exit: 0 when gpsd closes the connection (or after --once's fix); 1 on errors.
"""
import sys

import gps


def main() -> int:
    once = "--once" in sys.argv[1:]
    sources = [a for a in sys.argv[1:] if a != "--once"]
    host, _, port = (sources[0] if sources else "127.0.0.1:2947").rpartition(":")
    try:
        session = gps.gps(host=host or "127.0.0.1", port=int(port or 2947),
                          mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
    except OSError as error:
        print(f"gps_client: {error}", file=sys.stderr)
        return 1
    out = sys.stdout
    while session.read() == 0:
        # read() returns 0 for a partial line too and leaves the last report in place:
        # only a fresh, complete TPV sets PACKET_SET (cleared below, as the C client clears set).
        if session.valid & gps.PACKET_SET and session.data.get("class") == "TPV" and session.fix.mode >= 2:
            out.write(f"{session.fix.time} {session.fix.latitude:.9f} {session.fix.longitude:.9f}\n")
            if once:
                out.flush()
                return 0
        session.valid = 0
        if not session.waiting():
            out.flush()
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
