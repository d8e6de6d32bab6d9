"""Running a suite's tests one after another (scripts/ha, scripts/serve, scripts/traccar): each test a module with
TITLE, EXPECTATION and run(settings, result); its verdict printed as it ends, a tally at the end.

A test that raises is a failure of that test, not of the suite: the traceback goes to a file and
the next test runs. Whatever a test started is ended before the next one, so a test that failed
half-way leaves no gpsd or server holding a port."""

from __future__ import annotations

import time
import traceback
from typing import Callable, Iterable, List, Optional, Tuple

from .processes import cleanup_all
from .results import Result


def run_test(settings, ident: str, module, can_run: Callable[[], None] = lambda: None) -> Result:
    """module.run(settings, result) as test `ident`, after can_run() (which raises an error that
    fails the test when something it needs is missing: a test never skips itself, and a feature
    that went away fails its tests). An error's traceback is written to settings.out/IDENT.traceback."""
    result = Result(ident, module.TITLE, module.EXPECTATION, kind="test")
    started = time.monotonic()
    try:
        can_run()
        module.run(settings, result)
    except Exception as error:  # noqa: BLE001 - reported as the test's failure
        result.error = "%s: %s" % (type(error).__name__, error)
        (settings.out / ("%s.traceback" % ident)).write_text(traceback.format_exc())
    finally:
        cleanup_all()
    result.seconds = time.monotonic() - started
    return result


def run_selected(tests: Iterable[Tuple], only: Optional[str], run_one: Callable[..., Result]) -> List[Result]:
    """run_one(*entry) for each entry (ident, ...) of tests whose ident is in `only` (comma-separated
    ids; all when None or empty), each report printed as soon as the test ends."""
    wanted = set(only.split(",")) if only else None
    results = []
    for entry in tests:
        if wanted is not None and entry[0] not in wanted:
            continue
        result = run_one(*entry)
        print(result.report(), flush=True)
        results.append(result)
    return results


def tally(results: List[Result]) -> str:
    return "%d passed, %d failed" % (
        sum(r.verdict == "PASS" for r in results), sum(r.verdict == "FAIL" for r in results))


def exit_code(results: List[Result]) -> int:
    """1 if any test failed, else 0."""
    return 1 if any(r.verdict == "FAIL" for r in results) else 0
