"""The result of one test of a suite (scripts/faults, scripts/ha): its checks, each passed or
failed with what was observed, a measured figure, notes, an error in the test itself; report()
prints them."""

from __future__ import annotations

import threading
from typing import List, Optional, Tuple


class Result:
    def __init__(self, ident: str, title: str, expectation: str, kind: str = "fault"):
        self.ident = ident
        self.kind = kind  # the word before the id in the report: "fault 3", "test 2"
        self.title = title
        self.expectation = expectation
        self.figure = ""
        self.checks: List[Tuple[bool, str, str]] = []
        self.notes: List[str] = []
        self.error: Optional[str] = None
        self.seconds = 0.0
        self.lock = threading.Lock()

    @property
    def fault(self) -> str:
        """The fault suite's name for the id."""
        return self.ident

    def check(self, ok: bool, what: str, observed="") -> bool:
        with self.lock:
            self.checks.append((bool(ok), what, str(observed)))
        return bool(ok)

    def note(self, text: str) -> None:
        with self.lock:
            self.notes.append(text)

    @property
    def passed(self) -> bool:
        return self.error is None and bool(self.checks) and all(ok for ok, _, _ in self.checks)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"

    def report(self) -> str:
        lines = ["%s %s %s: %s  (%.1f s)" % (self.verdict, self.kind, self.ident, self.title, self.seconds)]
        if self.figure or self.kind == "fault":
            lines.append("     figure: " + (self.figure or "-"))
        for ok, what, observed in self.checks:
            lines.append("     %s %s%s" % ("ok  " if ok else "FAIL", what, (": " + observed) if observed else ""))
        for text in self.notes:
            lines.append("     note " + text)
        if self.error:
            lines.append("     ERROR in the test itself: " + self.error)
        return "\n".join(lines)
