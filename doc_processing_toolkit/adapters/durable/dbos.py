"""DbosEngine: the DurableEngine port on DBOS (durable workflows and queues in a library).

* A job is the DBOS workflow ``dpt_fleet_job`` whose workflow id is the job id, queued on
  the fleet's DBOS queue. Enqueueing an id DBOS already holds attaches to that workflow,
  so a job runs once. The queue's ``worker_concurrency`` is `PREFETCH` (2) times the
  fleet's concurrency, and a semaphore of the fleet's concurrency in the worker holds
  the jobs beyond it before they send anything: the next job starts the moment a
  running one ends, not on DBOS's next queue poll.
* A job's steps (`DurableSteps.step`, `DurableSteps.marked_step`) are no DBOS steps:
  they are checkpointed in the toolkit's own table ``dpt_fleet_steps`` of the same system
  database, every checkpoint of a job read in one query when its execution starts, a
  step's outcome (pickled) written when it completes, a model request's start recorded
  before it goes out (adapters/durable/checkpoints.py). DBOS keeps the job's workflow,
  the queues, the lanes and the recovery of a dead worker's jobs. A job begun by an
  older version, whose steps are DBOS steps, keeps them (adapters/durable/dbos_steps.py).
* `DurableSteps.rate_permit` enqueues the tiny workflow ``dpt_fleet_permit`` on
  the provider's lane, a DBOS queue with ``limiter={"limit": n, "period": s}``, and waits
  for it: DBOS starts at most n of them in any s-second window across every worker.
* The system database is a SQLite file (WAL, ``synchronous=NORMAL``: a killed process
  loses nothing that was committed) or Postgres, which several workers on several
  machines share. A worker launches DBOS with its ``worker_id`` as the executor id, so
  on start it recovers the workflows it left PENDING.
* The job queue's ``worker_concurrency`` and the lanes' limiters are written to the
  system database *before* DBOS is launched: DBOS's queue thread starts dequeuing at
  launch, and with the queue as ``submit`` left it (no limit) its first poll would start
  every queued job at once, putting every job's request in flight when the worker dies.
* A job whose run defers a tool call to a person parks: its workflow ends (SUCCESS, its
  output ``status: "awaiting_approval"`` with the waiting turn), so it holds no worker
  slot, where a workflow waiting on ``recv`` would hold one of the queue's. Answers go to
  the table ``dpt_fleet_approval_answers``; the answer that completes a job's answers
  enqueues its continuation workflow ``<job_id>@approval-<n>`` (application/fleet/approvals.py).
* While it drains, a worker looks for jobs it holds (PENDING under its executor id) that
  no workflow of its process runs (a workflow whose task died): it re-enqueues such a job
  once, and cancels it (the job fails) if it is orphaned again, so a drain always ends.

* Tracing: a job submitted under a trace (its payload's ``trace_context``) hands that
  context to DBOS too (``EnqueueOptions.otel_context``), so when DBOS's own tracing is
  on (``DPT_DBOS_TRACING=1``: DBOS's ``enable_otlp``, its workflow and step spans sent
  to the global tracer provider; off by default) the job's workflow span is in the
  submitter's trace and the toolkit's run span nests under it.

``dbos`` (the ``fleet`` extra) is imported when an engine is built, never at package
import. DBOS is one per process: one worker serves at a time in a process.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.adapters import _environment
from doc_processing_toolkit.adapters.durable.checkpoints import (
    OWN_CHECKPOINTS,
    CheckpointStore,
    ensure_steps_table,
    open_steps,
)
from doc_processing_toolkit.adapters.durable.records import job_record
from doc_processing_toolkit.adapters.durable.sql import (
    ANSWERS_TABLE,
    STARTS_TABLE,
    ApprovalAnswers,
    StepStarts,
    sqlite_engine,
    system_engine,
)
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    MissingDependencyError,
    StateError,
)
from doc_processing_toolkit.domain.fleet import FleetQueues, JobRecord
from doc_processing_toolkit.ports.durable import JobRunner

__all__ = [
    "ANSWERS_TABLE",
    "JOB_WORKFLOW",
    "PERMIT_WORKFLOW",
    "STARTS_TABLE",
    "ApprovalAnswers",
    "DbosEngine",
    "StepStarts",
    "system_database_url",
]

log = get_logger(__name__)

JOB_WORKFLOW = "dpt_fleet_job"
PERMIT_WORKFLOW = "dpt_fleet_permit"
APP_VERSION = "dpt-fleet-1"
"""Fixed, so every worker of every build dequeues the same jobs (DBOS otherwise derives
the version from a hash of the workflow code)."""

APP_NAME = "doc-processing-toolkit"

_runner: JobRunner | None = None
_starts: StepStarts | None = None
_store: CheckpointStore | None = None
_list_steps: list[Callable[..., Any]] = [lambda *_a, **_k: []]
"""DBOSClient.list_workflow_steps of the serving engine (see `open_steps`)."""
_poll_seconds = 0.05
_registered: dict[str, Any] = {}
_serve_lock = threading.Lock()
_TICK_SECONDS = 0.5
_BUSY_CHECK_SECONDS = 1.0
"""How often a worker that runs jobs looks for orphans (its drain cannot end meanwhile)."""
PREFETCH = 2
"""A worker claims up to PREFETCH x its concurrency of jobs; the jobs beyond its
concurrency wait in the worker (no request sent) and start the moment a slot frees,
instead of on DBOS's next queue poll."""
_slots: list[asyncio.Semaphore] = []
_live: set[str] = set()
"""Job ids whose workflow runs in this process right now."""
_live_lock = threading.Lock()
ORPHAN_GRACE_SECONDS = 30.0
"""How long a job of this worker may be PENDING with no workflow running it in this
process (the moment between a dequeue and the workflow's start) before it is re-enqueued."""


def system_database_url(database_url: str | None, name: str) -> str:
    """The SQLAlchemy URL of the system database (None: ``<cwd>/<name>.sqlite``)."""
    if database_url is None:
        return f"sqlite:///{Path.cwd() / (name + '.sqlite')}"
    if database_url.startswith(("postgresql://", "postgres://", "postgresql+")):
        return "postgresql://" + database_url.split("://", 1)[1]
    if database_url.startswith("sqlite:"):
        return database_url
    if "://" in database_url:
        raise ConfigurationError(
            f"database_url must be a postgresql:// or sqlite:/// URL or a file path, got "
            f"{database_url.split('://', 1)[0]}://..."
        )
    return f"sqlite:///{Path(database_url).resolve()}"


def _import_dbos() -> Any:
    try:
        import dbos
    except ImportError as exc:  # pragma: no cover - the fleet extra is missing
        raise MissingDependencyError(
            "fleets need DBOS: pip install 'doc-processing-toolkit[fleet]'"
        ) from exc
    return dbos


def _otel_context(carrier: dict[str, str]) -> Any:
    """The OpenTelemetry context of a job's trace carrier (present only when telemetry
    is on, so opentelemetry-api is installed and imported already)."""
    from opentelemetry import propagate

    return propagate.extract(carrier)


async def _rate_permit(lane: str) -> None:
    """Wait for a start slot on ``lane``: the permit workflow, enqueued there and awaited."""
    dbos = _import_dbos()
    handle = await dbos.DBOS.enqueue_workflow_async(lane, _registered["permit"])
    await handle.get_result(polling_interval_sec=_poll_seconds)


def _register(dbos: Any) -> None:
    """Register the two workflows with DBOS (once per process, before launch)."""
    if _registered:
        return
    DBOS = dbos.DBOS

    @DBOS.workflow(name=JOB_WORKFLOW, max_recovery_attempts=50)  # type: ignore[untyped-decorator]
    async def job_workflow(payload: dict[str, Any]) -> dict[str, Any]:
        if _runner is None or _starts is None or _store is None:  # pragma: no cover
            raise StateError("a fleet job ran outside DbosEngine.serve()")
        job_id = str(DBOS.workflow_id)
        with _live_lock:
            _live.add(job_id)
        try:
            steps = await open_steps(
                job_id,
                payload,
                store=_store,
                starts=_starts,
                list_steps=_list_steps[0],
                dbos=dbos,
                permit=_rate_permit,
            )
            async with _slots[0]:  # a claimed job beyond the concurrency waits here
                return await _runner(job_id, payload, steps)
        finally:
            with _live_lock:
                _live.discard(job_id)

    @DBOS.workflow(name=PERMIT_WORKFLOW)  # type: ignore[untyped-decorator]
    async def permit_workflow() -> float:
        return time.time()

    _registered["job"] = job_workflow
    _registered["permit"] = permit_workflow


class DbosEngine:
    """A fleet's jobs in a DBOS system database (see the module docstring)."""

    def __init__(self, database_url: str | None, name: str) -> None:
        """Args:
        database_url: None (SQLite ``<cwd>/<name>.sqlite``), a file path, a
            ``sqlite:///`` URL or a ``postgresql://`` URL.
        name: The fleet's name: its job queue.
        """
        self._dbos = _import_dbos()
        self.name = name
        self.url = system_database_url(database_url, name)
        self._sqlite = self.url.startswith("sqlite")
        self._dbos.DBOS.migrate(self.url)
        ensure_steps_table(self.url)  # the toolkit's table too, before any worker runs
        self._client = self._dbos.DBOSClient(
            system_database_url=None if self._sqlite else self.url,
            system_database_engine=sqlite_engine(self.url) if self._sqlite else None,
            application_name=APP_NAME,
        )
        self._queue_ready = False
        self._answers: ApprovalAnswers | None = None

    def _answer_table(self) -> ApprovalAnswers:
        if self._answers is None:
            self._answers = ApprovalAnswers(system_engine(self.url, 10 if self._sqlite else 2))
        return self._answers

    def record_answer(
        self, key: str, call_id: str, answer: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        """Store one answer to a parked job's call (see `ApprovalAnswers`)."""
        return self._answer_table().record(key, call_id, answer)

    def answers(self, key: str) -> dict[str, dict[str, Any]]:
        """The answers stored under ``key``."""
        return self._answer_table().read(key)

    def __repr__(self) -> str:
        location = self.url.split("@")[-1] if not self._sqlite else self.url
        return f"DbosEngine(name={self.name!r}, database={location!r})"

    # ------------------------------------------------------------------ queue side
    def _ensure_queue(self) -> None:
        if not self._queue_ready:
            if self._client.retrieve_queue(self.name) is None:
                self._client.register_queue(self.name)
            self._queue_ready = True

    def submit(self, job_id: str, payload: dict[str, Any]) -> bool:
        """Queue the job unless DBOS holds ``job_id`` already; True when it is new."""
        self._ensure_queue()
        options = self._dbos.EnqueueOptions(
            queue_name=self.name,
            workflow_name=JOB_WORKFLOW,
            workflow_id=job_id,
            app_version=APP_VERSION,
            workflow_id_reuse_policy="reject",
        )
        if carrier := payload.get("trace_context"):  # DBOS's workflow span joins it too
            options["otel_context"] = _otel_context(carrier)
        try:  # the job's steps: checkpoints of our own (see checkpoints.py)
            self._client.enqueue(options, {**payload, OWN_CHECKPOINTS: True})
        except self._dbos.error.DBOSWorkflowIDInUseError:
            return False
        return True

    def jobs(
        self, job_ids: Sequence[str] | None = None, *, offset: int = 0, limit: int | None = None
    ) -> list[JobRecord]:
        """Every job of this fleet's queue, oldest first (see `DurableEngine.jobs`)."""
        if job_ids is not None and not job_ids:
            return []
        rows = self._client.list_workflows(
            workflow_ids=list(job_ids) if job_ids is not None else None,
            name=JOB_WORKFLOW,
            queue_name=self.name,
            load_input=False,
            sort_desc=False,
            offset=offset or None,
            limit=limit,
        )
        return [job_record(w) for w in rows]

    # ------------------------------------------------------------------ worker side
    def serve(
        self,
        runner: JobRunner,
        queues: FleetQueues,
        *,
        worker_id: str,
        until_idle: bool = True,
        on_tick: Callable[[Sequence[JobRecord]], None] | None = None,
    ) -> None:
        """Launch DBOS as worker ``worker_id``, drain the queue, shut DBOS down."""
        global _runner, _poll_seconds, _starts, _store
        if not _serve_lock.acquire(blocking=False):
            raise StateError("a DbosEngine is already serving in this process")
        DBOS = self._dbos.DBOS
        try:
            self._ensure_queue()
            _register(self._dbos)
            _starts = StepStarts.open(self.url)
            _store = CheckpointStore(self.url)
            _list_steps[0] = self._client.list_workflow_steps
            _slots[:] = [asyncio.Semaphore(queues.worker_concurrency)]
            _runner, _poll_seconds = runner, queues.poll_seconds
            config: dict[str, Any] = {
                "name": APP_NAME,
                "system_database_url": self.url,
                "application_version": APP_VERSION,
                "executor_id": worker_id,
                "log_level": _environment.variable("DPT_DBOS_LOG_LEVEL", "WARNING"),
                "notification_listener_polling_interval_sec": queues.poll_seconds,
            }
            if self._sqlite:
                config["system_database_engine"] = sqlite_engine(self.url)
            if _environment.switch("DPT_DBOS_TRACING", default=False):
                config["enable_otlp"] = True  # DBOS's spans, to the global tracer provider
            self._register_queues(queues)  # before launch: see the module docstring
            DBOS(config=config)
            DBOS.listen_queues([queues.name, *queues.lanes])
            DBOS.launch()
            self._drain(worker_id, queues.poll_seconds, until_idle, on_tick)
        finally:
            try:
                DBOS.destroy()
            finally:
                for table in (_starts, _store):
                    if table is not None:
                        table.close()
                _runner, _starts, _store = None, None, None
                _serve_lock.release()

    def _register_queues(self, queues: FleetQueues) -> None:
        self._client.register_queue(
            queues.name,
            worker_concurrency=queues.worker_concurrency * PREFETCH,
            polling_interval_sec=queues.poll_seconds,
            on_conflict="always_update",
        )
        for lane, limit in queues.lanes.items():
            self._client.register_queue(
                lane,
                limiter={"limit": limit.requests, "period": limit.period_seconds},
                polling_interval_sec=min(queues.poll_seconds, 0.05),
                on_conflict="always_update",
            )
        self._queue_ready = True

    def _waiting(self, worker_id: str) -> tuple[bool, list[str]]:
        """Whether any job of the queue waits to be dequeued, and the jobs ``worker_id``
        holds (PENDING under its executor id): two narrow queries (the first reads at
        most one row), so a drain's poll costs the same at 50 jobs queued as at 50,000."""
        queued = self._client.list_workflows(
            name=JOB_WORKFLOW,
            queue_name=self.name,
            status=["ENQUEUED", "DELAYED"],
            limit=1,
            load_input=False,
            load_output=False,
        )
        held = self._client.list_workflows(
            name=JOB_WORKFLOW,
            queue_name=self.name,
            status="PENDING",
            executor_id=worker_id,
            load_input=False,
            load_output=False,
        )
        return bool(queued), [str(w.workflow_id) for w in held]

    def _drain(
        self,
        worker_id: str,
        poll: float,
        until_idle: bool,
        on_tick: Callable[[Sequence[JobRecord]], None] | None,
    ) -> None:
        last_tick = last_check = 0.0
        orphans = _Orphans(self._dbos.DBOS, self.name)
        while True:
            if on_tick is not None and time.monotonic() - last_tick >= _TICK_SECONDS:
                on_tick(self.jobs())
                last_tick = time.monotonic()
            with _live_lock:
                busy = bool(_live)
            if busy and time.monotonic() - last_check < _BUSY_CHECK_SECONDS:
                time.sleep(max(poll, 0.2))  # a job runs here: the drain cannot end yet
                continue
            last_check = time.monotonic()
            queued, held = self._waiting(worker_id)
            orphans.check(held)
            mine = bool(held)
            if until_idle and not queued and not mine:
                if on_tick is not None:
                    on_tick(self.jobs())
                return
            time.sleep(max(poll, 0.2))

    def close(self) -> None:
        """Release the client's connections."""
        self._client.destroy()
        if self._answers is not None:
            self._answers.close()


class _Orphans:
    """Jobs this worker holds that no workflow of its process runs (see the module
    docstring): re-enqueued once, cancelled the second time."""

    def __init__(self, dbos: Any, queue: str) -> None:
        self._dbos = dbos
        self._queue = queue
        self._since: dict[str, float] = {}
        self._resumed: set[str] = set()

    def check(self, held: list[str]) -> None:
        now = time.monotonic()
        with _live_lock:
            orphaned = [job for job in held if job not in _live]
        self._since = {job: self._since.get(job, now) for job in orphaned}
        for job, since in list(self._since.items()):
            if now - since < ORPHAN_GRACE_SECONDS:
                continue
            del self._since[job]
            if job in self._resumed:
                log.error("fleet job orphaned again: cancelled (it fails)", job_id=job)
                self._dbos.cancel_workflow(job)
            else:
                log.warning("fleet job held by no live workflow: re-enqueued", job_id=job)
                self._resumed.add(job)
                self._dbos.resume_workflow(job, queue_name=self._queue)
