#!/usr/bin/env python3
"""loctrack's benchmark driver (`make bench`, `make bench-smoke`).

Runs loctrack and the clients it is measured against on the same workloads, alternating
their order round by round, and prints a table of medians with loctrack's ratio to the C
client (computed round by round, then the median taken) and the issue's targets. Python 3
standard library only; Linux only (/proc, pidfd). The parts live in Benchmarks/bench/.

Clients (bench/clients.py): loctrack (`stream --format json`, `once`), the C libgps client
(Benchmarks/c-client/gpsclient.c), its Swift port (Benchmarks/swift-client/), `gpspipe -w`,
the pipeline `gpspipe -w | jq -c .`, and gpsd's Python module (Benchmarks/python-client/gps_client.py, Debian's python3-gps). A
client whose tool is not installed is left out with a note; in a smoke run (`make bench-smoke`, which
installs every tool) that is a failure.

Workloads:
  flood-tpv  N TPV reports as fast as the client reads (scripts/support/flood_gpsd.c -t):
             loctrack's own cost per fix.
  flood-sky  N epochs of TPV + a 1.35 KB SKY: what gpsd sends.
             Each flood: wall time (spawn to exit), CPU per fix (wait4: user, sys), peak RSS
             (ru_maxrss), peak private memory (RssAnon sampled); a pipeline sums its
             processes. Every client must print exactly N fixes, and loctrack's output, less
             its own `stationary` field, must equal the C client's byte for byte.
  steady     1 Hz and 10 Hz, the one-process clients at once on paced emulators: CPU per
             second, wakeups per fix, latency; and an idle watch: wakeups per second.
  once       process start to exit on a real gpsd fed 1 Hz NMEA through a pty: warm (device
             open, a fix, gpspipe attached) and cold (gpsd as Debian starts it, without -n,
             no client: the device opens at the client's WATCH).
  long       loctrack alone, 1,000,000 epochs: private memory and VmHWM at 100,000 fixes,
             half-way and at the end.
  monitor    `loctrack monitor run` with 10,000 polygons around the flood's track (and with
             0 conditions, 1 circle) against `loctrack stream`, both floods: the figures of
             the floods, events printed, the `monitor add --geojson` time; target: CPU per
             fix ≤ 2 × stream. Events must be identical round by round (bench/monitor.py).
  record     `loctrack stream --output FILE` (GPX, JSON) against `stream > FILE` and gpsd's
             gpxlogger, both floods: wall, CPU per fix, memory, file size; every file must
             hold every fix; and how many GPX files are whole after a SIGKILL mid-flood
             (bench/record.py).
  publish    `loctrack stream --publish mqtt://127.0.0.1:PORT/bench --qos 1` against `loctrack
             stream --format json | mosquitto_pub -l -q 1`, both floods, into a local mosquitto:
             end-to-end time, messages/s, CPU per message (loctrack, mosquitto_pub, broker),
             memory; target: at least as fast. A subscriber checks every message arrived, in
             order (bench/publish.py).
  udp        `loctrack stream --publish udp://127.0.0.1:PORT` (NMEA 0183, and with --format json)
             against gpsd's `gps2udp -t`, both floods, into a UDP socket of the driver's: wall,
             CPU per fix, memory, datagrams received (loopback drops what the driver reads too
             slowly); each sender must exit as expected and send what it says (bench/udp.py).
  fleet      50 loctrack processes at 10 Hz for 30 s, each on its own emulator, publishing to
             fleet/devNN of one mosquitto: messages/s, broker CPU, CPU and memory per process;
             every fix of every device must arrive, in order (bench/fleet.py).
             Both need mosquitto and mosquitto-clients (`make bench` installs them); without them they are
             left out with a note (a smoke run fails). A loctrack without `stream --publish` fails both.
  serve-sse  100 event streams on `loctrack serve` at 10 Hz: CPU per delivered event, latency from
             the emulator's write to a stream's receipt (p50, p99), memory; then 90 reading and 10
             stalled streams at 100 Hz with big SKYs: memory stays bounded, the 10 are cut off
             (bench/serve.py).
  traccar    a backlog of 10,000 fixes drained to the Traccar stand-in (scripts/support/traccar_standin.py)
             by `loctrack stream --publish http://…`, by curl given the same requests on one keep-alive
             connection, and by curl started once per position in a shell loop (1,000): positions per
             second, CPU per position, and how busy the stand-in was (its ceiling); and `stream` with
             --odometer against without on both floods, CPU per fix (bench/traccar.py). A loctrack whose
             stream --help lacks http:// or --odometer fails the part (curl's rows are still measured).
  trips      `loctrack trips` on a day of recorded JSON lines (86,400 TPV lines) and on a GPX of 100,000
             points, one fixed-seed drive (bench/drive.py), against gpxpy (parse, length_2d, get_moving_data;
             PyPI, in .build-bench/venv, which the part makes) on the GPX and a json.loads + haversine loop
             on the JSON lines: wall time, CPU, peak RSS; target: the day in ≤ 0.2 s (bench/trips.py).
             Needs loctrack-trips beside loctrack (`make bench-build`; without it the part fails).
  serve-day  86,400 fixes (a day at 1 Hz) kept by `loctrack serve`, the page loaded in headless
             Chromium: its loadMs (target 1 s) and JavaScript heap (target 100 MB).
  serve-tiles  tiles from an MBTiles file by `loctrack serve --tiles-file` against nginx (nginx-light)
             serving the same tiles as files, wrk with 8 connections walking a list of tile paths, 10 s a
             run: tiles per second and p99 (targets: at least half of nginx's rate, p99 ≤ 20 ms) on
             a hot list (400 tiles, within loctrack's cache) and a wide one (20,000), VmRSS after each
             run, and the live feed's latency meanwhile (bench/tiles.py).
             The three need loctrack-serve next to loctrack (`make serve`; without it they fail), serve-day
             also chromium, chromium-driver and python3-selenium, serve-tiles wrk and nginx-light (`make
             bench` installs them; without them they are left out with a note, and a smoke run fails).

Usage: run.py [--smoke] [--rounds N] [--only flood,steady,once,once-warm,once-cold,long,monitor,record,publish,fleet,trips,serve,serve-tiles] ...
       (run.py --help lists every option)
Exit status: 0 when every run completed and every correctness check passed (missed targets
and timing-dependent oddities on a loaded machine are reported, not failed), 1 otherwise: also
when a part's feature is missing from loctrack, and, in a smoke run, when a tool is.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(1, os.path.join(ROOT, "scripts"))  # the helpers the test scripts share: scripts/support

from bench import broker  # noqa: E402 (after the path)
from support import processes  # noqa: E402
from bench.clients import make_clients  # noqa: E402
from bench import findings  # noqa: E402
from bench.findings import left_out, log, problems, warn  # noqa: E402
from bench.fleet import FLEET_CHECKS, fleet_section, run_fleet  # noqa: E402
from bench.flood import run_floods, run_long  # noqa: E402
from bench.monitor import MONITOR_CHECKS, monitor_section, run_monitor  # noqa: E402
from bench.record import RECORD_CHECKS, record_section, run_record  # noqa: E402
from bench.once import run_once_cold, run_once_warm  # noqa: E402
from bench.publish import PUBLISH_CHECKS, publish_section, run_publish  # noqa: E402
from bench.udp import UDP_CHECKS, run_udp, udp_section  # noqa: E402
from bench.report import git_revision, report  # noqa: E402
from bench import serve  # noqa: E402
from bench.steady import run_steady  # noqa: E402
from bench import tiles  # noqa: E402
from bench.traccar import TRACCAR_CHECKS, run_traccar, traccar_section  # noqa: E402
from bench.trips import TRIPS_CHECKS, run_trips, trips_section  # noqa: E402

BIN = os.path.join(HERE, "bin")
PARTS = ("flood", "steady", "once-warm", "once-cold", "long", "monitor", "record", "publish", "udp", "fleet", "traccar",
         "trips", "serve-sse", "serve-day", "serve-tiles")


def options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="toy sizes: proves everything builds, runs and "
                                                             "prints the right fixes (CI)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--flood-epochs", type=int, default=100_000)
    parser.add_argument("--long-epochs", type=int, default=1_000_000)
    parser.add_argument("--long-checkpoint", type=int, default=100_000)
    parser.add_argument("--monitor-polygons", type=int, default=10_000, help="polygons of the monitor part "
                        "(its floods have --flood-epochs epochs)")
    parser.add_argument("--publish-messages", type=int, default=None, help="messages of each publish run "
                        "(default: --flood-epochs)")
    parser.add_argument("--fleet-devices", type=int, default=50, help="loctrack processes of the fleet part")
    parser.add_argument("--fleet-rate", type=float, default=10, help="Hz of each fleet device's emulator")
    parser.add_argument("--fleet-seconds", type=float, default=30, help="how long each fleet device publishes")
    parser.add_argument("--traccar-fixes", type=int, default=None, help="the backlog of the traccar part "
                        "(default 10,000; smoke: 500)")
    parser.add_argument("--traccar-loop", type=int, default=None, help="positions of its curl-per-position loop "
                        "(default 1,000; smoke: 50)")
    parser.add_argument("--trips-fixes", type=int, default=86_400, help="TPV lines of the trips part's JSON lines "
                        "file (a day at 1 Hz)")
    parser.add_argument("--trips-gpx-points", type=int, default=100_000, help="points of the trips part's GPX")
    parser.add_argument("--serve-streams", type=int, default=100, help="event streams of the serve-sse part")
    parser.add_argument("--serve-stalled", type=int, default=10, help="of them, how many stop reading (its 2nd run)")
    parser.add_argument("--serve-seconds", type=float, default=30, help="how long serve-sse's 10 Hz run lasts")
    parser.add_argument("--serve-stall-cap", type=float, default=60, help="seconds serve-sse waits for the stalled "
                        "streams to be cut off")
    parser.add_argument("--serve-day-fixes", type=int, default=86_400, help="fixes of the serve-day part (1 Hz)")
    parser.add_argument("--serve-day-rounds", type=int, default=3, help="page loads of the serve-day part")
    parser.add_argument("--tiles-seconds", type=float, default=10, help="seconds of each wrk run of serve-tiles")
    parser.add_argument("--tiles-hot", type=int, default=400, help="tiles of serve-tiles' hot workload")
    parser.add_argument("--tiles-wide", type=int, default=20_000, help="tiles of serve-tiles' wide workload")
    parser.add_argument("--steady-seconds", type=float, default=30)
    parser.add_argument("--warm-seconds", type=float, default=2)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--once-rounds", type=int, default=None, help="default: --rounds, at least 5")
    parser.add_argument("--once-warm-rounds", type=int, default=None,
                        help="default: --once-rounds, at least 15 (a warm once takes milliseconds, so its "
                             "median needs more rounds than the driver's spawn jitter)")
    parser.add_argument("--once-max-age", type=float, default=2, help="loctrack once --max-age")
    parser.add_argument("--rates", default="1,10")
    parser.add_argument("--only", default="flood,steady,once,long,monitor,record,publish,fleet,traccar,trips,serve",
                        help="any of " + ", ".join(PARTS) + "; once means both once-warm and once-cold, serve the three serve parts")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK",
                                                             os.path.join(ROOT, ".build/release/loctrack")))
    parser.add_argument("--emulator", default=os.path.join(BIN, "flood_gpsd"))
    parser.add_argument("--c-client", default=os.path.join(BIN, "gpsclient"))
    parser.add_argument("--swift-client", default=os.path.join(BIN, "gpsclient-swift"))
    parser.add_argument("--python", default=None, help="interpreter with gpsd's `gps` module "
                                                       "(default: /usr/bin/python3, else python3)")
    parser.add_argument("--output", default=None, help="markdown table (default Benchmarks/results/latest.md; "
                                                       "smoke: Benchmarks/bin/smoke.md)")
    opts = parser.parse_args()
    if opts.smoke:
        opts.rounds = 1
        opts.flood_epochs = 2_000
        opts.long_epochs = 20_000
        opts.long_checkpoint = 2_000
        opts.monitor_polygons = 200
        opts.publish_messages = opts.publish_messages or 500
        opts.fleet_devices, opts.fleet_seconds = 5, 2
        opts.traccar_fixes, opts.traccar_loop = opts.traccar_fixes or 500, opts.traccar_loop or 50
        opts.trips_fixes, opts.trips_gpx_points = 5_000, 5_000
        opts.serve_streams, opts.serve_stalled, opts.serve_seconds = 10, 1, 3
        opts.serve_day_fixes, opts.serve_day_rounds, opts.serve_stall_cap = 5_000, 1, 30
        opts.tiles_seconds, opts.tiles_hot, opts.tiles_wide = 2, 100, 2_000
        opts.steady_seconds = 2
        opts.warm_seconds = 1
        opts.idle_seconds = 1
        opts.rates = "10"
        opts.once_rounds = opts.once_rounds or 1
        opts.once_warm_rounds = opts.once_warm_rounds or 1
    opts.rates = [float(r) for r in opts.rates.split(",") if r]
    opts.rates = [int(r) if r.is_integer() else r for r in opts.rates]
    opts.once_rounds = opts.once_rounds or max(opts.rounds, 5)
    opts.once_warm_rounds = opts.once_warm_rounds or max(opts.once_rounds, 15)
    opts.flood_timeout = 120 + opts.flood_epochs / 1000
    opts.long_timeout = 120 + opts.long_epochs / 2000
    opts.publish_messages = opts.publish_messages or opts.flood_epochs
    opts.traccar_fixes, opts.traccar_loop = opts.traccar_fixes or 10_000, opts.traccar_loop or 1_000
    opts.monitor_timeout = 600 + opts.flood_epochs / 200  # a slow monitor is a figure, not a hang
    opts.once_cold_timeout = 40
    expand = {"once": ("once-warm", "once-cold"), "serve": ("serve-sse", "serve-day", "serve-tiles")}
    opts.only = {part for item in opts.only.split(",") if item for part in expand.get(item, (item,))}
    if opts.output is None:
        opts.output = os.path.join(BIN, "smoke.md") if opts.smoke else os.path.join(HERE, "results", "latest.md")
    return opts


def missing_tools(opts) -> list[str]:
    missing = [f"{path} (run `make bench`, which builds everything first)"
               for path in (opts.emulator, opts.c_client, opts.swift_client, opts.loctrack) if not os.access(path, os.X_OK)]
    if not shutil.which("gpspipe"):
        missing.append("gpspipe (Debian package gpsd-clients)")
    if not (shutil.which("gpsd") or os.access("/usr/sbin/gpsd", os.X_OK)):
        missing.append("gpsd (Debian package gpsd)")
    return missing


def main() -> int:
    opts = options()
    unknown = opts.only - set(PARTS)
    if unknown:
        log(f"run.py: unknown part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}, once")
        return 2
    missing = missing_tools(opts)
    if missing:
        for what in missing:
            log(f"run.py: missing {what}")
        return 1
    findings.smoke = opts.smoke
    mqtt_missing = broker.missing()
    for part in ("publish", "fleet"):
        if part in opts.only and mqtt_missing:
            left_out(f"{part}: left out, missing {'; '.join(mqtt_missing)} (`make bench` installs them)")
            opts.only.discard(part)
    serve_missing = serve.missing(opts.loctrack)
    for part in ("serve-sse", "serve-day", "serve-tiles"):
        if part in opts.only and serve_missing:  # built by `make bench`: its absence is a failure
            warn(f"{part}: cannot run, missing {'; '.join(serve_missing)}")
            opts.only.discard(part)
        elif part == "serve-tiles" and part in opts.only and tiles.missing():
            left_out(f"{part}: left out, missing {'; '.join(tiles.missing())} (`make bench` installs them)")
            opts.only.discard(part)
    processes.cleanup_on_signals()
    opts.revision = git_revision()
    clients = make_clients(opts)
    os.makedirs(BIN, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-", dir=BIN) as workdir:
        floods = run_floods(opts, clients, workdir) if "flood" in opts.only else None
        steady = run_steady(opts, clients, workdir) if "steady" in opts.only else None
        warm = run_once_warm(opts, clients, workdir) if "once-warm" in opts.only else None
        cold = run_once_cold(opts, clients, workdir) if "once-cold" in opts.only else None
        long = run_long(opts, clients, workdir) if "long" in opts.only else None
        monitor = run_monitor(opts, clients, workdir) if "monitor" in opts.only else None
        record = run_record(opts, workdir) if "record" in opts.only else None
        published = run_publish(opts, workdir) if "publish" in opts.only else None
        udp = run_udp(opts, workdir) if "udp" in opts.only else None
        fleet = run_fleet(opts, workdir) if "fleet" in opts.only else None
        traccar = run_traccar(opts, workdir) if "traccar" in opts.only else None
        trips = run_trips(opts, workdir) if "trips" in opts.only else None
        served = serve.run_serve_sse(opts, workdir) if "serve-sse" in opts.only else None
        day = serve.run_serve_day(opts, workdir) if "serve-day" in opts.only else None
        chart = tiles.run_serve_tiles(opts, workdir) if "serve-tiles" in opts.only else None
    sections = ((monitor_section(opts, monitor) if monitor else []) + (record_section(opts, record) if record else [])
                + (publish_section(opts, published) if published else [])
                + (udp_section(opts, udp) if udp else [])
                + (fleet_section(opts, fleet) if fleet else [])
                + (traccar_section(opts, traccar) if traccar else [])
                + (trips_section(opts, trips) if trips else [])
                + (serve.serve_section(opts, served, day) if served or day else [])
                + (tiles.tiles_section(opts, chart) if chart else []))
    checked = ([MONITOR_CHECKS] if monitor else []) + ([RECORD_CHECKS] if record else []) + ([PUBLISH_CHECKS] if published else []) + \
        ([UDP_CHECKS] if udp else []) + \
        ([FLEET_CHECKS] if fleet else []) + ([TRACCAR_CHECKS] if traccar else []) + ([TRIPS_CHECKS] if trips else []) + \
        ([serve.SERVE_CHECKS] if served or day else []) + ([tiles.TILES_CHECKS] if chart else [])
    table = report(opts, clients, floods, steady, warm, cold, long, sections, checked)
    print(table)
    os.makedirs(os.path.dirname(os.path.abspath(opts.output)), exist_ok=True)
    with open(opts.output, "w") as f:
        f.write(table)
    log(f"written to {os.path.relpath(opts.output, ROOT)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
