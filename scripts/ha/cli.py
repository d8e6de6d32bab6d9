"""The command line: `deps` (the venv only), `lock` (re-resolve requirements.txt), `test` (the
default: the venv if missing, then the tests one after another, PASS/FAIL/SKIP as each ends, a
summary; exit 1 if any failed)."""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path
from typing import List

from support.processes import cleanup_all
from support.results import Result

from . import (contract, test_bad_input, test_ha_restart, test_kill, test_monitor, test_owntracks, test_selftest, test_stream,
               venv)
from .world import Settings, Skip

# (id, module, needs loctrack's Home Assistant side); each module has TITLE, EXPECTATION, run().
TESTS = [
    ("1", test_selftest, False),
    ("2", test_stream, True),
    ("3", test_kill, True),
    ("4", test_ha_restart, True),
    ("5", test_monitor, True),
    ("6", test_owntracks, True),
    ("7", test_bad_input, True),
]


def run_test(settings: Settings, ident: str, module, needs_ha_side: bool, has_ha_side: bool) -> Result:
    result = Result(ident, module.TITLE, module.EXPECTATION, kind="test")
    started = time.monotonic()
    try:
        if needs_ha_side and not has_ha_side:
            raise Skip("%s stream --help does not mention --ha-discovery: loctrack's Home Assistant side "
                       "is not in this binary yet" % settings.loctrack)
        module.run(settings, result)
    except Skip as reason:
        result.skipped = str(reason)
    except Exception as error:  # noqa: BLE001 - reported as the test's failure
        result.error = "%s: %s" % (type(error).__name__, error)
        (settings.out / ("%s.traceback" % ident)).write_text(traceback.format_exc())
    finally:
        cleanup_all()
    result.seconds = time.monotonic() - started
    return result


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/ha", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="test", choices=["test", "deps", "lock"])
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(venv.ROOT / ".build/release/loctrack")),
                        help="the loctrack binary (default .build/release/loctrack)")
    parser.add_argument("--only", help="comma-separated test ids, e.g. 1,3")
    parser.add_argument("--out", default=str(venv.ROOT / "out" / "ha"), help="artifacts (default out/ha)")
    parser.add_argument("--force", action="store_true",
                        help="run tests 2-7 even when loctrack stream --help does not mention --ha-discovery")
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
    wanted = set(args.only.split(",")) if args.only else None
    has_ha_side = args.force or contract.supports_ha(loctrack)
    results = []
    for ident, module, needs_ha_side in TESTS:
        if wanted is not None and ident not in wanted:
            continue
        result = run_test(settings, ident, module, needs_ha_side, has_ha_side)
        print(result.report(), flush=True)
        results.append(result)
    print()
    print("ha: %d passed, %d failed, %d skipped in %.0f s (Home Assistant %s; artifacts in %s)" % (
        sum(r.verdict == "PASS" for r in results), sum(r.verdict == "FAIL" for r in results),
        sum(r.verdict == "SKIP" for r in results), time.monotonic() - started, venv.HA_VERSION, out))
    return 1 if any(r.verdict == "FAIL" for r in results) else 0
