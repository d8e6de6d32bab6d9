"""What a run found: correctness problems (run.py exits 1), timing-dependent notes, progress."""

from __future__ import annotations

import subprocess
import sys

problems: list[str] = []
notes: list[str] = []
# A smoke run (make bench-smoke, CI): its make target installs every tool, so nothing may be left out.
smoke = False


def warn(text: str) -> None:
    """A correctness problem: reported, and run.py exits 1."""
    problems.append(text)
    print(f"  WARNING: {text}", file=sys.stderr, flush=True)


def note(text: str) -> None:
    """Something timing-dependent or missing worth knowing, not a failure."""
    notes.append(text)
    print(f"  note: {text}", file=sys.stderr, flush=True)


def left_out(text: str) -> None:
    """A part or a client left out because a tool it needs is not installed: a note in a full run
    (the rest is still measured), a problem in a smoke run."""
    (warn if smoke else note)(text)


def lacks_feature(loctrack: str, option: str, part: str) -> bool:
    """Whether `loctrack stream --help` does not mention `option`: then a problem (a feature that
    went away fails the part that measures it), and True."""
    try:
        out = subprocess.run([loctrack, "stream", "--help"], capture_output=True, text=True, timeout=10)
        mentioned = option in out.stdout + out.stderr
    except (OSError, subprocess.SubprocessError):
        mentioned = False
    if not mentioned:
        warn(f"{part}: {loctrack} stream --help does not mention {option}")
    return not mentioned


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
