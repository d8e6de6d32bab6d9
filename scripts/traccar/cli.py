"""The command line: `selftest` (the stand-in against the decoder's test vectors and its own rules),
`test` (the default: the self-test, then the end-to-end tests one after another)."""

from __future__ import annotations

import argparse
import sys
from typing import List

from . import selftest


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/traccar", description=sys.modules[__package__].__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="test", choices=["test", "selftest"])
    args = parser.parse_args(argv)
    return selftest.main()
