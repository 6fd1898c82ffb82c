"""Fleet jobs' step checkpoints in a table of the toolkit's own, beside DBOS's tables.

DBOS runs a job (its workflow, the queue, worker concurrency, the rate-limit lanes, the
recovery of a dead worker's jobs); the job's steps -- its model requests and tool calls --
are checkpointed here, in ``dpt_fleet_steps`` of the same system database (SQLite or
Postgres), one row per step::

    job_id, step, name, starts, outcome (pickled; NULL until the step completes), failed,
    started_at, done_at (epoch seconds), PRIMARY KEY (job_id, step)

* **One read per job execution.** When a job's workflow starts (`open_steps`) every
  checkpoint of the job is loaded in one query (a fresh job: no row); a step then needs
  no read. Steps are numbered by the job's own counter in the order they are called; a
  replayed step whose checkpoint has another name fails with a StateError naming the
  job, the step number and both names (the run was not deterministic).
* **The outcome is stored when the step completes**: its output pickled (as DBOS stores
  a step's output), or the Exception it raised, pickled and flagged ``failed``, which a
  replay raises again. An exception that does not survive pickling is raised without a
  checkpoint (the step runs again if the job is resumed). A cancellation
  (CancelledError, KeyboardInterrupt) and any other BaseException are never
  checkpointed.
* **Writes.** A plain step (a tool call) is one insert of its outcome. A marked step (a
  model request, which the provider bills even when a crash cuts its answer off) is one
  upsert of its start before it runs (``starts`` + 1) and one update of its outcome. When
  two executions of one job race (a worker declared dead that was not), the first
  outcome written wins (``ON CONFLICT ... WHERE outcome IS NULL``) and both continue
  with it; a start on a step already completed returns its outcome instead.
  `OwnSteps.unrecorded_starts` is the job's sum of ``starts - 1`` over its marked steps,
  with no query when every marked step the execution reached was started for the first
  time ever.
* **Cheap statements.** Each statement is a SQL string built once, run on the driver's
  own cursor (no SQLAlchemy construct per call) by one thread of the store's own that
  holds one connection: the event loop never blocks on the database, and the writes
  that are waiting when the thread comes round share one transaction.
* A job begun before the toolkit kept its own checkpoints has DBOS step records instead:
  it is recognised once at the start of its execution and keeps its DBOS steps
  (adapters/durable/dbos_steps.py). A job this version submits carries
  ``OWN_CHECKPOINTS`` in its payload and is never checked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import pickle
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar, cast

from doc_processing_toolkit.adapters.durable.dbos_steps import DbosSteps, is_dbos_step_job
from doc_processing_toolkit.adapters.durable.sql import (
    StepStarts,
    create_table,
    sqlite_returning,
    system_engine,
)
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.ports.durable import DurableSteps

__all__ = [
    "OWN_CHECKPOINTS",
    "STEPS_TABLE",
    "Checkpoint",
    "CheckpointStore",
    "OwnSteps",
    "ensure_steps_table",
    "open_steps",
]

T = TypeVar("T")

STEPS_TABLE = "dpt_fleet_steps"
OWN_CHECKPOINTS = "dpt_own_checkpoints"
"""The payload key (True) of a job submitted by a version that keeps its own checkpoints."""

_PROTOCOL = pickle.HIGHEST_PROTOCOL
_Deliver = Callable[[Any, BaseException | None], None]
_Item = tuple[Callable[..., Any], tuple[Any, ...], _Deliver]


class Checkpoint(NamedTuple):
    """One step's row: its name, how many executions started it (marked steps; 0 for a
    plain step), its pickled outcome (None: not completed) and whether that is an error."""

    name: str
    starts: int
    outcome: bytes | None
    failed: bool


def _row(values: Any) -> Checkpoint:
    name, starts, outcome, failed = values
    return Checkpoint(
        str(name), int(starts), None if outcome is None else bytes(outcome), bool(failed)
    )


def _create_steps_table(engine: Any, sqlite: bool) -> None:
    create_table(
        engine,
        STEPS_TABLE,
        "job_id TEXT NOT NULL, step INTEGER NOT NULL, name TEXT NOT NULL, "
        f"starts INTEGER NOT NULL, outcome {'BLOB' if sqlite else 'BYTEA'}, "
        "failed INTEGER NOT NULL, started_at DOUBLE PRECISION NOT NULL, "
        "done_at DOUBLE PRECISION, PRIMARY KEY (job_id, step)",
    )


def ensure_steps_table(url: str) -> None:
    """Create ``dpt_fleet_steps`` in the system database at ``url`` if it is missing: a
    Fleet opening its database creates it beside DBOS's own tables, so the schema is
    whole before any worker starts (a worker killed while it starts leaves it so)."""
    engine = system_engine(url, 1)
    try:
        _create_steps_table(engine, url.startswith("sqlite"))
    finally:
        engine.dispose()


class CheckpointStore:
    """The ``dpt_fleet_steps`` table of one system database, written by one thread."""

    def __init__(self, url: str) -> None:
        """Args:
        url: The system database's SQLAlchemy URL (see `dbos.system_database_url`).
        """
        sqlite = url.startswith("sqlite")
        self.location = url if sqlite else url.split("@")[-1]
        self._engine = system_engine(url, 1)
        _create_steps_table(self._engine, sqlite)
        t, p = STEPS_TABLE, "?" if sqlite else "%s"
        self._returning = not sqlite or sqlite_returning()
        back = " RETURNING name, starts, outcome, failed" if self._returning else ""
        self._load_sql = f"SELECT step, name, starts, outcome, failed FROM {t} WHERE job_id = {p}"
        self._start_sql = (
            f"INSERT INTO {t} (job_id, step, name, starts, failed, started_at) "
            f"VALUES ({p}, {p}, {p}, 1, 0, {p}) ON CONFLICT (job_id, step) DO UPDATE SET "
            f"starts = {t}.starts + CASE WHEN {t}.outcome IS NULL THEN 1 ELSE 0 END{back}"
        )
        self._finish_sql = (
            f"INSERT INTO {t} (job_id, step, name, starts, outcome, failed, started_at, "
            f"done_at) VALUES ({p}, {p}, {p}, 0, {p}, {p}, {p}, {p}) "
            "ON CONFLICT (job_id, step) DO UPDATE SET outcome = excluded.outcome, "
            f"failed = excluded.failed, done_at = excluded.done_at "
            f"WHERE {t}.outcome IS NULL{back}"
        )
        self._row_sql = (
            f"SELECT name, starts, outcome, failed FROM {t} WHERE job_id = {p} AND step = {p}"
        )
        self._unrecorded_sql = (
            f"SELECT COALESCE(SUM(starts - 1), 0) FROM {t} WHERE job_id = {p} AND starts > 0"
        )
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._closed = False
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._serve, args=(ready,), name="dpt-fleet-checkpoints", daemon=True
        )
        self._thread.start()
        ready.result(timeout=120)

    def __repr__(self) -> str:
        return f"CheckpointStore(database={self.location!r})"

    # ------------------------------------------------------------------ statements
    def load(self, cur: Any, job_id: str) -> dict[int, Checkpoint]:
        """Every checkpoint of job ``job_id``: step -> its row."""
        cur.execute(self._load_sql, (job_id,))
        return {int(r[0]): _row(r[1:]) for r in cur.fetchall()}

    def start(self, cur: Any, job_id: str, step: int, name: str, at: float) -> Checkpoint:
        """Record one start of a marked step (none on a step already completed); its row."""
        cur.execute(self._start_sql, (job_id, step, name, at))
        if self._returning:
            return _row(cur.fetchone())
        cur.execute(self._row_sql, (job_id, step))
        return _row(cur.fetchone())

    def finish(
        self,
        cur: Any,
        job_id: str,
        step: int,
        name: str,
        outcome: bytes,
        failed: bool,
        started: float,
    ) -> tuple[bool, Checkpoint]:
        """Store a step's outcome unless it has one: (whether this one was stored, the row)."""
        cur.execute(
            self._finish_sql, (job_id, step, name, outcome, int(failed), started, time.time())
        )
        stored = cur.fetchone() if self._returning else (() if cur.rowcount == 1 else None)
        if stored is not None and self._returning:
            return True, _row(stored)
        cur.execute(self._row_sql, (job_id, step))
        return stored is not None, _row(cur.fetchone())

    def unrecorded(self, cur: Any, job_id: str) -> int:
        """Starts of job ``job_id``'s marked steps beyond one per step."""
        cur.execute(self._unrecorded_sql, (job_id,))
        row = cur.fetchone()
        return int(row[0] or 0) if row is not None else 0

    # ------------------------------------------------------------------ the thread
    async def call(self, op: Callable[..., T], *args: Any) -> T:
        """Run statement ``op`` (a method above) on the store's thread and await its result."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def deliver(result: Any, error: BaseException | None) -> None:
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # pragma: no cover - the loop closed meanwhile
                pass

        self._put(op, args, deliver)
        return await future

    def call_sync(self, op: Callable[..., T], *args: Any) -> T:
        """`call` from a thread with no event loop (blocking)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def deliver(result: Any, error: BaseException | None) -> None:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        self._put(op, args, deliver)
        return future.result(timeout=300)

    def _put(self, op: Callable[..., Any], args: tuple[Any, ...], deliver: _Deliver) -> None:
        if self._closed:
            raise StateError(f"the fleet's checkpoint store on {self.location} is closed")
        self._queue.put((op, args, deliver))

    def _serve(self, ready: concurrent.futures.Future[None]) -> None:
        try:
            raw = self._engine.raw_connection()
        except BaseException as exc:  # the database cannot be reached: open() raises it
            ready.set_exception(exc)
            return
        ready.set_result(None)
        try:
            while True:
                work = [self._queue.get()]
                while True:
                    try:
                        work.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                items = [w for w in work if w is not None]
                if items:
                    raw = self._run(raw, items)
                if len(items) < len(work):
                    return
        finally:
            raw.close()

    def _run(self, raw: Any, items: list[_Item]) -> Any:
        """The items in one transaction; on an error each alone, on a fresh connection
        when the error broke this one. Returns the connection to go on with."""
        try:
            cur = raw.cursor()
            results = [op(cur, *args) for op, args, _ in items]
            raw.commit()
        except Exception:
            raw = self._reset(raw)
        else:
            for (_, _, deliver), result in zip(items, results, strict=True):
                deliver(result, None)
            return raw
        for op, args, deliver in items:
            try:
                cur = raw.cursor()
                result = op(cur, *args)
                raw.commit()
            except Exception as exc:
                raw = self._reset(raw)
                deliver(None, exc)
            else:
                deliver(result, None)
        return raw

    def _reset(self, raw: Any) -> Any:
        try:
            raw.rollback()
            return raw
        except Exception:  # the connection is gone: a new one
            raw.invalidate()
            return self._engine.raw_connection()

    def close(self) -> None:
        """Stop the thread (after the statements queued) and release the connection."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._thread.join(timeout=60)
            self._engine.dispose()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _replayed(row: Checkpoint) -> Any:
    """A checkpointed outcome: its output returned, or its exception raised."""
    value = pickle.loads(cast(bytes, row.outcome))
    if row.failed:
        raise value
    return value


def _pickled_error(exc: Exception) -> bytes | None:
    """``exc`` pickled, or None when it does not come back from its pickle."""
    try:
        blob = pickle.dumps(exc, _PROTOCOL)
        pickle.loads(blob)
    except Exception:
        return None
    return blob


class OwnSteps:
    """DurableSteps of one execution of a job, checkpointed in `CheckpointStore`."""

    def __init__(
        self,
        store: CheckpointStore,
        job_id: str,
        done: dict[int, Checkpoint],
        permit: Callable[[str], Awaitable[None]],
    ) -> None:
        """Args:
        store: The table.
        job_id: The job.
        done: The job's checkpoints, loaded when the execution started.
        permit: Takes a start slot on a rate-limited lane (a DBOS child workflow).
        """
        self._store = store
        self._job = job_id
        self._done = done
        self._permit = permit
        self._next = 0
        self._marked = 0
        """Marked steps this execution of the job reached."""
        self._first = 0
        """... whose start here was the step's first start ever."""

    def _number(self, name: str) -> tuple[int, Checkpoint | None]:
        step, self._next = self._next, self._next + 1
        row = self._done.pop(step, None)
        if row is not None:
            self._check(step, name, row)
        return step, row

    def _check(self, step: int, name: str, row: Checkpoint) -> None:
        if row.name != name:
            raise StateError(
                f"fleet job {self._job!r}: step {step} is {name!r} on replay but its "
                f"checkpoint is of {row.name!r}: the job did not run the same steps in the "
                "same order as before"
            )

    async def step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        step, row = self._number(name)
        if row is not None and row.outcome is not None:
            return cast(T, _replayed(row))
        return await self._run(step, name, fn, time.time())

    async def marked_step(self, name: str, fn: Callable[[], Awaitable[T]]) -> T:
        step, row = self._number(name)
        self._marked += 1
        if row is not None and row.outcome is not None:
            return cast(T, _replayed(row))
        started = time.time()
        store = self._store
        now = await store.call(store.start, self._job, step, name, started)
        self._check(step, name, now)
        if now.outcome is not None:  # another execution of the job checkpointed it
            return cast(T, _replayed(now))
        if now.starts == 1:
            self._first += 1
        return await self._run(step, name, fn, started)

    async def _run(self, step: int, name: str, fn: Callable[[], Awaitable[T]], started: float) -> T:
        store = self._store
        try:
            value = await fn()
        except Exception as exc:
            error = _pickled_error(exc)
            if error is None:
                raise
            stored, row = await store.call(
                store.finish, self._job, step, name, error, True, started
            )
            if stored:
                raise
            return cast(T, _replayed(row))
        try:
            output = pickle.dumps(value, _PROTOCOL)
        except Exception as exc:
            raise StateError(
                f"fleet job {self._job!r}: the output of step {step} ({name!r}) cannot be "
                f"checkpointed: {type(exc).__name__}: {exc}"
            ) from exc
        stored, row = await store.call(store.finish, self._job, step, name, output, False, started)
        return value if stored else cast(T, _replayed(row))

    async def unrecorded_starts(self) -> int:
        """The job's starts without a checkpoint. When every marked step this execution
        reached was started here for the first time ever, no earlier execution started
        one (it would have left a start, or a checkpoint this one replayed, on a step of
        the same number: a job replays its steps in their order): 0 without a query."""
        if self._marked and self._first == self._marked:
            return 0
        return await self._store.call(self._store.unrecorded, self._job)

    async def rate_permit(self, lane: str) -> None:
        await self._permit(lane)


async def open_steps(
    job_id: str,
    payload: dict[str, Any],
    *,
    store: CheckpointStore,
    starts: StepStarts,
    list_steps: Callable[..., Any],
    dbos: Any,
    permit: Callable[[str], Awaitable[None]],
) -> DurableSteps:
    """The steps of one execution of job ``job_id``: its checkpoints loaded (one query),
    or, for a job submitted by an older version (no ``OWN_CHECKPOINTS`` in ``payload``)
    that has none here, its DBOS steps when it has any (see dbos_steps.py)."""
    own = bool(payload.pop(OWN_CHECKPOINTS, False))
    done = await store.call(store.load, job_id)
    if not own and not done:
        if await asyncio.to_thread(is_dbos_step_job, list_steps, starts, job_id):
            return DbosSteps(dbos, starts, permit)
    return OwnSteps(store, job_id, done, permit)
