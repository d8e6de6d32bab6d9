"""A virtual environment made from a lock (scripts/ha's Home Assistant, scripts/serve's schemathesis).

The lock, requirements.txt, pins every package with its version and is installed with pip
--no-deps: every machine gets the same packages and no resolver runs. A stamp in the venv holds
the lock's hash, written once every package is in, so a changed lock, or a make that stopped
half-way, makes a new venv. What a tool checks in its venv, and how it resolves its lock afresh,
are its own (scripts/ha/venv.py, scripts/serve/venv.py); the steps they share are here.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent.parent
STAMP = "loctrack-lock.sha256"


def this_python() -> str:
    return sys.executable


def python(venv: Path) -> Path:
    return venv / "bin" / "python"


def lock_hash(lock: Path) -> str:
    return hashlib.sha256(lock.read_bytes()).hexdigest()


def made_from(venv: Path, lock: Path) -> bool:
    """Whether venv's stamp says it was made, to the end, from this lock as it is now."""
    stamp = venv / STAMP
    return stamp.exists() and stamp.read_text().strip() == lock_hash(lock)


def pip(venv: Path, *args: str) -> None:
    subprocess.run([str(python(venv)), "-m", "pip", "--disable-pip-version-check", *args], check=True)


def make_empty(venv: Path, interpreter: Callable[[], str]) -> None:
    """A new venv with nothing installed, by interpreter() (whatever was in the folder goes)."""
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([interpreter(), "-m", "venv", str(venv)], check=True)


def create(venv: Path, lock: Path, interpreter: Callable[[], str]) -> float:
    """Makes venv from the lock; returns the seconds it took."""
    started = time.monotonic()
    make_empty(venv, interpreter)
    pip(venv, "install", "--quiet", "--no-deps", "-r", str(lock))
    (venv / STAMP).write_text(lock_hash(lock) + "\n")
    return time.monotonic() - started


def ensure(venv: Path, lock: Path, ready: Callable[[Path], bool], interpreter: Callable[[], str], tool: str,
           contents: str, not_working: str) -> None:
    """Makes venv unless ready(venv); says how long that took. `tool` prefixes the messages (ha,
    serve), `contents` names what the venv is for, `not_working` says what ready() found missing
    after the venv was made (which ends the run)."""
    if ready(venv):
        return
    print("%s: making the %s venv in %s from %s" % (tool, contents, venv, lock.relative_to(ROOT)), flush=True)
    seconds = create(venv, lock, interpreter)
    if not ready(venv):
        raise SystemExit("%s: the venv in %s %s" % (tool, venv, not_working))
    print("%s: venv made in %.0f s" % (tool, seconds), flush=True)


@contextlib.contextmanager
def scratch_venv(beside: Path, prefix: str, interpreter: Callable[[], str]) -> Iterator[Path]:
    """An empty venv in a temporary folder under `beside` (the real venv's folder), removed
    afterwards: where a lock is resolved afresh without touching the venv the tests use."""
    beside.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=prefix, dir=str(beside)) as scratch:
        venv = Path(scratch) / "venv"
        make_empty(venv, interpreter)
        yield venv


def freeze(venv: Path) -> str:
    """pip freeze of venv, one pinned package a line, without pip and the build tools."""
    return subprocess.run([str(python(venv)), "-m", "pip", "freeze", "--all", "--exclude", "pip",
                           "--exclude", "setuptools", "--exclude", "wheel"],
                          check=True, capture_output=True, text=True).stdout
