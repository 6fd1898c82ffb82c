"""DurableEngine: the port a durable-execution engine implements (fleets of jobs).

A job is one Agent run, keyed by a caller-chosen id, whose model requests and tool calls
are the *steps* of a durable workflow: a step's output is checkpointed when it completes,
and a job resumed after a crash replays its completed steps from the checkpoint instead
of running them again. The bundled adapter is DBOS (``adapters/durable/dbos.py``); another
engine (Temporal, ...) implements the same two Protocols.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from doc_processing_toolkit.domain.fleet import FleetQueues, JobRecord

__all__ = ["DurableEngine", "DurableSteps", "JobRunner"]

T = TypeVar("T")


@runtime_checkable
class DurableSteps(Protocol):
    """The checkpoints of the job that is running (handed to its `JobRunner`)."""

    async def step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        """Run ``fn`` as the job's next step, or return the checkpointed output of that
        step when the job is being resumed and the step had completed (an exception the
        step raised is checkpointed and re-raised the same way). Steps are numbered in
        the order they are called; ``name`` must be the same on replay."""
        ...

    async def marked_step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        """`step` for a step whose start must be known after a crash: a model request,
        which the provider bills even when the crash cuts its answer off before the
        checkpoint. Before ``fn`` runs, the engine records durably that this step of the
        job starts (nothing is recorded when the step is replayed from its checkpoint);
        see `unrecorded_starts`."""
        ...

    async def unrecorded_starts(self) -> int:
        """How many times an execution of this job started one of its marked steps and
        never checkpointed it (its worker died with the step in flight): each such start
        may have reached the provider and been billed, and no ledger holds it. Exact once
        every marked step of the job has completed (at the job's end)."""
        ...

    async def rate_permit(self, lane: str) -> None:
        """Wait for a start slot on the rate-limited ``lane`` (one of the queues'
        `FleetQueues.lanes`), shared by every worker of the fleet. Checkpointed: a
        resumed job does not wait again for a permit it already had."""
        ...


JobRunner = Callable[[str, dict[str, Any], DurableSteps], Awaitable[dict[str, Any]]]
"""Runs one job: ``(job_id, payload, steps) -> result`` (JSON data, checkpointed as the
job's result). It must be deterministic given its steps' outputs."""


@runtime_checkable
class DurableEngine(Protocol):
    """Queues jobs durably and runs them on workers."""

    def submit(self, job_id: str, payload: dict[str, Any]) -> bool:
        """Queue job ``job_id`` (``payload`` is JSON data). Idempotent: an id the engine
        already holds is not queued again. Returns True when the job is new."""
        ...

    def jobs(
        self,
        job_ids: Sequence[str] | None = None,
        *,
        offset: int = 0,
        limit: int | None = None,
    ) -> Sequence[JobRecord]:
        """Every job of this fleet, in submission order (``job_ids``: only those;
        ``offset`` / ``limit``: one page of them)."""
        ...

    def serve(
        self,
        runner: JobRunner,
        queues: FleetQueues,
        *,
        worker_id: str,
        until_idle: bool = True,
        on_tick: Callable[[Sequence[JobRecord]], None] | None = None,
    ) -> None:
        """Run this process as worker ``worker_id`` until no job is queued or running
        (``until_idle``), first resuming the jobs this worker left unfinished. ``on_tick``
        sees the jobs every poll (a progress bar)."""
        ...

    def record_answer(
        self, key: str, call_id: str, answer: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        """Store a person's answer to one deferred call of a parked job (``key`` names
        the parking; the first answer to a call wins); every answer under ``key``."""
        ...

    def answers(self, key: str) -> dict[str, dict[str, Any]]:
        """The answers stored under ``key`` (call id -> answer)."""
        ...

    def close(self) -> None:
        """Release connections (a serving worker stops first)."""
        ...
