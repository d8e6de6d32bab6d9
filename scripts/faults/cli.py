"""The suite's command line: which faults run, side by side or alone; the PASS/FAIL reports as
they finish, the table, and out/faults/results.md."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, List, Optional

from support.processes import cleanup_all

from .device import fault_8
from .framing import fault_4
from .gpsd_missing import fault_1, fault_2
from .harness import ROOT, Context, Result, load_average, now
from .long_run import fault_12
from .not_gpsd import fault_3
from .recording import fault_11
from .signals import fault_10
from .stdout import fault_9


# Faults that need no process of loctrack's (bursts: 5, overlong lines: 6, malformed
# input: 7, and the framing, banner and reconnect cases) are Swift tests now:
# Tests/LocTrackTests/Unit/ReaderTests.swift drives the reader through a socketpair.
FAULTS = [
    # (id, function, title, expectation, runs alone)
    ("10", fault_10, "SIGINT/SIGTERM while streaming, waiting, gpsd dead",
     "accepted fixes written, watch closed, exit 0 (once: 130/143) within 200 ms", True),
    ("1", fault_1, "gpsd not running at start",
     "once: 69 in <=1 s, one line; stream: one line, 0.5->30 s jittered backoff, no spin, prints when gpsd appears",
     False),
    ("2", fault_2, "gpsd killed and restarted mid-stream",
     "reconnect + re-WATCH, every later epoch printed, none twice; --no-reconnect: 69", False),
    ("9", fault_9, "reader of stdout gone (| head -1) or stalled",
     "head: exit 0 quietly; stall: memory bounded, nothing lost silently (drops reported once), no false "
     "'no fix', live again after", False),
    ("8", fault_8, "device lost / receiver silent; once --max-age",
     "reported once within seconds, resumes; once never returns a fix older than --max-age", False),
    ("3", fault_3, "peer not gpsd / accept-and-close",
     "clear error (69) or retry with backoff; never a hang or a spin", False),
    ("4", fault_4, "half a line, then nothing",
     "~0 CPU while waiting; the fix printed when its line completes", False),
    ("11", fault_11, "SIGKILL while recording (--output), every format, at full speed",
     "the track file whole after every kill (GPX: XML + GPX 1.1), no record lost, changed or repeated; "
     "writer killed too: the next recording cuts the torn end and continues", True),
    ("12", fault_12, "1,000,000 fixes from the flood emulator",
     "peak RSS flat between 100k and 1M fixes", True),
]
DEFAULT = [fault_id for fault_id, *_ in FAULTS if fault_id != "12"]


# Seconds a fault may take before the suite reports it FAILed and goes on (--fault-timeout):
# the slowest, 11 and 12, take about 150 s and 60 s on 2 cores with flood_gpsd.
FAULT_TIMEOUT = 900.0


class Run:
    """One fault on a thread of its own, its result reported once: when the fault returns, or
    when the suite's limit passes first (the fault's thread is then abandoned; its processes
    are killed with the rest at the suite's end)."""

    def __init__(self, ctx: Context, entry, sink: Callable[[Result], None], limit: float):
        fault_id, self.function, title, expectation, _ = entry
        self.ctx, self.sink, self.limit = ctx, sink, limit
        self.result = Result(fault_id, title, expectation)
        self.reported = threading.Lock()
        self.done = False
        self.started = now()
        self.thread = threading.Thread(target=self._run, daemon=True, name="fault-" + fault_id)
        self.thread.start()

    def _run(self) -> None:
        result = self.result
        try:
            self.function(self.ctx, result)
        except Exception as error:  # noqa: BLE001 - reported as a failure of the suite
            result.error = "%s: %s" % (type(error).__name__, error)
            with open(self.ctx.out / ("%s.traceback" % result.fault), "w") as handle:
                traceback.print_exc(file=handle)
        self._report(None)

    def _report(self, error: Optional[str]) -> None:
        with self.reported:
            if self.done:
                return
            self.done = True
            if error:
                self.result.error = error
            self.result.seconds = now() - self.started
        self.sink(self.result)

    def finished(self) -> bool:
        """Whether the fault is over: returned, or over its limit (then reported as a FAIL)."""
        if self.thread.is_alive() and now() - self.started > self.limit:
            self._report("did not finish within %.0f s (the suite's limit per fault, --fault-timeout); "
                         "its processes are killed at the end" % self.limit)
        return self.done

    def wait(self) -> None:
        """Until finished(): the fault returned or its limit passed."""
        while not self.finished():
            self.thread.join(0.1)


def wrap(text: str, width: int) -> List[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    lines.append(line)
    return lines or [""]


def print_table(results: List[Result], file=sys.stdout) -> None:
    columns = (("fault", 5), ("expectation", 46), ("figure", 64), ("result", 6))
    rows = []
    for result in sorted(results, key=lambda item: int(item.fault)):
        cells = [wrap(result.fault, 5), wrap(result.expectation, 46), wrap(result.figure or "-", 64),
                 ["PASS" if result.passed else "FAIL"]]
        rows.append(cells)
    rule = "+" + "+".join("-" * (width + 2) for _, width in columns) + "+"
    print(rule, file=file)
    print("|" + "|".join(" %-*s " % (width, name) for name, width in columns) + "|", file=file)
    print(rule.replace("-", "="), file=file)
    for cells in rows:
        height = max(len(cell) for cell in cells)
        for line in range(height):
            print("|" + "|".join(" %-*s " % (width, cell[line] if line < len(cell) else "")
                                 for cell, (_, width) in zip(cells, columns)) + "|", file=file)
        print(rule, file=file)


def markdown_table(results: List[Result]) -> str:
    lines = ["| fault | expectation | figure | result |", "|---|---|---|---|"]
    for result in sorted(results, key=lambda item: int(item.fault)):
        lines.append("| %s | %s | %s | %s |" % (result.fault, result.expectation, (result.figure or "-").replace("|", "\\|"),
                                               "PASS" if result.passed else "**FAIL**"))
    return "\n".join(lines) + "\n"


def find_flood(explicit: Optional[str]) -> Optional[str]:
    for candidate in (explicit, os.environ.get("FLOOD_GPSD"), str(ROOT / ".build" / "flood_gpsd"),
                      str(ROOT / "Benchmarks" / "bin" / "flood_gpsd")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="faults", description="loctrack's fault-injection suite (docs/faults.md).")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(ROOT / ".build/release/loctrack")))
    parser.add_argument("--flood", help="flood_gpsd binary, built from scripts/support/flood_gpsd.c (default: .build/flood_gpsd, then "
                        "Benchmarks/bin/flood_gpsd)")
    parser.add_argument("--only", help="comma-separated faults, e.g. 1,4,10 (12 is the long one)")
    parser.add_argument("--long", action="store_true", help="also run fault 12 (a million fixes)")
    parser.add_argument("--jobs", type=int, default=4, help="faults run side by side (default 4); the "
                        "timing-sensitive ones always run alone")
    parser.add_argument("--stall", type=float, default=20.0, help="seconds the reader of stdout stops reading "
                        "in fault 9 (default 20; the issue's minute, shortened)")
    parser.add_argument("--stall-gpsd", type=float, default=40.0, help="the same with a real gpsd (default 40: "
                        "the socket buffers hold about 18 s of its output, so a shorter stall cannot show what "
                        "gpsd does then)")
    parser.add_argument("--seed", type=int, help="seed of fault 11's random kill moments (default: a random "
                        "one, printed in its figure)")
    parser.add_argument("--out", default=str(ROOT / "out" / "faults"), help="artifacts directory")
    parser.add_argument("--fault-timeout", type=float, default=FAULT_TIMEOUT, metavar="S",
                        help="a fault still running after S seconds is a FAIL and the suite goes on "
                        "(default %.0f)" % FAULT_TIMEOUT)
    args = parser.parse_args(argv)

    # A signal handler that is not SIG_IGN, so loctrack children start with SIGINT at its default.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.access(args.loctrack, os.X_OK):
        print("faults: no loctrack binary at %s (make faults builds it)" % args.loctrack, file=sys.stderr)
        return 2
    selected = args.only.split(",") if args.only else DEFAULT + (["12"] if args.long else [])
    unknown = [fault for fault in selected if fault not in {entry[0] for entry in FAULTS}]
    if unknown:
        print("faults: unknown fault(s) %s; known: %s" % (unknown, ", ".join(entry[0] for entry in FAULTS)),
              file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    flood = find_flood(args.flood)
    if flood is None:
        print("faults: no flood_gpsd binary (make faults builds it from scripts/support/flood_gpsd.c)", file=sys.stderr)
        return 2
    ctx = Context(args.loctrack, flood, out, args.stall, args.stall_gpsd, args.seed)
    print("faults: loctrack %s; flood %s; load %s; artifacts in %s" % (
        args.loctrack, flood, load_average(), out), flush=True)
    started = now()
    results: List[Result] = []
    print_lock = threading.Lock()

    def sink(result: Result) -> None:
        with print_lock:
            results.append(result)
            print(result.report(), flush=True)

    entries = [entry for entry in FAULTS if entry[0] in selected]
    try:
        for entry in [e for e in entries if e[4]]:
            Run(ctx, entry, sink, args.fault_timeout).wait()
        pending = [e for e in entries if not e[4]]
        running: List[Run] = []
        while pending or running:  # each Run ends by its limit: so does this loop
            running = [run for run in running if not run.finished()]
            while pending and len(running) < max(1, args.jobs):
                running.append(Run(ctx, pending.pop(0), sink, args.fault_timeout))
            time.sleep(0.1)
    except KeyboardInterrupt:
        print("faults: interrupted", file=sys.stderr)
        cleanup_all()
        return 130
    finally:
        cleanup_all()
    total = now() - started
    print()
    print("loctrack fault injection: %d faults, %d passed, %d failed, %.0f s (load %s)" % (
        len(results), sum(r.passed for r in results), sum(not r.passed for r in results), total, load_average()))
    print_table(results)
    try:
        with open(out / "results.md", "w") as handle:
            handle.write("# make faults: %s\n\n%s\nTotal %.0f s, load %s.\n\n" % (
                time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), markdown_table(results), total, load_average()))
            for result in sorted(results, key=lambda item: int(item.fault)):
                handle.write("```\n%s\n```\n" % result.report())
    except OSError:
        pass
    return 0 if results and all(r.passed for r in results) else 1

