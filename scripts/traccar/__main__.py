"""Runs the Traccar uplink tests: `python3 scripts/traccar [test|selftest] ...` (the options: --help;
what it does: __init__.py)."""

import sys
from pathlib import Path

if not __package__:
    # Run as `python3 scripts/traccar`: put scripts/ on the path instead of this folder, so that it is
    # imported as the package `traccar`, with support beside it.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from traccar.cli import main  # noqa: E402 (needs the path above)

sys.exit(main())
