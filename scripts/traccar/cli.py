"""The command line: `test` (the default: the stand-in's self-test, then the end-to-end tests one after
another, PASS or FAIL as each ends, a summary; exit 1 if any failed), `selftest` (the stand-in
alone)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import List

from support import suite
from support.results import Result

from . import selftest, test_backlog, test_bad_urls, test_https, test_outage, test_unknown, test_units
from .harness import ROOT, Settings

# (id, module); each module has TITLE, EXPECTATION, run(settings, result).
TESTS = [
    ("1", test_units),
    ("2", test_outage),
    ("3", test_unknown),
    ("4", test_backlog),
    ("5", test_bad_urls),
    ("6", test_https),
]


def run_test(settings: Settings, ident: str, module) -> Result:
    def can_run() -> None:
        missing = settings.missing_uplink()
        if missing:
            raise RuntimeError(missing)
        if getattr(module, "NEEDS_FLOOD", False) and not (settings.flood and os.access(settings.flood, os.X_OK)):
            raise RuntimeError("no flood emulator at %s (make traccar-test compiles scripts/support/flood_gpsd.c)"
                               % settings.flood)

    return suite.run_test(settings, ident, module, can_run)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/traccar", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="test", choices=["test", "selftest"])
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(ROOT / ".build/release/loctrack")),
                        help="the loctrack binary (default .build/release/loctrack)")
    parser.add_argument("--flood", default=str(ROOT / ".build" / "flood_gpsd"),
                        help="the flood emulator for tests 4 and 6 (default .build/flood_gpsd)")
    parser.add_argument("--only", help="comma-separated test ids, e.g. 1,3")
    parser.add_argument("--out", default=str(ROOT / "out" / "traccar"), help="artifacts (default out/traccar)")
    parser.add_argument("--cycle", type=float, default=0.01,
                        help="gpsfake's seconds between sentences of the demo drive (default 0.01: about 15 s)")
    parser.add_argument("--no-selftest", action="store_true", help="test: skip the stand-in's self-test")
    args = parser.parse_args(argv)

    if args.command == "selftest" or not args.no_selftest:
        print("== the stand-in's self-test (selftest.py)", flush=True)
        code = selftest.main()
        if args.command == "selftest" or code != 0:
            return code
    started = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(os.path.abspath(args.loctrack), out, args.cycle, args.flood)
    print("== end to end: %s" % settings.loctrack, flush=True)
    results = suite.run_selected(TESTS, args.only, lambda ident, module: run_test(settings, ident, module))
    print()
    print("traccar: %s in %.0f s (artifacts in %s)" % (suite.tally(results), time.monotonic() - started, out))
    return suite.exit_code(results)
