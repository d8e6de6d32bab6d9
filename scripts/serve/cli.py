"""The command line: `test` (the default: the tests one after another, PASS or FAIL as each ends, a
summary; exit 1 if any failed; exit 2 at once when loctrack or loctrack-serve is not built), `deps` (the venv only), `lock` (re-resolve requirements.txt),
`screenshot` (tests 1 and 12, their screenshots also into docs/figures), `load URL` (one page load measured,
as JSON on stdout: the benchmark runs it with Debian's Python, which has selenium)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import List

from support import suite
from support.results import Result
from support.serve_process import serve_binary

from . import (browser, test_access, test_big_chart, test_chart_files, test_chart_page, test_crowd, test_load,
               test_openapi, test_page, test_requests, test_rtk, test_startup, test_tiles, venv)
from .harness import ROOT, Settings

# (id, module, needs the browser); each module has TITLE, EXPECTATION, run().
TESTS = [
    ("1", test_page, True),
    ("2", test_rtk, True),
    ("3", test_access, False),
    ("4", test_startup, False),
    ("5", test_requests, False),
    ("6", test_load, False),
    ("7", test_openapi, False),
    ("8", test_crowd, False),
    ("9", test_tiles, False),
    ("10", test_chart_files, False),
    ("11", test_big_chart, False),
    ("12", test_chart_page, True),
]


def run_test(settings: Settings, ident: str, module, needs_browser: bool) -> Result:
    def can_run() -> None:
        if needs_browser:
            absent = browser.missing()
            if absent:
                raise RuntimeError("missing %s (make serve-test installs them)" % ", ".join(absent))

    return suite.run_test(settings, ident, module, can_run)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/serve", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="test", choices=["test", "deps", "lock", "screenshot", "load"])
    parser.add_argument("url", nargs="?", help="load: the page's address")
    parser.add_argument("--loctrack", default=os.environ.get("LOCTRACK", str(ROOT / ".build/release/loctrack")),
                        help="the loctrack binary (default .build/release/loctrack); loctrack-serve must be next to it")
    parser.add_argument("--only", help="comma-separated test ids, e.g. 1,3")
    parser.add_argument("--out", default=str(ROOT / "out" / "serve"), help="artifacts (default out/serve)")
    parser.add_argument("--figures", default=None, help="also write the screenshots here (screenshot: docs/figures)")
    parser.add_argument("--venv", default=str(venv.VENV), help="schemathesis's venv (default .build-serve/venv)")
    parser.add_argument("--cycle", type=float, default=0.02,
                        help="gpsfake's seconds between sentences for the demo drive (default 0.02: about 30 s)")
    parser.add_argument("--rounds", type=int, default=3, help="load: how many loads")
    args = parser.parse_args(argv)
    venv_dir = Path(args.venv)

    if args.command == "lock":
        venv.lock()
        return 0
    if args.command == "deps":
        venv.ensure(venv_dir)
        return 0
    if args.command == "load":
        if not args.url:
            parser.error("load needs the page's URL")
        print(json.dumps(browser.measure_load(args.url, rounds=args.rounds)))
        return 0
    if args.command == "screenshot":
        args.only = "1,12"
        args.figures = args.figures or str(ROOT / "docs" / "figures")

    # Test 6 holds 1,000 connections and 100 streams at once: more descriptors than a default 1,024.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    started, wall_started = time.monotonic(), time.time()
    loctrack = os.path.abspath(args.loctrack)
    if not os.access(loctrack, os.X_OK):
        print("serve: %s is not an executable; run make build (and make serve) first" % loctrack, file=sys.stderr)
        return 2
    server = serve_binary(loctrack)
    if server is None:
        print("serve: loctrack-serve is not built: none next to %s, no $LOCTRACK_SERVE (make serve builds it)"
              % loctrack, file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(loctrack, server, out, venv_dir,
                        Path(args.figures) if args.figures else None, cycle=args.cycle)
    results = suite.run_selected(TESTS, args.only, lambda ident, module, needs_browser: run_test(
        settings, ident, module, needs_browser))
    print()
    print("serve: %s in %.0f s (server %s; artifacts in %s)" % (
        suite.tally(results), time.monotonic() - started, settings.serve_binary, out))
    if args.command == "screenshot":
        written = [path for path in Path(args.figures).glob("serve*.png") if path.stat().st_mtime >= wall_started]
        print("serve: screenshots written: %s" % (", ".join(str(path) for path in sorted(written)) or "none"))
    return suite.exit_code(results)
