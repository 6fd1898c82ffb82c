"""The toolkit's own tables in a fleet's system database (beside DBOS's), and the engines
that reach them.

* ``dpt_fleet_steps``: the jobs' step checkpoints (adapters/durable/checkpoints.py).
* ``dpt_fleet_step_starts``: the marked-step starts of a job begun before the toolkit kept
  its own checkpoints (its steps are DBOS steps: adapters/durable/dbos_steps.py).
* ``dpt_fleet_approval_answers``: answers to parked jobs' deferred calls.

A SQLite system database is opened in WAL mode with ``synchronous=NORMAL``: a killed
process loses nothing that was committed.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ANSWERS_TABLE",
    "STARTS_TABLE",
    "ApprovalAnswers",
    "StepStarts",
    "create_table",
    "postgres_engine",
    "sqlite_engine",
    "system_engine",
]

STARTS_TABLE = "dpt_fleet_step_starts"
ANSWERS_TABLE = "dpt_fleet_approval_answers"
"""Answers to parked jobs' deferred calls: (parking key, call id) -> JSON answer. A parked
job is a finished workflow (it holds no worker slot); an answer that completes a job's
answers enqueues the job's continuation workflow (application/fleet/approvals.py)."""


def sqlite_engine(url: str, pool_size: int = 10) -> Any:
    """A SQLAlchemy engine on a SQLite system database (WAL, ``synchronous=NORMAL``,
    transactions begun IMMEDIATE as DBOS's own engine begins them)."""
    import sqlalchemy as sa
    from sqlalchemy import event

    engine = sa.create_engine(url, pool_size=pool_size, max_overflow=0, pool_timeout=60)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = "IMMEDIATE"  # as DBOS's own SQLite engine
        dbapi_conn.execute("PRAGMA busy_timeout=30000")
        dbapi_conn.execute("PRAGMA journal_mode=WAL")
        dbapi_conn.execute("PRAGMA synchronous=NORMAL")
        dbapi_conn.execute("PRAGMA foreign_keys=ON")

    return engine


def postgres_engine(url: str, pool_size: int) -> Any:
    """A SQLAlchemy engine (psycopg 3) on a Postgres system database."""
    import sqlalchemy as sa

    return sa.create_engine(
        sa.make_url(url).set(drivername="postgresql+psycopg"), pool_size=pool_size
    )


def system_engine(url: str, pool_size: int) -> Any:
    """An engine on the system database at ``url`` (see `dbos.system_database_url`)."""
    if url.startswith("sqlite"):
        return sqlite_engine(url, pool_size)
    return postgres_engine(url, pool_size)


def create_table(engine: Any, table: str, columns: str) -> None:
    """``CREATE TABLE IF NOT EXISTS table (columns)``; another worker or process creating it
    at the same moment is no error."""
    import sqlalchemy as sa

    try:
        with engine.begin() as conn:
            conn.execute(sa.text(f"CREATE TABLE IF NOT EXISTS {table} ({columns})"))
    except sa.exc.DBAPIError:
        if not sa.inspect(engine).has_table(table):
            raise


def sqlite_returning() -> bool:
    """Whether this Python's SQLite has ``RETURNING`` (3.35 and later)."""
    import sqlite3

    return sqlite3.sqlite_version_info >= (3, 35)


class StepStarts:
    """The table of marked-step starts of a job whose steps are DBOS steps (a job begun
    before the toolkit kept its own checkpoints): (job id, DBOS step id) -> how many
    executions started the step. One upsert per start; a completed job whose row reads n
    started it n - 1 times without checkpointing it."""

    def __init__(self, engine: Any) -> None:
        """Args:
        engine: A SQLAlchemy engine on the system database (created tables: this one).
        """
        import sqlalchemy as sa

        self._sa = sa
        self._engine = engine
        self._returning = engine.dialect.name != "sqlite" or sqlite_returning()
        create_table(
            engine,
            STARTS_TABLE,
            "job_id TEXT NOT NULL, step INTEGER NOT NULL, name TEXT NOT NULL, "
            "starts INTEGER NOT NULL, PRIMARY KEY (job_id, step)",
        )

    def start(self, job_id: str, step: int, name: str) -> int:
        """Record one start of step ``step`` of job ``job_id``; the step's starts so far,
        this one included (0: not known, on a SQLite older than 3.35 without RETURNING)."""
        returning = " RETURNING starts" if self._returning else ""
        with self._engine.begin() as conn:
            row = conn.execute(
                self._sa.text(
                    f"INSERT INTO {STARTS_TABLE} (job_id, step, name, starts) "
                    "VALUES (:job, :step, :name, 1) ON CONFLICT (job_id, step) "
                    f"DO UPDATE SET starts = {STARTS_TABLE}.starts + 1{returning}"
                ),
                {"job": job_id, "step": step, "name": name},
            ).first()
        return int(row[0]) if row is not None else 0

    def unrecorded(self, job_id: str) -> int:
        """Starts of job ``job_id``'s marked steps beyond one per step."""
        with self._engine.connect() as conn:
            value = conn.execute(
                self._sa.text(
                    f"SELECT COALESCE(SUM(starts - 1), 0) FROM {STARTS_TABLE} WHERE job_id = :job"
                ),
                {"job": job_id},
            ).scalar()
        return int(value or 0)

    def any(self, job_id: str) -> bool:
        """Whether job ``job_id`` has a start recorded here."""
        with self._engine.connect() as conn:
            row = conn.execute(
                self._sa.text(f"SELECT 1 FROM {STARTS_TABLE} WHERE job_id = :job LIMIT 1"),
                {"job": job_id},
            ).first()
        return row is not None

    @classmethod
    def open(cls, url: str) -> StepStarts:
        """The table in the system database at ``url`` (see `system_database_url`)."""
        return cls(system_engine(url, 4 if not url.startswith("sqlite") else 10))

    def close(self) -> None:
        """Release the engine's connections."""
        self._engine.dispose()


class ApprovalAnswers:
    """The table of answers to parked jobs' deferred calls (first answer wins)."""

    def __init__(self, engine: Any) -> None:
        import sqlalchemy as sa

        self._sa = sa
        self._engine = engine
        create_table(
            engine,
            ANSWERS_TABLE,
            "job_key TEXT NOT NULL, call_id TEXT NOT NULL, answer TEXT NOT NULL, "
            "PRIMARY KEY (job_key, call_id)",
        )

    def record(self, key: str, call_id: str, answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Store ``answer`` unless the call has one; every answer under ``key``."""
        with self._engine.begin() as conn:
            conn.execute(
                self._sa.text(
                    f"INSERT INTO {ANSWERS_TABLE} (job_key, call_id, answer) "
                    "VALUES (:key, :call, :answer) ON CONFLICT (job_key, call_id) DO NOTHING"
                ),
                {"key": key, "call": call_id, "answer": json.dumps(answer)},
            )
        return self.read(key)

    def read(self, key: str) -> dict[str, dict[str, Any]]:
        """call id -> answer, under ``key``."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                self._sa.text(f"SELECT call_id, answer FROM {ANSWERS_TABLE} WHERE job_key = :key"),
                {"key": key},
            ).all()
        return {str(call): json.loads(answer) for call, answer in rows}

    def close(self) -> None:
        self._engine.dispose()
