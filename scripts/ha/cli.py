"""The command line: `deps` (the venv only), `lock` (re-resolve requirements.txt), `test` (the
default: the venv if missing, then the tests one after another, PASS or FAIL as each ends, a
summary; exit 1 if any failed)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import List

from support import suite
from support.results import Result

from . import (test_bad_input, test_ha_restart, test_kill, test_monitor, test_owntracks, test_selftest, test_stream,
               venv)
from .world import Settings

# (id, module); each module has TITLE, EXPECTATION, run().
TESTS = [
    ("1", test_selftest),
    ("2", test_stream),
    ("3", test_kill),
    ("4", test_ha_restart),
    ("5", test_monitor),
    ("6", test_owntracks),
    ("7", test_bad_input),
]


def run_test(settings: Settings, ident: str, module) -> Result:
    return suite.run_test(settings, ident, module)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/ha", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="test", choices=["test", "deps", "lock"])
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(venv.ROOT / ".build/release/loctrack")),
                        help="the loctrack binary (default .build/release/loctrack)")
    parser.add_argument("--only", help="comma-separated test ids, e.g. 1,3")
    parser.add_argument("--out", default=str(venv.ROOT / "out" / "ha"), help="artifacts (default out/ha)")
    parser.add_argument("--venv", default=str(venv.VENV), help="the venv (default .build-ha/venv)")
    args = parser.parse_args(argv)
    venv_dir = Path(args.venv)

    if args.command == "lock":
        venv.lock()
        return 0
    started = time.monotonic()
    venv.ensure(venv_dir)
    if args.command == "deps":
        return 0

    loctrack = os.path.abspath(args.loctrack)
    if not os.access(loctrack, os.X_OK):
        print("ha: %s is not an executable; run make build first" % loctrack, file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(loctrack, venv.python(venv_dir), out)
    results = suite.run_selected(TESTS, args.only, lambda ident, module: run_test(settings, ident, module))
    print()
    print("ha: %s in %.0f s (Home Assistant %s; artifacts in %s)" % (
        suite.tally(results), time.monotonic() - started, venv.HA_VERSION, out))
    return suite.exit_code(results)
