"""What a run found: correctness problems (run.py exits 1), timing-dependent notes, progress."""

from __future__ import annotations

import sys

problems: list[str] = []
notes: list[str] = []


def warn(text: str) -> None:
    """A correctness problem: reported, and run.py exits 1."""
    problems.append(text)
    print(f"  WARNING: {text}", file=sys.stderr, flush=True)


def note(text: str) -> None:
    """Something timing-dependent or missing worth knowing, not a failure."""
    notes.append(text)
    print(f"  note: {text}", file=sys.stderr, flush=True)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
