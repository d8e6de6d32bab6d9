"""Runs the serve tests: `python3 scripts/serve [test|deps|lock|screenshot|load] ...` (the options:
--help; what it does: __init__.py)."""

import sys
from pathlib import Path

if not __package__:
    # Run as `python3 scripts/serve`: put scripts/ on the path instead of this folder, so that it is
    # imported as the package `serve`, with support beside it.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from serve.cli import main  # noqa: E402 (needs the path above)

sys.exit(main())
