"""Fault 11: SIGKILL of `loctrack stream --output` at random moments while it records at full speed,
in every format: after each kill, once the track writer has exited, the file is whole (tracks.py says
what that means per format), holds every record it held before, and no more records than the flood
emulators were asked for. Then what the guarantee does not cover: the track writer killed too; the
next recording into that file cuts the torn end, says so once, and continues it."""

from __future__ import annotations

import fcntl
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import List, Optional, Tuple

from support.processes import kill_group, spawn
from support.procfs import session_pids

from . import tracks
from .flood import start_flood
from .harness import Context, Result, ms, now, parallel

FORMATS = ("gpx", "csv", "json", "geojson", "text", "owntracks")
EXTENSIONS = {"gpx": "gpx", "csv": "csv", "json": "jsonl", "geojson": "geojson", "text": "txt",
              "owntracks": "jsonl"}
KILLS = 200  # per format
DELAY = (0.030, 0.400)  # seconds from loctrack's start to its SIGKILL, uniform
EPOCHS = 50_000  # the emulator's epochs per recording, sent as fast as loctrack reads them: more
# than loctrack takes before its kill, so that the kill lands mid-flood
FILE_RECORDS, FILE_ROUNDS = 30_000, 25  # then a fresh file (a GPX file is parsed whole after every kill)
FIRST_WRITES = 1000  # a kill that let fewer records than this be written came during the first writes
BOTH_KILLS = 4  # per format: loctrack and its track writer killed
CONTINUED = 20  # epochs of the recording that continues a file after that
NICE = 10  # loctrack's niceness
PAGE = 4096  # a write cut short by a SIGKILL ends at a page boundary
WRITER_EXIT_LIMIT = 5.0  # seconds from loctrack's death to its writer's
CUT_LINE = re.compile(r"cut (\d+) bytes? of a torn end")


class Problem(Exception):
    """A broken promise, said precisely enough to reproduce it."""


def lock_is_free(path: Path) -> bool:
    """Whether the track file's flock (the writer holds it while it runs) can be taken now."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(descriptor)


def record(ctx: Context, format_name: str, path: Path, epochs: int, delay: Optional[float],
           kill_writer: bool = False) -> Tuple[str, int, float]:
    """One recording into `path` from a fresh emulator of `epochs` epochs, ended by a SIGKILL of
    loctrack `delay` seconds after its start (sent by coreutils' timeout, on time whatever this
    process is busy with; --foreground: to loctrack alone), with kill_writer of its track writer
    and then of loctrack (sent from here), or with delay None by the emulator's end. Returns
    loctrack's and its writer's stderr once both have exited, how many writers were killed, and how
    long the writer took to exit after loctrack was gone."""
    flood, port = start_flood(ctx, epochs, 0, tracks.STEP_MS, linger=0 if delay is None else 3, satellites=0)
    # loctrack niced: it takes what CPU is left, and the checks here keep up.
    command = ["nice", "-n", str(NICE), ctx.loctrack, "stream", "--no-reconnect", "--format", format_name,
               "--output", str(path), "127.0.0.1:%d" % port]
    timed = delay is not None and not kill_writer
    if timed:
        command = ["timeout", "--foreground", "--signal=KILL", "%.3f" % delay] + command
    try:
        process = spawn(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Its session: loctrack, and the track writer it starts (which outlives loctrack's SIGKILL).
        session, writers = process.pid, []
        if kill_writer:
            time.sleep(delay)
            writers = [pid for pid in session_pids(session) if pid != process.pid]
            for pid in writers:  # first, so that it cannot finish what it holds
                os.kill(pid, signal.SIGKILL)
            process.kill()
        try:
            code = process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise Problem("a recording of %d epochs did not end within 20 s" % epochs) from None
        if timed and code != 128 + signal.SIGKILL:
            raise Problem("loctrack ended before its SIGKILL, exit %d" % code)
        # loctrack is gone, so its session gets no new members: wait for those it has.
        gone = now()
        deadline, left = gone + WRITER_EXIT_LIMIT, session_pids(session)
        while left and now() < deadline:
            time.sleep(0.002)
            left = session_pids(session, left)
        if left:
            kill_group(process)
            raise Problem("the track writer (pid %s) was still running %.0f s after loctrack's SIGKILL"
                          % (left, WRITER_EXIT_LIMIT))
        if not lock_is_free(path):
            raise Problem("the file's flock is still held after its writer exited")
        errors = process.stderr.read().decode("utf-8", "replace")
        process.stderr.close()
        return errors, len(writers), now() - gone
    finally:
        kill_group(flood)


class Track:
    """One format's recordings: the file they go to, what its checker knows of it (tracks.py), and
    the figures."""

    def __init__(self, ctx: Context, format_name: str, seed: int):
        self.ctx = ctx
        self.format = format_name
        self.rng = random.Random("%d-%s" % (seed, format_name))
        self.folder = ctx.out / "11-tracks"
        self.folder.mkdir(exist_ok=True)
        self.files = 0
        self.path = self.folder
        self.checker = tracks.TrackChecker(format_name)
        self.asked = 0  # epochs the emulators were asked for, for this file
        self.figures = dict(kills=0, no_file=0, no_record=0, first_writes=0, later=0, continued=0)
        self.records_per_file: List[int] = []  # of the files filled (FILE_RECORDS or FILE_ROUNDS)
        self.writer_exits: List[float] = []  # seconds from loctrack's death to its writer's exit
        self.both = dict(kills=0, torn=0, cut_by_test=0, before_writer=0)

    @property
    def runs(self) -> List[int]:
        return self.checker.runs

    def fresh(self, name: str = "") -> None:
        """Starts a new file, after checking the last one a last time: unlocked, and still the bytes
        its last check parsed (nothing wrote to it after its last writer exited)."""
        if self.path.is_file():
            if not lock_is_free(self.path) or self.path.read_bytes() != self.checker.checked:
                raise Problem("file %d changed after its last check, or is locked" % self.files)
            self.path.unlink()
        self.files += 1
        self.path = self.folder / ("%s%s-%d.%s" % (self.format, name, self.files, EXTENSIONS[self.format]))
        self.path.unlink(missing_ok=True)
        self.checker, self.asked = tracks.TrackChecker(self.format), 0

    def read(self) -> Optional[bytes]:
        return self.path.read_bytes() if self.path.exists() else None

    def describe(self, what: str, seed: int) -> str:
        data = self.read()
        kept = self.ctx.out / ("11-failed-" + self.path.name)
        if data is not None:
            kept.write_bytes(data)
        return "%s: %s (seed %d; the file: %s bytes, kept as %s; its last 300: %r)" % (
            self.format, what, seed, "no" if data is None else len(data), kept, (data or b"")[-300:])

    def kill_round(self, delay: float) -> None:
        """A recording killed after `delay`: the file whole, with every record it held before."""
        errors, _, writer_exit = record(self.ctx, self.format, self.path, EPOCHS, delay)
        self.writer_exits.append(writer_exit)
        self.asked += EPOCHS
        self.figures["kills"] += 1
        data = self.read()
        if errors:
            raise Problem("stderr: %r" % errors[:300])
        if data is None:  # the writer creates the file with the first record it gets
            if self.runs:
                raise Problem("the file is gone")
            self.figures["no_file"] += 1
            return
        if not data:
            raise Problem("0 bytes: created, and its first record not written")
        before = self.runs
        try:
            runs = self.checker.check(data)
        except tracks.TrackError as error:
            raise Problem("the file is not whole: %s" % error) from None
        added = runs[len(before):]
        if len(added) > 1 or sum(runs) > self.asked or (added and added[0] > EPOCHS):
            raise Problem("runs %s after %s: more records than the %d epochs sent" % (
                runs[-5:], before[-5:], self.asked))
        self.figures["no_record"] += not added
        self.figures["first_writes"] += bool(added) and added[0] < FIRST_WRITES
        self.figures["later"] += bool(added) and added[0] >= FIRST_WRITES
        self.figures["continued"] += bool(added) and bool(before)

    def kill_rounds(self, count: int) -> None:
        self.fresh()
        rounds = 0
        for number in range(count):
            if rounds == FILE_ROUNDS or sum(self.runs) >= FILE_RECORDS:
                self.records_per_file.append(sum(self.runs))
                self.fresh()
                rounds = 0
            rounds += 1
            delay = self.rng.uniform(*DELAY)
            try:
                self.kill_round(delay)
            except Problem as problem:
                raise Problem("file %d, kill %d of %d, %.0f ms after loctrack's start: %s" % (
                    self.files, number + 1, count, delay * 1000, problem)) from None

    def both_killed(self, count: int) -> None:
        """loctrack and its writer killed (not covered by the guarantee); then a recording that
        ends by itself continues the file: one "cut N bytes" line when its end was torn, every
        whole record kept, and the file whole again. Few such kills tear a write (the writer spends
        little of its time in one), so when one did not, the end is torn here as a torn write
        leaves it: cut at the file's last page boundary."""
        self.fresh("-both")
        for number in range(count):
            delay = self.rng.uniform(*DELAY)
            try:
                _, writers, _ = record(self.ctx, self.format, self.path, EPOCHS, delay, kill_writer=True)
                data = self.read() or b""
                kept, cut = tracks.repaired(data, self.format)
                self.both["torn"] += cut > 0
                if not cut and len(data) > PAGE:
                    os.truncate(self.path, (len(data) - 1) // PAGE * PAGE)
                    kept, cut = tracks.repaired(self.read() or b"", self.format)
                    self.both["cut_by_test"] += cut > 0
                before = tracks.TrackChecker(self.format).check(kept) if kept else []
                errors, _, _ = record(self.ctx, self.format, self.path, CONTINUED, None)
                cuts = [int(size) for size in CUT_LINE.findall(errors)]
                if cuts != ([cut] if cut else []):
                    raise Problem("a torn end of %d bytes, and loctrack said %r" % (cut, errors[:300]))
                self.checker = tracks.TrackChecker(self.format)
                after = self.checker.check(self.read() or b"")
                if after != before + [CONTINUED]:
                    raise Problem("runs %s after the continuation, not %s + [%d]" % (
                        after[-5:], before[-5:], CONTINUED))
            except (tracks.TrackError, Problem) as problem:
                raise Problem("both killed, round %d, %.0f ms after loctrack's start: %s" % (
                    number + 1, delay * 1000, problem)) from None
            self.both["kills"] += 1
            self.both["before_writer"] += writers == 0
        self.fresh()


def fault_11(ctx: Context, r: Result) -> None:
    seed = ctx.seed if ctx.seed is not None else random.randrange(1, 1 << 31)
    started = now()
    formats = [Track(ctx, name, seed) for name in FORMATS]

    def run(track: Track) -> None:
        for what, rounds, count in (("kills", track.kill_rounds, KILLS), ("both", track.both_killed, BOTH_KILLS)):
            try:
                rounds(count)
            except Problem as problem:
                r.check(False, "%s: %s" % (what, track.describe(str(problem), seed)))
                return

    parallel(*[lambda track=track: run(track) for track in formats])
    seconds = now() - started
    total = {key: sum(track.figures[key] for track in formats) for key in formats[0].figures}
    both = {key: sum(track.both[key] for track in formats) for key in formats[0].both}
    per_file = [count for track in formats for count in track.records_per_file]
    exits = sorted(seconds for track in formats for seconds in track.writer_exits) or [0.0]
    for track in formats:
        r.check(track.figures["kills"] == KILLS and track.both["kills"] == BOTH_KILLS,
                "%s: %d SIGKILLs, the file whole after each; %d of loctrack and its writer, the file "
                "continued after each" % (track.format, KILLS, BOTH_KILLS),
                "kills before the file existed %(no_file)d, before the recording's first record %(no_record)d, "
                "in its first %(limit)d records %(first_writes)d, later %(later)d; continuing the file "
                "%(continued)d" % dict(track.figures, limit=FIRST_WRITES)
                + "; %d files filled, %d-%d records; writer killed too %d, torn by the kill %d" % (
                    len(track.records_per_file), min(track.records_per_file or [0]),
                    max(track.records_per_file or [0]), track.both["kills"], track.both["torn"]))
    r.figure = ("seed %d, %.0f s: %d SIGKILLs (%d per format), the file whole after each: before the file "
                "existed %d, before the recording's first record %d, in its first %d records %d, later %d "
                "(mid-flood); continuing a file %d; %d files filled, %d-%d records (mean %.0f). Writer killed too: "
                "%d, torn by the kill %d, by the test %d; each continued, the torn end cut. The writer exited "
                "%s (median) and at most %s after loctrack's SIGKILL" % (
                    seed, seconds, total["kills"], KILLS, total["no_file"], total["no_record"], FIRST_WRITES,
                    total["first_writes"], total["later"], total["continued"], len(per_file),
                    min(per_file or [0]), max(per_file or [0]), sum(per_file) / max(1, len(per_file)),
                    both["kills"], both["torn"], both["cut_by_test"], ms(exits[len(exits) // 2]), ms(exits[-1])))
