"""Fleets of jobs as pure data: queue limits, a job's record, a fleet's status.

A *job* is one Agent run over one message (and its files), keyed by a caller-chosen id.
A fleet's jobs wait on one queue; a worker runs at most ``worker_concurrency`` at once,
and every model request first takes a permit on its provider's *lane*, a rate-limited
queue shared by all workers (requests per period, from the registry row or the caller).
"""

from __future__ import annotations

import dataclasses
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.grounding.evidence import Evidence

__all__ = [
    "FleetQueues",
    "FleetStatus",
    "JobRecord",
    "JobResult",
    "JobState",
    "RateLimit",
    "ToolContext",
    "lane_name",
    "status_of",
]

JobState = Literal["queued", "running", "done", "failed", "awaiting_approval"]
"""queued: waiting for a worker; running: on a worker (or left by a dead one, until that
worker resumes it); done: finished with a result; failed: finished with an error;
awaiting_approval: parked until a person answers its deferred tool calls (no worker)."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``requests`` model requests start in any window of ``period_seconds``."""

    requests: int
    period_seconds: float = 60.0
    tokens: int | None = None
    """Tokens (input + output) allowed per period, when known (enforced per worker)."""

    def __post_init__(self) -> None:
        if self.requests < 1:
            raise ConfigurationError(f"RateLimit.requests must be at least 1, got {self.requests}")
        if self.period_seconds <= 0:
            raise ConfigurationError(
                f"RateLimit.period_seconds must be positive, got {self.period_seconds}"
            )


@dataclass(frozen=True, slots=True)
class FleetQueues:
    """The queues of one fleet: its job queue and its providers' rate-limited lanes."""

    name: str
    """The fleet's name (its job queue is called this)."""
    worker_concurrency: int = 8
    """Jobs one worker runs at once."""
    lanes: dict[str, RateLimit] = field(default_factory=dict)
    """lane name (see `lane_name`) -> its rate limit."""
    poll_seconds: float = 0.05
    """How often a worker looks for queued jobs and permits."""


def lane_name(fleet: str, provider: str) -> str:
    """The rate-limited lane of ``provider``'s requests in fleet ``fleet``."""
    return f"{fleet}.rate.{provider}"


@dataclass(frozen=True, slots=True)
class JobRecord:
    """One job as the engine holds it."""

    job_id: str
    state: JobState
    result: dict[str, Any] | None = None
    """The job's result (``done`` and ``failed`` jobs; see the fleet's result shape)."""
    worker: str | None = None
    """The worker that ran (or runs) it."""
    created_at: float | None = None
    """Submission time, seconds since the epoch."""


@dataclass(frozen=True, slots=True)
class JobResult:
    """A finished job: its output, its ledger and its cost (or its error)."""

    job_id: str
    state: JobState
    output: Any = None
    cost: float = 0.0
    """USD, the sum of the job's ledger (failed jobs: what they spent before failing)."""
    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    """Model requests billed (one per ledger record)."""
    tools_used: tuple[str, ...] = ()
    records: tuple[dict[str, Any], ...] = ()
    """The per-request cost records (``AgentResult.request_cost_records``)."""
    error: str | None = None
    error_type: str | None = None
    worker: str | None = None
    unrecorded_requests: int = 0
    """Model requests this job had in flight when a worker running it died: each may
    have been answered and billed by the provider, but its answer never reached the
    checkpoint, so the job sent it again and only the answer it used is in ``records``,
    ``requests`` and ``cost``. Their cost is unknown (0 without a crash)."""
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """A run with ``evidence=True``: its ``AgentResult.evidence`` (by field path)."""
    unverified_fields: tuple[str, ...] = ()
    """A run with ``evidence=True``: its ``AgentResult.unverified_fields``."""

    @property
    def success(self) -> bool:
        """True for a job that finished without an error."""
        return self.state == "done"

    @classmethod
    def of(cls, record: JobRecord) -> JobResult:
        """The result held by a finished job's record."""
        data = record.result or {}
        return cls(
            job_id=record.job_id,
            state=record.state,
            output=data.get("output"),
            cost=float(data.get("cost") or 0.0),
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            requests=int(data.get("requests") or 0),
            tools_used=tuple(data.get("tools_used") or ()),
            records=tuple(data.get("records") or ()),
            error=data.get("error"),
            error_type=data.get("error_type"),
            worker=record.worker,
            unrecorded_requests=int(data.get("unrecorded_requests") or 0),
            evidence={path: Evidence(**e) for path, e in (data.get("evidence") or {}).items()},
            unverified_fields=tuple(data.get("unverified_fields") or ()),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON data (one line of ``dpt fleet results``)."""
        return {
            "id": self.job_id,
            "state": self.state,
            "output": self.output,
            "cost": self.cost,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "requests": self.requests,
            "tools_used": list(self.tools_used),
            "error": self.error,
            "error_type": self.error_type,
            "worker": self.worker,
            "unrecorded_requests": self.unrecorded_requests,
            "evidence": {path: dataclasses.asdict(e) for path, e in self.evidence.items()},
            "unverified_fields": list(self.unverified_fields),
        }


@dataclass(frozen=True, slots=True)
class FleetStatus:
    """Counts of a fleet's jobs and the spend of the finished ones."""

    queued: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    spend: float = 0.0
    """USD billed for the finished jobs (done and failed), from their ledgers."""
    unrecorded_requests: int = 0
    """Model requests of the finished jobs that may have been billed without being
    recorded (in flight when a worker died; see `JobResult.unrecorded_requests`): their
    cost is not in ``spend`` and is unknown."""
    awaiting_approval: int = 0
    """Jobs parked until a person answers their deferred tool calls (no worker holds them)."""

    @property
    def total(self) -> int:
        """Every job."""
        return self.queued + self.running + self.done + self.failed + self.awaiting_approval

    @property
    def finished(self) -> bool:
        """True when no job is queued or running."""
        return self.queued == 0 and self.running == 0


def status_of(records: list[JobRecord]) -> FleetStatus:
    """The `FleetStatus` of ``records``."""
    counts = {"queued": 0, "running": 0, "done": 0, "failed": 0, "awaiting_approval": 0}
    spend = 0.0
    unrecorded = 0
    for record in records:
        counts[record.state] += 1
        if record.result is not None:
            spend += float(record.result.get("cost") or 0.0)
            unrecorded += int(record.result.get("unrecorded_requests") or 0)
    return FleetStatus(spend=spend, unrecorded_requests=unrecorded, **counts)


@dataclass(frozen=True, slots=True)
class ToolContext:
    """The fleet job and tool call a tool is running for (``ToolContext.current()``).

    A tool that was running when its worker died runs again when the job resumes (fleet
    tool calls are delivered at least once). ``idempotency_key`` is the same on that
    re-execution, and different for every other call, so a tool with a side effect can
    make it once: store the key with the effect, and skip an effect whose key is stored.
    """

    job_id: str
    """The durable job (the fleet's job id)."""
    tool_name: str
    tool_call_id: str | None
    """The id the model gave the call (None when the provider gave none)."""
    idempotency_key: str
    """``<job id>/<round>/<call>``: the job, the model round that asked for the call
    (1 for the first response) and the call's id (or the tool's name and a digest of
    its arguments when the provider gave no id). Stable across re-executions."""

    @staticmethod
    def current() -> ToolContext | None:
        """The context of the tool call running in this task or thread; None outside a
        fleet job (an ordinary ``Agent.run`` calls a tool exactly once)."""
        return _TOOL_CONTEXT.get()


_TOOL_CONTEXT: ContextVar[ToolContext | None] = ContextVar("dpt_tool_context", default=None)


def tool_context_var() -> ContextVar[ToolContext | None]:
    """The context variable behind `ToolContext.current` (the fleet sets it)."""
    return _TOOL_CONTEXT
