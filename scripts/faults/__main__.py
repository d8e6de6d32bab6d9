"""Runs the fault-injection suite: `python3 scripts/faults ...`, or `python3 -m faults ...` with
scripts/ on PYTHONPATH (the options: --help; what it does: __init__.py)."""

import sys
from pathlib import Path

if not __package__:
    # Run as `python3 scripts/faults`: this folder is sys.path[0]. Put scripts/ there instead, so that
    # the folder is imported as the package `faults`, with support beside it.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from faults.cli import main  # noqa: E402 (needs the path above)

sys.exit(main())
