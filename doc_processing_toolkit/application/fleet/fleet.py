"""Fleet: many documents, one Agent factory, durable jobs on a queue.

::

    fleet = Fleet(lambda: Agent("claude-sonnet-5-5", tools=[lookup]))  # SQLite beside cwd
    for path in invoices:
        fleet.submit(path.stem, "Extract the total.", files=[str(path)])
    fleet.run()                       # this process works until the queue is empty
    for job_id, result in fleet.results().items(): ...

Every job is a durable workflow of the engine (DBOS by default): its model requests and
tool calls are checkpointed steps, so a worker killed at any point resumes its jobs from
the last completed step when it starts again (a completed request is not sent again, a
completed tool does not run again, and the ledger is the one an uninterrupted run has).
The step in flight at the crash runs again: tool calls are delivered at least once, and
``ToolContext.current().idempotency_key`` (the same on that re-execution) lets a tool
make its effect once. A model request in flight at the crash is sent again; the provider
may have billed the lost answer, so each job's result counts such requests
(``JobResult.unrecorded_requests``, totalled in `FleetStatus`).
``submit`` is idempotent by job id. A ``postgresql://`` ``database_url`` lets several
worker processes (``worker_id`` must differ) on several machines drain one queue.

Rate limits: each provider's requests take a permit on a lane shared by all workers, at
the registry row's ``requests_per_minute`` (and ``tokens_per_minute``, per worker) unless
``rate_limit=`` says otherwise; a 429 pauses the worker's sends to that provider instead
of failing the job.

``mode="batch"``: each provider's requests of one round (the next request of every
running job) go out as one provider batch through the provider's
`BatchClient`, which the fleet obtains from
``FleetDeps.batch_clients(provider, **client_kwargs)`` (the composition root's
``build_batch_client``; ``client_kwargs`` are the probe Agent's ``api_key`` and
``base_url`` when it has them). A provider without one (the function returns None) runs
its jobs interactively, with one log line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.deployment import row_lacks_batch
from doc_processing_toolkit.application.config.schema_reference import schema_reference
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.fleet.approvals import (
    FleetApprovals,
    merge_continuations,
)
from doc_processing_toolkit.application.fleet.jobs import FleetAgent, FleetJobRunner
from doc_processing_toolkit.application.fleet.results import FleetResults
from doc_processing_toolkit.application.run.stream.streaming import run_blocking
from doc_processing_toolkit.application.telemetry.runtime import trace_carrier
from doc_processing_toolkit.domain.approvals import PendingApproval
from doc_processing_toolkit.domain.errors import ConfigurationError, StateError
from doc_processing_toolkit.domain.fleet import (
    FleetQueues,
    FleetStatus,
    JobRecord,
    RateLimit,
    lane_name,
    status_of,
)
from doc_processing_toolkit.ports.batch import BatchClient
from doc_processing_toolkit.ports.durable import DurableEngine
from doc_processing_toolkit.ports.registry import ModelRegistry

__all__ = ["Fleet", "FleetDeps", "no_default_fleet_deps"]

FleetMode = Literal["interactive", "batch"]


@dataclass(frozen=True, slots=True)
class FleetDeps:
    """The adapters a Fleet uses."""

    engine: Callable[[str | None, str], DurableEngine]
    """(database_url, fleet name) -> the durable engine (None: SQLite beside the cwd)."""
    batch_clients: Callable[..., BatchClient | None]
    """(provider, **client_kwargs) -> the provider's BatchClient, or None without one."""
    registry: ModelRegistry
    """Registry rows (rate limits)."""


def no_default_fleet_deps() -> FleetDeps:
    """What a Fleet built without ``deps=`` gets here: a refusal (the documented
    ``doc_processing_toolkit.fleet.Fleet`` passes the composition root's)."""
    raise StateError(
        "Fleet(...) without deps=: build it from doc_processing_toolkit.fleet, whose Fleet "
        "is handed the composition root's adapters, or pass deps="
    )


def headroom(period: float) -> float:
    """The lane's window: ``period`` plus 5% (at least 0.25 s), so the jitter between a
    permit and its request reaching the provider cannot put one window over the limit."""
    return period + max(0.05 * period, 0.25)


class Fleet:
    """Durable, rate-limited jobs for one Agent factory (see the module docstring)."""

    _default_deps = staticmethod(no_default_fleet_deps)

    def __init__(
        self,
        agent_factory: Callable[[], Any] | None,
        database_url: str | None = None,
        *,
        mode: FleetMode = "interactive",
        name: str = "dpt-fleet",
        concurrency: int = 8,
        worker_id: str | None = None,
        rate_limit: RateLimit | None = None,
        rate_window_seconds: float = 60.0,
        storm_seconds: float = 900.0,
        batch_window_seconds: float = 30.0,
        batch_settle_seconds: float = 0.2,
        poll_seconds: float = 0.05,
        approval_timeout: float | None = None,
        deps: FleetDeps | None = None,
    ) -> None:
        """Args:
        agent_factory: Builds one job's Agent (called for every job, in every worker;
            it is closed when its job ends). A factory that returns the same Agent each
            time (``lambda: agent``) shares it between the jobs: a worker saves building
            and connecting an Agent per job, and does not close it between jobs.
            None: a fleet that only submits and reads (``dpt fleet status``); it cannot
            `run`.
        database_url: The engine's database: None for a SQLite file ``<name>.sqlite`` in
            the working directory, a path or ``sqlite:///...`` URL, or a
            ``postgresql://`` URL that several workers share.
        mode: ``"interactive"`` (requests one by one) or ``"batch"`` (provider batches).
        name: The fleet's name (its queue); fleets of different names share a database.
        concurrency: Jobs one worker runs at once.
        worker_id: This process's worker name (default ``DPT_FLEET_WORKER`` or
            ``"local"``): stable across restarts, so a restarted worker resumes the jobs
            it left; every concurrently running worker needs its own.
        rate_limit: The fleet-wide limit of the model's provider (default: the registry
            row's ``requests_per_minute`` / ``tokens_per_minute``; none when unknown).
        rate_window_seconds: How long the row's "minute" lasts (60; tests shorten it).
        storm_seconds: How long one request may keep meeting 429s before it fails.
        batch_window_seconds: Longest wait for a batch round to fill (batch mode).
        batch_settle_seconds: Quiet time before a full round is submitted (batch mode).
        poll_seconds: How often a worker looks for jobs, permits and results.
        approval_timeout: Seconds a deferred tool call waits for a person before it is
            refused with `TIMED_OUT_TEXT` (domain/approvals.py); None (the default): it
            waits for ever. See `approve`.
        deps: The adapters (default: the composition root's).

        Raises:
            ConfigurationError: a mode other than interactive/batch, or concurrency below 1.
        """
        if mode not in ("interactive", "batch"):
            raise ConfigurationError(f"Fleet mode must be 'interactive' or 'batch', got {mode!r}")
        if concurrency < 1:
            raise ConfigurationError(f"Fleet concurrency must be at least 1, got {concurrency}")
        self._deps = deps or self._default_deps()
        self._factory = agent_factory
        self.name = name
        self.mode: FleetMode = mode
        self.worker_id = worker_id or environment.fleet_worker() or "local"
        self._concurrency = concurrency
        self._poll = poll_seconds
        self._storm = storm_seconds
        self._batch_window = batch_window_seconds
        self._batch_settle = batch_settle_seconds
        self.provider: str | None = None
        self.model: str | None = None
        self._client_kwargs: dict[str, Any] = {}
        self._no_batch_api = False
        """The model's deployment has no batch API the toolkit drives (a registry fact)."""
        if agent_factory is not None:
            probe = agent_factory()
            try:
                self.provider, self.model = probe.provider, probe.model
                self._client_kwargs = _client_kwargs(probe)
                row = self._deps.registry.row(probe.model)
                placed = getattr(getattr(probe, "settings", None), "deployment", None)
                deployment = getattr(placed, "deployment", None)
                self._no_batch_api = deployment is not None and row_lacks_batch(row, deployment)
            finally:
                run_blocking(probe.close)
            if rate_limit is None and row is not None and row.requests_per_minute:
                rate_limit = RateLimit(
                    row.requests_per_minute, rate_window_seconds, tokens=row.tokens_per_minute
                )
        self.rate_limit = rate_limit
        """The provider's fleet-wide rate limit (None: none known)."""
        self._engine = self._deps.engine(database_url, name)
        self._runner: FleetJobRunner | None = None
        if approval_timeout is not None and approval_timeout <= 0:
            raise ConfigurationError(
                f"approval_timeout must be a positive number of seconds, got {approval_timeout}"
            )
        self._approvals = FleetApprovals(self._engine, approval_timeout)

    # ------------------------------------------------------------------ queue side
    def submit(
        self,
        job_id: str,
        message: str,
        files: list[Any] | None = None,
        *,
        output_schema: Any = None,
        evidence: bool = False,
    ) -> bool:
        """Queue one job; returns False when ``job_id`` was already submitted (it runs once).

        ``files`` are paths or URLs the workers can read (``Agent.run(files=...)``), or
        ``Document`` values of a path or URL (their ``pages=`` kept). ``output_schema``
        (a module-level pydantic model, or its ``"module:Model"`` path: the worker imports
        it) makes the job a structured run, ``evidence=True`` an evidence extraction
        (``run(output_schema=..., evidence=True)``; the job result carries the evidence).

        Raises:
            ConfigurationError: an empty job id, a message that is not a string, a schema
                the workers could not import, or evidence without a schema.
        """
        if not isinstance(job_id, str) or not job_id:
            raise ConfigurationError(f"job_id must be a non-empty string, got {job_id!r}")
        if not isinstance(message, str):
            raise ConfigurationError(f"message must be a string, got {type(message).__name__}")
        stored = [f.to_payload() if isinstance(f, DocumentSource) else str(f) for f in files or []]
        payload: dict[str, Any] = {"message": message, "files": stored}
        if output_schema is not None:
            payload["output_schema"] = schema_reference(output_schema)
            payload["evidence"] = bool(evidence)
        elif evidence:
            raise ConfigurationError("evidence=True needs an output_schema")
        if carrier := trace_carrier():  # instrumented: the worker's spans join this trace
            payload["trace_context"] = carrier
        return self._engine.submit(job_id, payload)

    def jobs(self) -> list[JobRecord]:
        """Every job of the fleet with its state, in submission order (a parked job's
        continuations folded into it)."""
        return merge_continuations(self._engine.jobs())

    def pending_approvals(self) -> dict[str, list[PendingApproval]]:
        """The parked jobs' unanswered deferred calls, by job id (a deadline that passed
        refuses its calls first)."""
        self._approvals.expire(self._engine.jobs())
        return self._approvals.pending(self._engine.jobs())

    def approve(
        self, job_id: str, call_id: str, approved: bool, message: str | None = None
    ) -> bool:
        """Answer one deferred call of a parked job. Once every pending call of the job has
        an answer, its continuation is queued: the next worker (running now or started
        later) runs the approved calls with their recorded arguments, gives the refused
        ones an error result carrying ``message``, and finishes the job.

        Returns:
            bool: True when this answer completed the job's answers (the job is queued).

        Raises:
            ApprovalError: the job is not awaiting approval, or the call is not pending in it.
        """
        return self._approvals.approve(self._engine.jobs(), job_id, call_id, approved, message)

    def status(self) -> FleetStatus:
        """Counts of queued / running / done / failed jobs and the spend so far."""
        return status_of(self.jobs())

    def results(self) -> FleetResults:
        """The finished jobs' results by job id (done and failed), in submission order: a
        read-only mapping that reads each result from the database when it is asked for
        (a page at a time when iterated), so 50,000 results do not sit in memory."""
        return FleetResults(self._engine.jobs)

    # ------------------------------------------------------------------ worker side
    @property
    def runner(self) -> FleetJobRunner:
        """The job runner of this process (built on first use).

        Raises:
            StateError: the fleet has no agent factory.
        """
        if self._factory is None or self.provider is None:
            raise StateError("this Fleet has no agent_factory: it can submit and read, not run")
        if self._runner is None:
            batch_clients: Callable[[str], BatchClient | None] | None = None
            if self.mode == "batch":

                def batch_clients(provider: str) -> BatchClient | None:
                    if self._no_batch_api:  # the jobs run interactively (one log line)
                        return None
                    return self._deps.batch_clients(provider, **self._client_kwargs)

            self._runner = FleetJobRunner(
                self._factory,
                fleet=self.name,
                rate_limits={self.provider: self.rate_limit} if self.rate_limit else {},
                batch_clients=batch_clients,
                storm_seconds=self._storm,
                batch_settle_seconds=self._batch_settle,
                batch_window_seconds=self._batch_window,
            )
        return self._runner

    def queues(self) -> FleetQueues:
        """The queues this fleet's workers serve."""
        lanes = {}
        if self.rate_limit is not None and self.provider and self.mode == "interactive":
            limit = self.rate_limit
            lanes[lane_name(self.name, self.provider)] = RateLimit(
                limit.requests, headroom(limit.period_seconds), tokens=limit.tokens
            )
        return FleetQueues(
            self.name,
            worker_concurrency=self._concurrency,
            lanes=lanes,
            poll_seconds=self._poll,
        )

    def run(
        self,
        *,
        until_idle: bool = True,
        on_progress: Callable[[FleetStatus], None] | None = None,
    ) -> FleetResults:
        """Work in this process: resume this worker's unfinished jobs, then take queued
        ones until none is queued or running here (``until_idle``); returns the results.
        """
        runner = self.runner

        def tick(records: Any) -> None:
            self._approvals.expire(records)  # deadlines pass while the worker works
            if on_progress is not None:
                on_progress(status_of(merge_continuations(list(records))))

        # Every job's record is read per tick only when someone needs them: a progress
        # callback, or approval deadlines to pass (reading 50,000 records twice a second
        # would cost the worker more than its jobs).
        watched = on_progress is not None or self._approvals.timeout is not None
        if self._approvals.timeout is not None:
            self._approvals.expire(self._engine.jobs())  # and while no worker ran
        self._engine.serve(
            runner,
            self.queues(),
            worker_id=self.worker_id,
            until_idle=until_idle,
            on_tick=tick if watched else None,
        )
        return self.results()

    def close(self) -> None:
        """Release the engine's connections."""
        self._engine.close()

    def __enter__(self) -> Fleet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"Fleet(name={self.name!r}, model={self.model!r}, mode={self.mode!r}, "
            f"worker_id={self.worker_id!r})"
        )


def _client_kwargs(agent: FleetAgent | Any) -> dict[str, Any]:
    settings = getattr(agent, "settings", None)
    kwargs: dict[str, Any] = {}
    for key in ("api_key", "base_url"):
        value = getattr(settings, key, None)
        if value is not None:
            kwargs[key] = value
    return kwargs
