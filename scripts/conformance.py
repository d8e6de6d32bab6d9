#!/usr/bin/env python3
"""conformance: loctrack's fixes must be exactly gpsd's epochs, over real receiver logs.

For every NAME.log in the gpsd-logs folder (GPSD_LOGS, default ../shared/gpsd-logs
from the repository root) the expectation is: one fix per distinct (device, time)
among gpsd's TPV reports that carry mode >= 2, lat, lon and time, with the values
of gpsd's LAST such report for that epoch.  Nothing from mode < 2, nothing twice,
nothing extra.  Every field loctrack prints that gpsd gave must match it: lat/lon
(and the strings: class, time, device) to the last character of gpsd's JSON text,
the other numbers by value (a number equal in value but written differently is
listed as a format warning; --strict-text makes it a failure).  A field loctrack
prints that gpsd's report did not have is a failure too.

The way: NAME.log is replayed by gpsfake into a real gpsd (the one on PATH: 3.22 on
Debian 12, 3.25 in the trixie root of scripts/trixie/, whose version the table names); loctrack and
gpspipe -w watch the same gpsd; the expectation is what gpsd sent in THAT run
(gpspipe's TPVs), also checked against gpsfake's own watcher (was gpspipe
attached from the start?) and, for information, against the stored capture
NAME.log.tpv.jsonl.  The deterministic way, gpsd's JSON capture
NAME.log.gpsd.jsonl replayed by a scripted gpsd, is the Swift suite's
(Tests/LocTrackTests/Conformance, `make conformance` runs it first).

gpsfake gives each run a new pty, so `device` values /dev/pts/N are compared as
/dev/pts/*.  loctrack must exit 69 (gpsd closed the connection) at the end.

Environment: LOCTRACK (binary, default .build/release/loctrack), GPSD_LOGS.
Exit status: 0 all exact, 1 any difference, 2 cannot run (no logs, no binary).
Artifacts (loctrack output, gpspipe/gpsfake output, all differences) go to
out/conformance/ (--out).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Tuple

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
sys.path.insert(0, str(SCRIPTS))
from support.fix_check import (Outcome, compare, expected_epochs, normalise_line, print_diffs,  # noqa: E402
                               print_table, tpv_lines)
from support.processes import free_port, kill_group, release_port, spawn  # noqa: E402
from support.procfs import established_to  # noqa: E402


def read_lines(path: Path) -> List[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except FileNotFoundError:
        return []


def tail(path: Path, lines: int = 5) -> str:
    text = read_lines(path)
    return " | ".join(line.strip() for line in text[-lines:] if line.strip())


def wait_exit(process: subprocess.Popen, timeout: float):
    """The exit code, or 'timeout' (the process group is then killed)."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        return "timeout"


class Config:
    def __init__(self, args):
        self.logs: Path = args.logs
        self.loctrack: str = args.loctrack
        self.out: Path = args.out
        self.cycle: float = args.cycle
        self.timeout: float = args.timeout
        self.strict_text: bool = args.strict_text
        self.verbose: bool = args.verbose
        self.stream_flags: List[str] = stream_flags(args.loctrack)


def say(config: Config, message: str) -> None:
    if config.verbose:
        print(message, file=sys.stderr, flush=True)


def stream_flags(loctrack: str) -> List[str]:
    """--no-reconnect when this loctrack has it: the stream must end (exit 69) when gpsd does."""
    try:
        process = spawn([loctrack, "help", "stream"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        stdin=subprocess.DEVNULL, text=True)
    except OSError:
        return []
    try:
        text, _ = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        kill_group(process)
        return []
    return ["--no-reconnect"] if "--no-reconnect" in text else []


def loctrack_command(config: Config, port: int) -> List[str]:
    return [config.loctrack, "stream", "--format", "json"] + config.stream_flags + ["127.0.0.1:%d" % port]


# -- the gpsfake way -------------------------------------------------------------------

def start_until(command: List[str], stdout_path: Path, stderr_path: Path, ready, give_up_at: float,
                alive) -> Tuple[Optional[subprocess.Popen], int]:
    """Starts command again and again until ready(process) (it connected); returns (process, tries)."""
    tries = 0
    while time.monotonic() < give_up_at and alive():
        tries += 1
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            process = spawn(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        while process.poll() is None and not ready(process) and time.monotonic() < give_up_at:
            time.sleep(0.01)
        if process.poll() is None and ready(process):
            return process, tries
        if process.poll() is not None and ready(process):  # connected, but already done
            return process, tries
        kill_group(process)
        time.sleep(0.05)
    return None, tries


def run_gpsfake(config: Config, log: Path) -> Outcome:
    outcome = None
    for attempt in (1, 2):
        outcome = gpsfake_attempt(config, log)
        if not outcome.harness_error or attempt == 2:
            break
        say(config, "gpsfake %s: %s; trying again" % (log.name, outcome.harness_error))
    if outcome is not None and outcome.harness_error == "" and attempt == 2:
        outcome.notes.append("second attempt (the first had a harness problem)")
    return outcome


def gpsfake_attempt(config: Config, log: Path) -> Outcome:
    name = log.name
    outcome = Outcome("gpsfake", name)
    started = time.monotonic()
    workdir = config.out / "gpsfake"
    paths = {kind: workdir / ("%s.%s" % (name, kind)) for kind in
             ("loctrack.jsonl", "loctrack.err", "gpspipe.jsonl", "gpspipe.err", "gpsfake.jsonl", "gpsfake.err")}
    port = free_port()
    control_dir = tempfile.mkdtemp(prefix="conformance-gpsfake-")
    environment = dict(os.environ, TMPDIR=control_dir)
    fake = loctrack = pipe = None
    try:
        release_port(port)  # gpsd binds without SO_REUSEADDR
        with open(paths["gpsfake.jsonl"], "wb") as out, open(paths["gpsfake.err"], "wb") as err:
            fake = spawn(["gpsfake", "-q", "-1", "-p", "-P", str(port), "-W", "10", "-c", str(config.cycle),
                          "-r", '?WATCH={"json":true}', str(log)],
                         stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=environment)
        alive = lambda: fake.poll() is None  # noqa: E731
        give_up_at = time.monotonic() + 10
        # loctrack first, then gpspipe: if gpspipe, attached later, saw every TPV that
        # gpsfake's own watcher saw, loctrack was attached in time as well.
        loctrack, tries = start_until(loctrack_command(config, port), paths["loctrack.jsonl"],
                                      paths["loctrack.err"], lambda p: established_to(p.pid, port),
                                      give_up_at, alive)
        if loctrack is None:
            outcome.harness_error = "loctrack did not connect to gpsfake's gpsd (%d tries; gpsfake: %s)" % (
                tries, tail(paths["gpsfake.err"]) or "running")
            return outcome
        time.sleep(0.05)  # let its ?WATCH reach gpsd before gpspipe's
        pipe, pipe_tries = start_until(["gpspipe", "-w", "127.0.0.1:%d" % port], paths["gpspipe.jsonl"],
                                       paths["gpspipe.err"], lambda p: established_to(p.pid, port), give_up_at, alive)
        if pipe is None:
            outcome.harness_error = "gpspipe did not connect (%d tries)" % pipe_tries
            return outcome
        attached = time.monotonic() - started
        say(config, "gpsfake %s: port %d, loctrack attached after %d tries, gpspipe after %d, %.2f s"
            % (name, port, tries, pipe_tries, attached))
        if attached > 1.2:  # gpsfake -p feeds the first packet ~1.4 s after its gpsd is up
            outcome.notes.append("clients attached only %.2f s after gpsfake started" % attached)
        fake_code = wait_exit(fake, config.timeout)
        if fake_code != 0:
            outcome.harness_error = "gpsfake exit %s: %s" % (fake_code, tail(paths["gpsfake.err"]))
        outcome.exit_code = wait_exit(loctrack, 20)
        pipe_code = wait_exit(pipe, 20)
        if pipe_code == "timeout" and not outcome.harness_error:
            outcome.harness_error = "gpspipe did not end with gpsd"
    finally:
        kill_group(fake)  # gpsfake and its gpsd; gpsfake can hang on SIGTERM, so SIGKILL
        kill_group(loctrack)
        kill_group(pipe)
        shutil.rmtree(control_dir, ignore_errors=True)
    gpsd_lines = tpv_lines(paths["gpspipe.jsonl"])
    outcome.gpsd_tpvs = len(gpsd_lines)
    watcher_lines = tpv_lines(paths["gpsfake.jsonl"])
    if [normalise_line(x) for x in gpsd_lines] != [normalise_line(x) for x in watcher_lines]:
        outcome.harness_error = outcome.harness_error or (
            "gpspipe's TPVs (%d) differ from gpsfake's own watcher's (%d): not attached from the start?"
            % (len(gpsd_lines), len(watcher_lines)))
    reference = log.with_name(name + ".tpv.jsonl")
    if reference.exists():
        stored = [normalise_line(x) for x in tpv_lines(reference)]
        live = [normalise_line(x) for x in gpsd_lines]
        if stored == live:
            outcome.vs_capture = "same"
        else:
            differing = sum(1 for a, b in zip(stored, live) if a != b) + abs(len(stored) - len(live))
            outcome.vs_capture = "differs(%d)" % differing
    else:
        outcome.vs_capture = "n/a"
    if outcome.exit_code != 69:
        outcome.notes.append("loctrack exit %s, expected 69; stderr: %s"
                             % (outcome.exit_code, tail(paths["loctrack.err"])))
    epochs, nonfix = expected_epochs(gpsd_lines)
    compare("gpsfake", name, epochs, nonfix, read_lines(paths["loctrack.jsonl"]), config.strict_text, outcome)
    outcome.seconds = time.monotonic() - started
    return outcome


def gpsd_version() -> str:
    """gpsd's version as `gpsd -V` prints it ("gpsd: 3.25 (revision 3.25)" -> "3.25")."""
    try:
        text = subprocess.run(["gpsd", "-V"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "(version unknown)"
    words = text.split()
    return words[1] if len(words) > 1 and words[0] == "gpsd:" else "(version unknown)"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="loctrack's fixes against gpsd's epochs over recorded logs.")
    parser.add_argument("--logs", type=Path,
                        default=Path(os.environ.get("GPSD_LOGS") or (ROOT.parent / "shared" / "gpsd-logs")),
                        help="folder with NAME.log (+ .gpsd.jsonl, .tpv.jsonl); env GPSD_LOGS, "
                             "default ../shared/gpsd-logs from the repository root")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK") or str(ROOT / ".build/release/loctrack"),
                        help="loctrack binary (env LOCTRACK, default .build/release/loctrack)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="only logs whose name contains TEXT (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="logs replayed in parallel (default 2)")
    parser.add_argument("--cycle", type=float, default=0.01, help="gpsfake -c: seconds per sentence (default 0.01)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per log (default 300)")
    parser.add_argument("--strict-text", action="store_true",
                        help="every number must match gpsd's text, not just lat/lon")
    parser.add_argument("--max-diffs", type=int, default=20, help="differences printed per log (default 20; "
                        "all are written to OUT/diffs.txt)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "conformance", help="artifacts folder")
    parser.add_argument("--skip-missing", action="store_true", help="exit 0 when the logs folder is missing")
    parser.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    args = parser.parse_args(argv)

    if not args.logs.is_dir():
        print("conformance: no gpsd logs at %s (set GPSD_LOGS=...)" % args.logs, file=sys.stderr)
        return 0 if args.skip_missing else 2
    loctrack = Path(args.loctrack)
    if not loctrack.is_absolute():
        loctrack = Path.cwd() / loctrack
    if not (loctrack.is_file() and os.access(loctrack, os.X_OK)):
        print("conformance: no loctrack binary at %s (build it, or set LOCTRACK=...)" % loctrack, file=sys.stderr)
        return 2
    args.loctrack = str(loctrack)
    missing = [tool for tool in ("gpsfake", "gpspipe") if shutil.which(tool) is None]
    if missing:
        print("conformance: %s not found (Debian: apt-get install gpsd gpsd-clients)" % ", ".join(missing),
              file=sys.stderr)
        return 2
    logs = sorted(path for path in args.logs.glob("*.log") if path.is_file())
    if args.only:
        logs = [log for log in logs if any(text in log.name for text in args.only)]
    if not logs:
        print("conformance: no *.log files in %s" % args.logs, file=sys.stderr)
        return 2
    config = Config(args)
    way = "gpsfake"
    shutil.rmtree(config.out / way, ignore_errors=True)
    (config.out / way).mkdir(parents=True, exist_ok=True)

    print("conformance: %d logs from %s; %s" % (len(logs), args.logs,
                                                 " ".join(loctrack_command(config, 0)[:-1] + ["HOST:PORT"])))
    started = time.monotonic()
    # Longest logs first, so the parallel slots finish together.
    by_size = sorted(logs, key=lambda path: -path.stat().st_size)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_gpsfake, config, log): log for log in by_size}
        outcomes = {}
        for future in concurrent.futures.as_completed(futures):
            log = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # a harness bug must not hide the other logs
                outcome = Outcome(way, log.name, harness_error="%s: %s" % (type(error).__name__, error))
            outcomes[log] = outcome
            say(config, "%s %s: %s in %.1f s" % (way, log.name, "FAIL" if outcome.failed else "ok", outcome.seconds))
    all_outcomes = [outcomes[log] for log in logs]
    print_table("gpsfake: NAME.log -> gpsfake -c %g -> gpsd %s -> loctrack (+ gpspipe -w) (%.0f s)"
                % (args.cycle, gpsd_version(), time.monotonic() - started), all_outcomes)
    with open(config.out / way / "diffs.txt", "w") as sink:
        print_diffs(all_outcomes, args.max_diffs, sink)

    failed = [o for o in all_outcomes if o.failed]
    differences = sum(1 for o in all_outcomes for d in o.diffs if not d.warning)
    warnings = sum(o.warnings for o in all_outcomes)
    print()
    print("conformance: %s; %d log runs, %d failed, %d differences, %d format warnings, %.0f s "
          "(artifacts in %s)" % ("FAIL" if failed else "PASS", len(all_outcomes), len(failed), differences,
                                 warnings, time.monotonic() - started, config.out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
