"""Waiting for a condition with a deadline, for the test suites (scripts/ha, scripts/serve): what a
test waits for (an entity in Home Assistant, a server's answer) shows up in its own time, so it is
polled, never slept for a fixed while."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_until(probe: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    """probe()'s first truthy value within timeout seconds, else its last value (falsy)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)
