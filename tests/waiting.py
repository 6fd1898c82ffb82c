"""Waiting from a host thread for a run to reach a state (tests that steer runs).

Every wait here is on an observable condition, never on elapsed time: the bound is
generous (`WAIT`) and only reached when something is really wrong, so a loaded machine (an
SDK import that takes 17 s) slows a test down but does not fail it. A host thread that
gives up never resumes a run that has not paused yet (the run would then park with nobody
left to resume it): `run_steered` aborts the run instead, once it has started, and
reports the host's failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from doc_processing_toolkit import Agent
    from doc_processing_toolkit.agent.hooks import RunHandle

T = TypeVar("T")

WAIT = 120.0
"""The longest a test waits for a state, in seconds: far above what any state takes on a
busy machine, below pytest-timeout's 300 s per test, so a test that really is stuck fails
naming what it waited for."""


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``predicate`` until it holds.

    Raises:
        AssertionError: naming ``what`` when it does not hold within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.002)


class Host:
    """What a steering function gets: waits that also end when the run is over."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.run_over = threading.Event()
        """Set by `run_steered` once the run returned or raised."""

    def wait_for_pause(self, what: str, also: Callable[[], bool] = lambda: True) -> RunHandle:
        """The run's handle once the run is parked (and ``also`` holds).

        Raises:
            AssertionError: naming ``what`` when the run ended without that pause, or it
                did not come within `WAIT`.
        """

        def parked() -> bool:
            handle = self.agent.run_handle
            return handle is not None and handle.parked and also()

        wait_until(lambda: parked() or self.run_over.is_set(), what)
        handle = self.agent.run_handle
        if handle is None or not parked():
            raise AssertionError(f"the run ended without {what}")
        return handle

    def abort_run(self, reason: str) -> None:
        """Abort the run, waiting (bounded) for it to start if it has not yet; nothing
        once it is over. An abort is kept by the run until its next safe point, so a run
        that had not paused yet cannot park afterwards."""
        deadline = time.monotonic() + WAIT
        while not self.run_over.is_set() and time.monotonic() < deadline:
            handle = self.agent.run_handle
            if handle is not None:
                handle.abort(reason)
                return
            time.sleep(0.002)


def run_steered(agent: Agent, run: Callable[[], T], steer: Callable[[Host], None]) -> T:
    """``run()`` on this thread while ``steer(host)`` steers it from a host thread.

    Should ``steer`` fail, the run is aborted (never resumed: it may not have paused yet)
    and the host's error is raised here once the run has ended, as the test's failure.
    """
    host = Host(agent)
    failures: list[BaseException] = []

    def body() -> None:
        try:
            steer(host)
        except BaseException as exc:
            failures.append(exc)
            host.abort_run(f"the host thread failed: {exc}")

    thread = threading.Thread(target=body, name="test-host", daemon=True)
    thread.start()
    try:
        result = run()
    except BaseException as exc:
        host.run_over.set()
        thread.join(WAIT)
        if failures:
            raise failures[0] from exc
        raise
    host.run_over.set()
    thread.join(WAIT)
    assert not thread.is_alive(), "the host thread did not finish"
    if failures:
        raise failures[0]
    return result


async def until(predicate: Callable[[], object], what: str, bound: float = WAIT) -> None:
    """`wait_until` for a coroutine: poll ``predicate`` without blocking the loop.

    Raises:
        AssertionError: naming ``what`` when it does not hold within ``bound`` seconds.
    """
    import asyncio

    deadline = time.monotonic() + bound
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {bound:g} s waiting for {what}")
        await asyncio.sleep(0.01)
