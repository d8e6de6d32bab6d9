#!/usr/bin/env python3
"""fake_gpsd: the scripted gpsd (scripts/support/scripted_gpsd.py) as a command.

Replays a recorded gpsd JSON-lines file (e.g. everything `gpspipe -w` printed) byte for
byte to each client after its ?WATCH, then hangs up (FIN; --reset: RST; --linger: stays
connected and silent). Prints the port it listens on as one line on stdout, then serves
until --max-clients clients have come and gone, SIGINT/SIGTERM, or --timeout seconds
(default 3600; then a message on stderr and exit 1).

Fault options (none changes the default replay): --pause N:S stays silent S seconds after
N replay lines (a receiver that goes quiet; with --split-pause the next line is cut in two
around the pause: half a line, then nothing), --burst sends the lines between pauses in
one write (many reports in one TCP segment), --not-gpsd TEXT greets with TEXT instead of
a VERSION banner and then says nothing more or, with --chatter S, repeats TEXT every S
seconds (a peer that is not gpsd), --poll-tpv LINE is the TPV that ?POLL answers before
the replay has sent one (gpsd's last fix of a receiver that has since gone silent).

  fake_gpsd.py [--host 127.0.0.1] [--port 0] [--port-file F] [--timeout S]
               [--line-delay S] [--epoch-delay S]
               [--hangup-after N] [--partial-line] [--reset] [--linger S]
               [--no-banner] [--no-watch] [--max-clients N] [-v]
               [--pause N:S ...] [--split-pause] [--burst]
               [--not-gpsd TEXT [--chatter S]] [--poll-tpv LINE] FILE

In Python, import the server itself: `from support.scripted_gpsd import FakeGpsd`
(scripts/ on sys.path).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, for support/
from support.scripted_gpsd import FakeGpsd, serve_command_line  # noqa: E402


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description="A scripted gpsd: replays a gpsd JSON-lines file to each client after its ?WATCH.")
    parser.add_argument("file", help="JSON lines to replay ('-' = stdin), e.g. NAME.log.gpsd.jsonl")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: a free one, printed on stdout)")
    parser.add_argument("--port-file", help="also write the port to this file once listening")
    parser.add_argument("--banner", help="VERSION line to send on connect (default: the file's first "
                        "line if it is a VERSION report, else gpsd 3.22's)")
    parser.add_argument("--line-delay", type=float, default=0.0, metavar="S", help="sleep S seconds between lines")
    parser.add_argument("--epoch-delay", type=float, default=0.0, metavar="S",
                        help="sleep S seconds before each TPV with a new time")
    parser.add_argument("--hangup-after", type=int, metavar="N", help="hang up after N replay lines")
    parser.add_argument("--partial-line", action="store_true",
                        help="with --hangup-after: send half of the next line (no newline) first")
    parser.add_argument("--reset", action="store_true", help="hang up with TCP RST instead of FIN")
    parser.add_argument("--linger", type=float, metavar="S",
                        help="after the last line stay connected and silent S seconds (-1: until the client closes)")
    parser.add_argument("--no-banner", action="store_true", help="accept and close at once (gpsd out of slots)")
    parser.add_argument("--no-watch", action="store_true", help="replay right after the banner, without ?WATCH")
    parser.add_argument("--max-clients", type=int, metavar="N", help="exit after serving N clients")
    parser.add_argument("--timeout", type=float, default=3600, metavar="S",
                        help="stop (exit 1) after serving S seconds (default 3600)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log connections to stderr")
    parser.add_argument("--pause", action="append", default=[], metavar="N:S",
                        help="after N replay lines stay connected and silent S seconds (repeatable)")
    parser.add_argument("--split-pause", action="store_true",
                        help="with --pause: send half of the next line before the pause, the rest after it")
    parser.add_argument("--burst", action="store_true",
                        help="write the lines between pauses with one write (delays are not applied)")
    parser.add_argument("--not-gpsd", metavar="TEXT",
                        help="greet with TEXT (\\n and \\r understood; '' = nothing) instead of a VERSION "
                        "banner and answer nothing: a peer that is not gpsd")
    parser.add_argument("--chatter", type=float, metavar="S", help="with --not-gpsd: repeat TEXT every S seconds (0: as fast as the client reads)")
    parser.add_argument("--poll-tpv", metavar="LINE",
                        help="the TPV that ?POLL answers before the replay has sent one")
    args = parser.parse_args(argv)
    pauses = {}
    for spec in args.pause:
        try:
            after, seconds = spec.split(":", 1)
            pauses[int(after)] = float(seconds)
        except ValueError:
            parser.error("--pause wants N:S, e.g. 10:4.5, not %r" % spec)

    options = dict(host=args.host, port=args.port, line_delay=args.line_delay, epoch_delay=args.epoch_delay,
                   hangup_after=args.hangup_after, partial_line=args.partial_line, reset=args.reset,
                   linger=args.linger, send_banner=not args.no_banner, require_watch=not args.no_watch,
                   max_clients=args.max_clients, pauses=pauses, split_pause=args.split_pause, burst=args.burst,
                   not_gpsd=(args.not_gpsd.replace("\\r", "\r").replace("\\n", "\n").encode()
                             if args.not_gpsd is not None else None),
                   chatter=args.chatter, poll_tpv=args.poll_tpv.encode() if args.poll_tpv else None,
                   log=(lambda message: print(message, file=sys.stderr, flush=True)) if args.verbose else None)
    if args.banner is not None:
        options["banner"] = args.banner.encode()
    try:
        server = FakeGpsd.from_file(args.file, **options)
    except OSError as error:
        print("fake_gpsd: %s" % error, file=sys.stderr)
        return 66
    return serve_command_line(server, args.timeout, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
