"""Waiting from a host thread for a run to reach a state (tests that steer runs)."""

from __future__ import annotations

import time
from collections.abc import Callable

WAIT = 10.0
"""The longest a test waits for a state, in seconds."""


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``predicate`` until it holds.

    Raises:
        AssertionError: naming ``what`` when it does not hold within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)
