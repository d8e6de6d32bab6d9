"""The serve-tiles part: tiles from an MBTiles file by `loctrack serve --tiles-file` against nginx
(Debian's nginx-light, bench/nginx.py) serving the same tiles as files, in the same run, by
`wrk` (8 connections, 2 threads, bench/wrk.py) walking a list of tile paths.

The tiles: one MBTiles file made by scripts/support/mbtiles.py, each tile a PNG of 5 to 20 KB
(mbtiles.padded_tile: a colour and incompressible padding, the size set by its address), and
the same bytes written as files ROOT/tiles/1/Z/X/Y.png, so that both servers answer the same
paths. Two workloads, each a shuffled list of distinct paths:
  hot    --tiles-hot tiles (400: a block of zoom 15, about 5 MB, within loctrack's 8 MiB cache of
         hot tiles): what a page showing one area asks for;
  wide   --tiles-wide tiles (20,000: a block of zoom 16, about 250 MB, far more than that cache):
         every tile read from the file.
Per workload and server: tiles per second, latency p50/p99 (wrk's), the server's CPU per tile
(utime + stime over the run, /proc), errors (a status other than 2xx/3xx, a read or connect error:
a correctness problem), VmRSS after the run (loctrack's; nginx's master and workers summed). The servers take turns (nginx first, then loctrack, per workload).
Targets (issue 28): loctrack at least half of nginx's rate, p99 at most 20 ms.

Before the runs, 50 paths of each list are fetched from both servers and compared with the bytes
made (a problem if any differs). During the whole part the flood emulator feeds loctrack 10
epochs a second (`-T`: the CLOCK_MONOTONIC time of each write) and one event stream reads them
(scripts/support/sse_clients.py, as serve-sse): the live feed's latency, the emulator's write to
the stream's receipt, while idle (3 s before the first run) and during each run, so the cost of
the tiles to the live feed is in the same table (during nginx's runs too: the machine is as
loaded, loctrack's own tiles are not). The emulator writes its stamps when loctrack leaves it.
"""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path

from .findings import log, note, warn
from .flood import start_emulator
from .measure import percentile
from .report import fmt, verdict
from . import nginx, wrk
from support import mbtiles  # scripts/support
from support import http_raw
from support import processes as procs
from support.serve_process import Serve
from support.sse_clients import Fleet, SseClient, fix_time
from support.waiting import wait_until

TILES_CHECKS = "serve-tiles: 50 tiles of each workload byte for byte from both servers; no wrk error on either"
RATE_TARGET = 0.5  # of nginx's tiles per second
P99_TARGET_MS = 20.0
IDLE_SECONDS = 3.0
SIZES_KB = (5, 20)


def missing() -> list[str]:
    absent = []
    if not wrk.binary():
        absent.append("wrk (Debian package wrk)")
    if not nginx.binary():
        absent.append("nginx (Debian package nginx-light)")
    return absent


def size_of(address) -> int:
    """A tile's size in bytes, 5 to 20 KB, set by its address (so the same every run)."""
    z, x, y = address
    low, high = SIZES_KB
    return 1024 * low + (x * 7919 + y * 104729 + z) % (1024 * (high - low))


def block(z: int, count: int, x0: int, y0: int) -> list:
    """`count` addresses of zoom z, a square block from (x0, y0), row by row."""
    side = 1
    while side * side < count:
        side += 1
    return [(z, x0 + i % side, y0 + i // side) for i in range(count)]


def make_tiles(base: Path, hot_count: int, wide_count: int):
    """The MBTiles file, the same tiles as files under base/root, and the two path lists."""
    # Around Brest: a harbour at zoom 15 (hot), the coast around it at zoom 16 (wide).
    hot = block(15, hot_count, 16000, 11330)
    wide = block(16, wide_count, 31900, 22600)
    tiles = {address: mbtiles.padded_tile(address, size_of(address)) for address in hot + wide}
    path = base / "chart.mbtiles"
    metadata = {"name": "Bench chart", "format": "png", "minzoom": "15", "maxzoom": "16"}
    mbtiles.write_mbtiles(path, tiles.items(), metadata)
    root = base / "root"
    for (z, x, y), data in tiles.items():
        folder = root / "tiles" / "1" / str(z) / str(x)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ("%d.png" % y)).write_bytes(data)
    lists = {}
    for name, addresses in (("hot", hot), ("wide", wide)):
        shuffled = list(addresses)
        random.Random(28).shuffle(shuffled)
        lists[name] = (base / ("%s.paths" % name), shuffled)
        lists[name][0].write_text("".join("/tiles/1/%d/%d/%d.png\n" % address for address in shuffled))
    return path, root, tiles, lists


def run_serve_tiles(opts, workdir: str):
    base = Path(workdir) / "serve-tiles"
    base.mkdir(parents=True, exist_ok=True)
    seconds = opts.tiles_seconds
    log(f"== serve-tiles: {opts.tiles_hot} hot and {opts.tiles_wide:,} wide tiles, loctrack serve --tiles-file "
        f"against nginx, wrk -c 8 -t 2 for {seconds:g} s each")
    started = time.monotonic()
    chart, root, tiles, lists = make_tiles(base, opts.tiles_hot, opts.tiles_wide)
    log(f"  made {len(tiles):,} tiles ({sum(map(len, tiles.values())) / 1e6:.0f} MB) as {chart.name} and as files "
        f"in {time.monotonic() - started:.1f} s")
    idle = IDLE_SECONDS if not opts.smoke else 1.0
    epochs = int((4 * (seconds + 2) + idle + 40) * 10)
    stamps_path = base / "stamps"
    emulator, port = start_emulator(opts.emulator, ["-r", 10, "-n", epochs, "-T", str(stamps_path), "-l", 2])
    serve = rival = fleet = None
    try:
        serve = Serve(opts.loctrack, ["--tiles-file", str(chart), f"127.0.0.1:{port}"], base, name="serve")
        rival = nginx.Nginx(root, base / "nginx")
        check_bytes(serve.port, rival.port, lists, tiles)
        stream = SseClient(serve.port, keep_data=fix_time, timeout=10)
        fleet = Fleet([stream]).start()
        # A new stream starts with the latest fix, written up to 100 ms before: not a latency.
        time.sleep(0.5)
        begin = time.monotonic_ns()
        time.sleep(idle)
        windows = [("idle", begin, time.monotonic_ns())]
        runs = {}
        for workload, (paths_file, _) in lists.items():
            for name, server in (("nginx", rival), ("loctrack", serve)):
                begin, cpu = time.monotonic_ns(), server.cpu()
                figures = wrk.run(server.port, str(paths_file), seconds)
                windows.append((f"{workload} {name}", begin, time.monotonic_ns()))
                spent = server.cpu()
                figures["cpu_us"] = ((spent - cpu) / figures["requests"] * 1e6
                                     if spent is not None and cpu is not None and figures["requests"] else None)
                figures["rss_mb"] = (server.rss_kb() or 0) / 1024
                runs[(workload, name)] = figures
                if figures["error_total"]:
                    warn(f"serve-tiles: {workload} against {name}: wrk counted errors {figures['errors']}")
                log(f"  {workload:4} {name:8} {figures['per_s']:9,.0f} tiles/s, p50 {figures['p50']:.2f} ms, p99 "
                    f"{figures['p99']:.2f} ms, CPU {fmt(figures['cpu_us'], 1)} µs a tile, VmRSS {figures['rss_mb']:.1f} MB")
        # Until an event arrives a second after the last window's end: the fixes written within it
        # have had that second to arrive (their latency is a figure, not a check).
        settled = windows[-1][2] + 1_000_000_000
        wait_until(lambda: stream.events and stream.events[-1].at_ns > settled, 10)
        fleet.stop()
        # The emulator writes its stamps when its client leaves: loctrack stopped, then waited for.
        serve.stop()
        try:
            emulator.wait(timeout=15)
        except subprocess.TimeoutExpired:
            note("serve-tiles: the emulator did not end within 15 s of loctrack's; no live-feed latency")
        feed = feed_latency(stream, stamps_path, windows)
        return {"runs": runs, "feed": feed, "seconds": seconds, "hot": len(lists["hot"][1]),
                "wide": len(lists["wide"][1]), "hot_mb": sum(len(tiles[a]) for a in lists["hot"][1]) / 1e6,
                "wide_mb": sum(len(tiles[a]) for a in lists["wide"][1]) / 1e6, "file_mb": chart.stat().st_size / 1e6}
    except RuntimeError as error:
        warn(f"serve-tiles: {error}")
        return None
    finally:
        if fleet is not None:
            fleet.close()
        for part in (serve, rival):
            if part is not None:
                part.stop()
        procs.terminate(emulator, 2)


def check_bytes(serve_port: int, nginx_port: int, lists, tiles) -> None:
    wrong = []
    for name, (_, addresses) in lists.items():
        for address in addresses[:50]:
            path = "/tiles/1/%d/%d/%d.png" % address
            for server, port in (("loctrack", serve_port), ("nginx", nginx_port)):
                response = http_raw.get(port, path)
                if response.status != 200 or response.body != tiles[address]:
                    wrong.append(f"{server} {path}: {response.summary()}")
    if wrong:
        warn(f"serve-tiles: {len(wrong)} tiles not as made: {wrong[:3]}")


def _stamps(path: Path) -> dict:
    stamps = {}
    try:
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                stamps[parts[0]] = int(parts[1])
    except OSError:
        pass
    return stamps


def feed_latency(stream: SseClient, stamps_path: Path, windows) -> dict:
    """{window: (fixes, p50, p99, max) in ms} of the fixes the emulator wrote within each window."""
    stamps = _stamps(stamps_path)
    arrivals = [(stamps[event.data], (event.at_ns - stamps[event.data]) / 1e6) for event in stream.events
                if event.name == "fix" and event.data in stamps]
    out = {}
    for name, begin, end in windows:
        inside = [latency for written, latency in arrivals if begin <= written < end]
        out[name] = (len(inside), percentile(inside, 50), percentile(inside, 99), max(inside) if inside else None)
    if not arrivals:
        note("serve-tiles: the event stream got no fix the emulator stamped; no live-feed latency")
    return out


def tiles_section(opts, result) -> list[str]:
    runs, feed = result["runs"], result["feed"]
    out = ["", "## Serve: tiles from an MBTiles file against nginx", "",
           f"`loctrack serve --tiles-file` (one MBTiles file, {result['file_mb']:.0f} MB) and nginx "
           f"(`nginx-light`, 2 workers, sendfile, open_file_cache) serving the same tiles as files, each tile a PNG of 5 to 20 KB; `wrk` with 8 "
           f"connections and 2 threads for {result['seconds']:g} s per run, walking a shuffled list of distinct tile "
           f"paths (each thread from its own offset). Workloads: **hot**, {result['hot']} tiles ({result['hot_mb']:.1f} MB, "
           f"within loctrack's 8 MiB cache of hot tiles), and **wide**, {result['wide']:,} tiles "
           f"({result['wide_mb']:.0f} MB, every tile read from the file). Meanwhile the flood emulator feeds loctrack 10 epochs a second and one "
           f"event stream reads them.", "",
           "| figure | loctrack | nginx | loctrack / nginx | target | |", "|---|---:|---:|---:|---|---|"]
    for workload in ("hot", "wide"):
        ours, theirs = runs.get((workload, "loctrack")), runs.get((workload, "nginx"))
        if not ours or not theirs:
            continue
        rate = ours["per_s"] / theirs["per_s"] if theirs["per_s"] else None
        out += [f"| {workload}: tiles per second | {ours['per_s']:,.0f} | {theirs['per_s']:,.0f} | {fmt(rate)} | "
                f"≥ {RATE_TARGET:.1f} × nginx | {verdict([None if rate is None else rate >= RATE_TARGET])} |",
                f"| {workload}: latency p50 (ms) | {fmt(ours['p50'])} | {fmt(theirs['p50'])} | "
                f"{fmt(ours['p50'] / theirs['p50'] if theirs['p50'] else None)} | | |",
                f"| {workload}: latency p99 (ms) | {fmt(ours['p99'])} | {fmt(theirs['p99'])} | "
                f"{fmt(ours['p99'] / theirs['p99'] if theirs['p99'] else None)} | ≤ {P99_TARGET_MS:g} ms | "
                f"{verdict([ours['p99'] <= P99_TARGET_MS])} |",
                f"| {workload}: latency max (ms) | {fmt(ours['max'])} | {fmt(theirs['max'])} | | | |",
                f"| {workload}: server CPU per tile, user + sys (µs) | {fmt(ours['cpu_us'], 1)} | {fmt(theirs['cpu_us'], 1)} | "
                f"{fmt(ours['cpu_us'] / theirs['cpu_us'] if ours['cpu_us'] and theirs['cpu_us'] else None)} | | |",
                f"| {workload}: VmRSS after the run (MB; nginx: master + workers) | {fmt(ours['rss_mb'], 1)} | "
                f"{fmt(theirs['rss_mb'], 1)} | | | |",
                f"| {workload}: errors (wrk) | {ours['error_total']} | {theirs['error_total']} | | 0 | "
                f"{verdict([ours['error_total'] == 0 and theirs['error_total'] == 0])} |"]
    out += ["", "The live feed during the runs: the emulator's write of an epoch to the event stream's receipt of its "
            "fix, loctrack's one stream (docs/performance.md's serve-sse has 100).", "",
            "| while | fixes | p50 (ms) | p99 (ms) | max (ms) |", "|---|---:|---:|---:|---:|"]
    for name, (count, p50, p99, worst) in feed.items():
        label = "idle (no tile load)" if name == "idle" else f"{name.split()[0]} tiles from {name.split()[1]}"
        out.append(f"| {label} | {count} | {fmt(p50)} | {fmt(p99)} | {fmt(worst)} |")
    return out
