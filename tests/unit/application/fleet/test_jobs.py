"""A fleet job's ledger after a crash (issue 31.10): a model request whose answer the
crash cut off before its checkpoint is sent again on resume, and the job's result counts
it in ``unrecorded_requests`` (it may have been billed; no ledger holds it).

``_Checkpoints`` is the DurableSteps port in memory (what the engine keeps: step outputs
by position, and the starts of marked steps), so a "worker" can die between a provider's
answer and its checkpoint and the job can be run again as the engine resumes it."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.fleet.jobs import FleetJobRunner
from doc_processing_toolkit.testing import FakeModel, reply, tool_call

T = TypeVar("T")
MODEL = "claude-sonnet-5-5"


class _Checkpoints:
    """An in-memory DurableSteps. ``die_after`` names a marked step (by position) whose
    answer is lost: the worker dies (cancellation) before it is checkpointed; ``die_in``
    a plain step (a tool call) in which the worker dies."""

    def __init__(self) -> None:
        self.outputs: dict[int, Any] = {}
        self.starts: collections.Counter[int] = collections.Counter()
        self.die_after: int | None = None
        self.die_in: int | None = None
        self._position = 0

    def resume(self) -> None:
        """A new execution of the job: it replays from its first step."""
        self._position = 0

    def _next(self) -> int:
        self._position += 1
        return self._position

    async def step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        position = self._next()
        if self.die_in == position:
            self.die_in = None
            raise asyncio.CancelledError  # the worker dies while the step runs
        if position not in self.outputs:
            self.outputs[position] = await fn()
        result: T = self.outputs[position]
        return result

    async def marked_step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        position = self._next()
        if position not in self.outputs:
            self.starts[position] += 1
            output = await fn()
            if self.die_after == position:
                self.die_after = None
                raise asyncio.CancelledError  # the worker dies: the answer is lost
            self.outputs[position] = output
        result: T = self.outputs[position]
        return result

    async def unrecorded_starts(self) -> int:
        return sum(n - 1 for n in self.starts.values())

    async def rate_permit(self, lane: str) -> None:
        return None


@tool
def lookup(invoice: str) -> str:
    """Look up an invoice's total."""
    return f"total of {invoice}: 12.50"


def _runner(fake: FakeModel) -> FleetJobRunner:
    return FleetJobRunner(
        lambda: Agent(MODEL, tools=[lookup], client=fake, log_to_file=False),
        fleet="test",
        rate_limits={},
    )


def _job(runner: FleetJobRunner, steps: _Checkpoints) -> dict[str, Any]:
    steps.resume()
    return asyncio.run(runner("inv-1", {"message": "Total of inv-1?", "files": []}, steps))


def test_a_job_without_a_crash_has_no_unrecorded_request() -> None:
    fake = FakeModel([tool_call("lookup", {"invoice": "inv-1"}), reply("12.50")])
    result = _job(_runner(fake), _Checkpoints())
    assert result["error"] is None and result["output"] == "12.50"
    assert (len(fake.requests), result["requests"], result["unrecorded_requests"]) == (2, 2, 0)


@pytest.mark.parametrize("dies_after", [1, 3], ids=["first-request", "after-a-tool-round"])
def test_a_request_answered_but_lost_in_a_crash_is_counted_when_the_job_resumes(
    dies_after: int,
) -> None:
    """Positions: 1 the first model request, 2 the tool call, 3 the second request."""
    script = [tool_call("lookup", {"invoice": "inv-1"}), reply("12.50")]
    resent = script[0] if dies_after == 1 else script[1]  # the request the crash cut off
    fake = FakeModel([script[0], resent, script[1]] if dies_after == 1 else [*script, resent])
    runner, steps = _runner(fake), _Checkpoints()
    steps.die_after = dies_after
    with pytest.raises(asyncio.CancelledError):
        _job(runner, steps)  # the provider answered, the worker died before the checkpoint
    result = _job(runner, steps)  # the engine resumes the job
    assert result["error"] is None and result["output"] == "12.50"
    # The provider served three requests; the ledger holds the two the job used, and the
    # third (sent again on resume) is reported, not hidden.
    assert len(fake.requests) == 3
    assert (result["requests"], result["unrecorded_requests"]) == (2, 1)


def test_a_crash_in_a_tool_resends_no_request_and_counts_nothing() -> None:
    """The worker dies while the tool runs (after the first answer's checkpoint): the tool
    runs again on resume, no request is sent twice and none is reported."""
    fake = FakeModel([tool_call("lookup", {"invoice": "inv-1"}), reply("12.50")])
    runner, steps = _runner(fake), _Checkpoints()
    steps.die_in = 2
    with pytest.raises(asyncio.CancelledError):
        _job(runner, steps)
    result = _job(runner, steps)
    assert result["output"] == "12.50" and len(fake.requests) == 2
    assert (result["requests"], result["unrecorded_requests"]) == (2, 0)
