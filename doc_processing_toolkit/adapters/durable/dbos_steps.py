"""The steps of a fleet job begun before the toolkit kept its own checkpoints: DBOS steps.

A job whose first execution ran under an older version of the toolkit has its completed
model requests and tool calls as DBOS step records (``DBOS.run_step_async``), numbered by
DBOS's function-id counter, and its marked-step starts in ``dpt_fleet_step_starts`` under
those ids. When such a job is resumed, it keeps that scheme to its end (`DbosSteps`), so
none of its completed, paid-for steps runs again. A job is told to be one of them once,
when its execution starts, and only when it was submitted by an older version (see
`is_dbos_step_job`): a job this version submitted never pays for the check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from doc_processing_toolkit.adapters.durable.sql import StepStarts

__all__ = ["DbosSteps", "is_dbos_step_job"]

T = TypeVar("T")

_STEP_PREFIXES = ("model:", "tool:")
"""The names of the steps a fleet job checkpoints (application/fleet/)."""


def is_dbos_step_job(list_steps: Callable[..., Any], starts: StepStarts, job_id: str) -> bool:
    """Whether job ``job_id`` has steps checkpointed as DBOS steps, or a marked-step start
    recorded under a DBOS step id (blocking: run it off the event loop).

    Args:
        list_steps: ``DBOSClient.list_workflow_steps`` (a client's: called outside the
            workflow, so the query is no step of the job's own).
        starts: The table of starts under DBOS step ids.
        job_id: The job.
    """
    steps = list_steps(job_id, load_output=False)
    if any(str(s["function_name"]).startswith(_STEP_PREFIXES) for s in steps):
        return True
    return starts.any(job_id)


class DbosSteps:
    """DurableSteps as DBOS steps of the running DBOS workflow (a job begun before the
    toolkit kept its own checkpoints)."""

    def __init__(
        self, dbos: Any, starts: StepStarts, permit: Callable[[str], Awaitable[None]]
    ) -> None:
        self._dbos = dbos
        self._starts = starts
        self._permit = permit
        self._marked = 0
        """Marked steps this execution of the job reached."""
        self._first = 0
        """... whose start here was the step's first start ever."""

    async def step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        async def body() -> T:
            return await fn()

        result: T = await self._dbos.DBOS.run_step_async({"name": name}, body)
        return result

    async def marked_step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        DBOS = self._dbos.DBOS
        starts = self._starts
        self._marked += 1

        async def body() -> T:  # runs only when the step has no checkpoint
            job_id, step = str(DBOS.workflow_id), int(DBOS.step_id)
            if await asyncio.to_thread(starts.start, job_id, step, name) == 1:
                self._first += 1
            return await fn()

        result: T = await DBOS.run_step_async({"name": name}, body)
        return result

    async def unrecorded_starts(self) -> int:
        """The job's starts without a checkpoint (0 without a query when every marked step
        this execution reached was started here for the first time ever)."""
        if self._marked and self._first == self._marked:
            return 0
        job_id = str(self._dbos.DBOS.workflow_id)
        return await asyncio.to_thread(self._starts.unrecorded, job_id)

    async def rate_permit(self, lane: str) -> None:
        await self._permit(lane)
