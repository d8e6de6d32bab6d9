#!/usr/bin/env python3
"""What changes for a loctrack user when gpsd 3.22 (Debian 12) becomes gpsd 3.25 (Debian 13).

`make conformance` in the trixie root judges loctrack against the gpsd it ran with (3.25), and
finds them equal to the digit, so loctrack's fixes change exactly as gpsd's epochs do. The
recordings' stored captures (NAME.log.tpv.jsonl beside the logs) are gpsd 3.22's TPVs for the
same logs. This compares, per log, gpsd 3.22's epochs (the last fix report of each time: what
loctrack prints) with gpsd 3.25's in that run (gpspipe's TPVs): epochs only one version has,
and for the epochs both have, which fields differ, how often, with the first example's digits.

Usage: python3 scripts/trixie/versus-3.22.py [OUT]   (OUT: out/conformance of the root's run,
default out/conformance; GPSD_LOGS: the recordings, default ../shared/gpsd-logs)
"""

import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from support.fix_check import expected_epochs, tpv_lines  # noqa: E402

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "out" / "conformance"
LOGS = Path(os.environ.get("GPSD_LOGS") or ROOT.parent / "shared" / "gpsd-logs")
IGNORED = {"device"}  # a new pty each run


def by_time(reports):
    return {report["time"]: report for report in reports}


def main() -> int:
    for capture in sorted(LOGS.glob("*.log.tpv.jsonl")):
        log = capture.name[: -len(".tpv.jsonl")]
        sent = OUT / "gpsfake" / (log + ".gpspipe.jsonl")
        if not sent.exists():
            print("%s: no gpspipe output in %s" % (log, sent.parent))
            continue
        old = by_time(epoch.report for epoch in expected_epochs(tpv_lines(capture))[0].values())
        new = by_time(epoch.report for epoch in expected_epochs(tpv_lines(sent))[0].values())
        only_old = sorted(set(old) - set(new))
        only_new = sorted(set(new) - set(old))
        fields, example = Counter(), {}
        for time in sorted(set(old) & set(new)):
            for field in sorted((set(old[time]) | set(new[time])) - IGNORED):
                a, b = old[time].get(field, "-"), new[time].get(field, "-")
                if str(a) != str(b):
                    fields[field] += 1
                    example.setdefault(field, "%s %s -> %s" % (time, a, b))
        same = len(set(old) & set(new)) - len({t for t in set(old) & set(new)
                                                if any(str(old[t].get(f, "-")) != str(new[t].get(f, "-"))
                                                       for f in (set(old[t]) | set(new[t])) - IGNORED)})
        print("%s: 3.22 %d epochs, 3.25 %d; %d identical" % (log, len(old), len(new), same))
        if only_old:
            print("  only 3.22: %d (%s%s)" % (len(only_old), ", ".join(only_old[:3]), ", ..." if len(only_old) > 3 else ""))
        if only_new:
            print("  only 3.25: %d (%s%s)" % (len(only_new), ", ".join(only_new[:3]), ", ..." if len(only_new) > 3 else ""))
        for field, count in fields.most_common():
            print("  %-10s differs in %4d: e.g. %s" % (field, count, example[field]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
