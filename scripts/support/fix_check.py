"""gpsd's epochs, and loctrack's fixes checked against them (scripts/conformance.py's rule).

The expectation: one fix per distinct (device, time) among gpsd's TPV reports that carry
mode >= 2, lat, lon and time, with the values of gpsd's LAST such report for that epoch.
Every field loctrack prints that gpsd gave must match it: lat/lon (and the strings) to the
last character of gpsd's JSON text, the other numbers by value (else a format warning, or a
failure with strict_text). The outcome of one log replayed one way, and its tables.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

# The fields loctrack's JSON output can carry (gpsd's TPV names), in gpsd's order.
OUTPUT_FIELDS = [
    "class", "device", "status", "mode", "time", "leapseconds", "ept", "lat", "lon", "altHAE", "altMSL",
    "epx", "epy", "epv", "track", "magtrack", "magvar", "speed", "climb", "epd", "eps", "epc",
    "ecefx", "ecefy", "ecefz", "ecefvx", "ecefvy", "ecefvz", "ecefpAcc", "ecefvAcc", "relN", "relE", "relD", "relH", "relL",
    "velN", "velE", "velD", "geoidSep", "eph", "sep", "dgpsAge", "dgpsSta",
]
TEXT_EXACT_NUMBERS = {"lat", "lon"}
PTY_RE = re.compile(r"^/dev/pts/\d+$")
TIME_RE = re.compile(r"^(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$")
# Fields loctrack adds that gpsd does not have (docs/json.md): checked for type only.
LOCTRACK_FIELDS = {"stationary": bool}


class Num(str):
    """A JSON number, kept as gpsd's exact text."""


def parse_json(text: str):
    return json.loads(text, parse_float=Num, parse_int=Num)


def norm_device(value) -> str:
    if not isinstance(value, str):
        return ""
    return "/dev/pts/*" if PTY_RE.match(value) else value


def time_key(value: str):
    match = TIME_RE.match(value)
    if not match:
        return ("raw", value)
    parts = [int(group) for group in match.groups()[:6]]
    fraction = (match.group(7) or "").ljust(9, "0")
    return tuple(parts) + (int(fraction),)


def mode_of(report: dict) -> int:
    try:
        return int(report.get("mode", 0))
    except (TypeError, ValueError):
        return 0


def is_fix(report: dict) -> bool:
    return (mode_of(report) >= 2 and "lat" in report and "lon" in report
            and isinstance(report.get("time"), str) and report["time"] != "")


def epoch_key(report: dict) -> Tuple[str, object]:
    return (norm_device(report.get("device")), time_key(report["time"]))


def normalise_line(line: str) -> str:
    return re.sub(r'"device":"/dev/pts/\d+"', '"device":"/dev/pts/*"', line.strip())


def tpv_lines(path: Path) -> List[str]:
    """The TPV lines of a gpsd JSON-lines file, exactly as written."""
    result = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if re.search(r'"class"\s*:\s*"TPV"', line):
                result.append(line)
    return result


@dataclass
class Epoch:
    report: dict
    first_index: int
    reports: int = 1


def expected_epochs(lines: List[str]) -> Tuple[Dict[tuple, Epoch], Dict[tuple, int]]:
    """gpsd's epochs: (device, time) -> the last fix report; plus no-fix reports by the same key."""
    epochs: Dict[tuple, Epoch] = {}
    nonfix: Dict[tuple, int] = {}
    for index, line in enumerate(lines):
        try:
            report = parse_json(line)
        except ValueError:
            continue
        if not isinstance(report, dict) or report.get("class") != "TPV":
            continue
        if is_fix(report):
            key = epoch_key(report)
            if key in epochs:
                epochs[key].report = report
                epochs[key].reports += 1
            else:
                epochs[key] = Epoch(report, index)
        elif isinstance(report.get("time"), str):
            key = epoch_key(report)
            nonfix[key] = mode_of(report)
    return epochs, nonfix


@dataclass
class Diff:
    way: str
    log: str
    time: str
    field: str
    expected: str
    got: str
    warning: bool = False

    def __str__(self) -> str:
        tag = "WARN" if self.warning else "DIFF"
        return "%s [%s] %s %s %s: expected %s, got %s" % (
            tag, self.way, self.log, self.time, self.field, self.expected, self.got)


@dataclass
class Outcome:
    way: str
    log: str
    expected: int = 0
    fixes: int = 0
    exact: int = 0
    missing: int = 0
    extra: int = 0
    duplicates: int = 0
    field_diffs: int = 0
    warnings: int = 0
    exit_code: object = None
    gpsd_tpvs: Optional[int] = None
    vs_capture: str = ""
    notes: List[str] = field(default_factory=list)
    diffs: List[Diff] = field(default_factory=list)
    harness_error: str = ""
    skipped: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        if self.skipped:
            return False
        return bool(self.harness_error or any(not d.warning for d in self.diffs)
                    or self.exit_code != 69 or self.exact != self.expected or self.fixes != self.expected)


def show(value) -> str:
    if value is None:
        return "(absent)"
    if isinstance(value, Num):
        return str(value)
    return json.dumps(value)


def compare(way: str, log: str, epochs: Dict[tuple, Epoch], nonfix: Dict[tuple, int],
            output: List[str], strict_text: bool, outcome: Outcome) -> None:
    """Fills outcome with loctrack's output checked against gpsd's epochs."""
    outcome.expected = len(epochs)
    seen: Dict[tuple, int] = {}
    order: List[tuple] = []
    exact_keys = set()

    def diff(time_text, name, expected, got, warning=False):
        outcome.diffs.append(Diff(way, log, time_text, name, expected, got, warning))

    for number, line in enumerate(output, 1):
        if not line.strip():
            continue
        try:
            got = parse_json(line)
            if not isinstance(got, dict):
                raise ValueError("not an object")
        except ValueError as error:
            diff("line %d" % number, "(output)", "a JSON object", "%r (%s)" % (line[:120], error))
            continue
        outcome.fixes += 1
        if not isinstance(got.get("time"), str):
            diff("line %d" % number, "time", "an ISO 8601 time", show(got.get("time")))
            continue
        key = epoch_key(got)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            outcome.duplicates += 1
            diff(got["time"], "(fix)", "one fix for this epoch", "fix #%d for it (line %d)" % (seen[key], number))
            continue
        epoch = epochs.get(key)
        if epoch is None:
            outcome.extra += 1
            if key in nonfix:
                why = "no fix: gpsd's report for this time has mode %d or lacks lat/lon" % nonfix[key]
            else:
                why = "no such epoch in gpsd's TPVs"
            diff(got["time"], "(fix)", why, "a fix (line %d): %s" % (number, line.strip()[:160]))
            continue
        order.append(key)
        expected = epoch.report
        names = [name for name in OUTPUT_FIELDS if name in expected or name in got]
        names += [name for name in got if name not in OUTPUT_FIELDS and name not in names
                  and name not in LOCTRACK_FIELDS]
        bad = False
        for name, kind in LOCTRACK_FIELDS.items():  # loctrack's own additions: present and well-typed
            if not isinstance(got.get(name), kind):
                bad = True
                diff(got["time"], name, "a %s (loctrack's own field)" % kind.__name__, show(got.get(name)))
        for name in names:
            want, have = expected.get(name), got.get(name)
            if name not in got:
                bad = True
                diff(got["time"], name, show(want), "(absent)")
            elif name not in expected:
                bad = True
                diff(got["time"], name, "(absent: gpsd did not send it)", show(have))
            elif name == "device":
                if norm_device(want) != norm_device(have):
                    bad = True
                    diff(got["time"], name, show(want), show(have))
            elif isinstance(want, Num) and isinstance(have, Num):
                if str(want) == str(have):
                    continue
                if name in TEXT_EXACT_NUMBERS or strict_text:
                    bad = True
                    diff(got["time"], name, str(want), str(have))
                elif float(want) == float(have):
                    outcome.warnings += 1
                    diff(got["time"], name, str(want), str(have) + " (same value, other text)", warning=True)
                else:
                    bad = True
                    diff(got["time"], name, str(want), str(have))
            elif type(want) is not type(have) or want != have:
                bad = True
                diff(got["time"], name, show(want), show(have))
        if bad:
            outcome.field_diffs += 1
        else:
            exact_keys.add(key)
    for key, epoch in epochs.items():
        if key not in seen:
            outcome.missing += 1
            report = epoch.report
            diff(report["time"], "(fix)", "a fix (gpsd: %d report(s), last lat %s lon %s mode %s)"
                 % (epoch.reports, report.get("lat"), report.get("lon"), report.get("mode")), "(none)")
    outcome.exact = len(exact_keys)
    expected_order = sorted(order, key=lambda key: epochs[key].first_index)
    if order != expected_order:
        moved = sum(1 for a, b in zip(order, expected_order) if a != b)
        outcome.notes.append("order differs from gpsd's at %d positions" % moved)



# -- report ----------------------------------------------------------------------------

def print_table(title: str, outcomes: List[Outcome]) -> None:
    columns = ["log", "TPVs", "epochs", "fixes", "exact", "missing", "extra", "dup", "fielddiff", "warn", "exit",
               "vs capture", "secs", "result"]
    rows = []
    totals = dict(TPVs=0, epochs=0, fixes=0, exact=0, missing=0, extra=0, dup=0, fielddiff=0, warn=0)
    for o in outcomes:
        if o.skipped:
            result = "SKIP (%s)" % o.skipped
        elif o.failed:
            result = "FAIL" + (" (%s)" % o.harness_error if o.harness_error else "")
        else:
            result = "ok"
        values = dict(log=o.log.replace(".log", ""), TPVs=o.gpsd_tpvs or 0, epochs=o.expected, fixes=o.fixes,
                      exact=o.exact, missing=o.missing, extra=o.extra, dup=o.duplicates, fielddiff=o.field_diffs,
                      warn=o.warnings, exit=o.exit_code if o.exit_code is not None else "-",
                      secs="%.1f" % o.seconds, result=result)
        values["vs capture"] = o.vs_capture or "-"
        for key in totals:
            totals[key] += values[key]
        rows.append([str(values[c]) for c in columns])
    failed = sum(1 for o in outcomes if o.failed)
    skipped = sum(1 for o in outcomes if o.skipped)
    total = dict(totals, log="total (%d logs)" % len(outcomes), exit="", secs="",
                 result="%d ok, %d failed%s" % (len(outcomes) - failed - skipped, failed,
                                                ", %d skipped" % skipped if skipped else ""))
    total["vs capture"] = "%d same" % sum(1 for o in outcomes if o.vs_capture == "same")
    rows.append([str(total[c]) for c in columns])
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    print()
    print("== %s ==" % title)

    def fmt(cells):
        return "  ".join(cell.ljust(w) if i in (0, len(cells) - 1) else cell.rjust(w)
                         for i, (cell, w) in enumerate(zip(cells, widths))).rstrip()
    print(fmt(columns))
    print(fmt(["-" * w for w in widths]))
    for row in rows[:-1]:
        print(fmt(row))
    print(fmt(["-" * w for w in widths]))
    print(fmt(rows[-1]))
    for o in outcomes:
        for note in o.notes:
            print("  note: %s: %s" % (o.log, note))


def print_diffs(outcomes: List[Outcome], limit: int, sink) -> None:
    for o in outcomes:
        failures = [d for d in o.diffs if not d.warning]
        warnings = [d for d in o.diffs if d.warning]
        for d in failures:
            sink.write(str(d) + "\n")
        for d in warnings:
            sink.write(str(d) + "\n")
        if limit >= 0:
            shown = failures[:limit] + warnings[:max(0, limit - len(failures))]
            for d in shown:
                print("  " + str(d))
            hidden = len(o.diffs) - len(shown)
            if hidden > 0:
                print("  ... %d more for %s (see the diffs file)" % (hidden, o.log))
