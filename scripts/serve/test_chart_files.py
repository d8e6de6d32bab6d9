"""Test 10: the chart files `loctrack serve --tiles-file` refuses before anything is served: one line
on stderr, `loctrack: --tiles-file FILE: <why>`, nothing on stdout, the documented exit code
(docs/exit-codes.md; each run waited for up to 30 s, so a start that blocks shows), and the --listen
port never bound while it ran (watched in /proc every few milliseconds).

- 66 (EX_NOINPUT): a missing file, a folder, a named pipe (which must not block the start),
  /dev/null (not a regular file), and, when the test does not run as root, a file it may not read;
- 65 (EX_DATAERR): a text file, an empty file, an SQLite database without a `tiles` table or view,
  one whose `tiles` lacks MBTiles' columns, vector tiles (`format` pbf, and gzip bytes without a
  format: the line says raster tiles are needed), a format loctrack does not draw (tiff), a file
  without a single tile, and a bad file after a good one (the bad one named);
- 64: --tiles-file without a value.
The control: the good file alone starts and listens.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Optional, Sequence

from support import mbtiles
from support.processes import free_port, kill_group, release_port, spawn
from support.procfs import listening
from support.results import Result
from support.serve_process import Serve

from .harness import Settings

TITLE = "refused chart files: exit 66 and 65, one line, nothing listening"
EXPECTATION = "missing, folder, pipe, device 66; not SQLite, no tiles table, vector pbf (says raster), tiff, " \
              "no tile 65; one line naming the file; the port never bound"


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("10-chart-files")
    source = "127.0.0.1:%d" % free_port()  # nobody there: the refusals come before gpsd matters
    good = mbtiles.make_chart(workdir / "good.mbtiles", range(0, 3), mbtiles.WORLD, {"name": "Good", "format": "png"})
    folder = workdir / "folder.mbtiles"
    folder.mkdir(exist_ok=True)
    cases = [
        ("a missing file", workdir / "missing.mbtiles", 66),
        ("a folder", folder, 66),
        ("a named pipe", mbtiles.fifo(workdir / "pipe.mbtiles"), 66),
        ("/dev/null (a character device)", Path("/dev/null"), 66),
        ("a text file", mbtiles.not_sqlite(workdir / "text.mbtiles"), 65),
        ("an empty file", mbtiles.empty_file(workdir / "empty.mbtiles"), 65),
        ("no tiles table", mbtiles.no_tiles_table(workdir / "no-tiles-table.mbtiles"), 65),
        ("a tiles table without MBTiles' columns", mbtiles.wrong_columns(workdir / "columns.mbtiles"), 65),
        ("vector tiles (format pbf)", mbtiles.vector_tiles(workdir / "vector.mbtiles"), 65),
        ("vector tiles (gzip bytes, no format)",
         mbtiles.vector_tiles(workdir / "vector-bytes.mbtiles", say_format=False), 65),
        ("format tiff", mbtiles.unknown_format(workdir / "tiff.mbtiles"), 65),
        ("not a single tile", mbtiles.no_tiles(workdir / "no-tiles.mbtiles"), 65),
    ]
    if os.geteuid() == 0:
        r.note("run as root: a file without read permission cannot be tried (root reads it anyway)")
    else:
        unreadable = mbtiles.make_chart(workdir / "unreadable.mbtiles", [0], mbtiles.WORLD, {"format": "png"}).path
        os.chmod(unreadable, 0)
        cases.append(("a file it may not read (mode 000)", unreadable, 66))
    for what, path, code in cases:
        check_refusal(r, settings, what, ["--tiles-file", str(path)], path, code, source,
                      raster="vector" in what)
    bad = workdir / "text.mbtiles"
    check_refusal(r, settings, "a good file, then a text file", ["--tiles-file", str(good.path), "--tiles-file", str(bad)],
                  bad, 65, source)
    check_refusal(r, settings, "--tiles-file without a value", [source, "--tiles-file"], None, 64, None)
    try:
        serve = Serve(settings.loctrack, ["--tiles-file", str(good.path), source], workdir, name="control", start_timeout=10)
    except RuntimeError as error:
        r.check(False, "control: the good file alone starts and listens", error)
        return
    r.check(serve.get("/tiles/1/0/0/0.png").status == 200,
            "control: the good file alone starts, listens and serves its tiles")
    serve.stop()


def check_refusal(r: Result, settings: Settings, what: str, args: Sequence[str], named: Optional[Path], expected: int,
                  source: Optional[str], raster: bool = False) -> None:
    port = free_port()
    release_port(port)
    command = [settings.loctrack, "serve", "--listen", "127.0.0.1:%d" % port] + list(args)
    if source is not None:
        command.append(source)
    started = time.monotonic()
    process = spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    bound = False
    while process.poll() is None and time.monotonic() - started < 30:
        bound = bound or listening(port)
        time.sleep(0.003)
    code = process.poll()
    if code is None:
        kill_group(process)
    out, err = process.communicate()
    seconds = time.monotonic() - started
    lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    prefix = "loctrack: --tiles-file %s: " % named if named is not None else "loctrack: "
    said = lines[0] if lines else ""
    ok = code == expected and len(lines) == 1 and said.startswith(prefix) and len(said) > len(prefix) \
        and not out.strip() and not bound
    if raster:
        ok = ok and "raster" in said.lower() and "pbf" in said.lower()
    r.check(ok, "%s: exit %d, one line '%s…'%s, nothing on stdout, the port never bound" % (
        what, expected, "loctrack: --tiles-file FILE: " if named is not None else "loctrack: ",
        " saying raster tiles are needed (pbf)" if raster else ""),
        "exit %s after %.2f s, stderr %r, stdout %r%s" % (code, seconds, lines[:3], out[:80].decode("utf-8", "replace"),
                                                         ", bound the port" if bound else ""))
