"""SqliteSessionStore: one SQLite file (WAL), one transaction per completed turn.

A checkpoint costs the turn's new messages plus one header row, not the whole history.
A cut is recorded by the header's ``message_count``; rows past it are ignored on load and
overwritten by the next turns, never rewritten by the cut itself. A process killed
mid-turn leaves the last committed turn: SQLite's journal rolls the open transaction back.

Writers are checked optimistically, inside the write's own transaction: an append must
start where the stored history ends, and every write must find the session at the
revision this store object last read or wrote. Another process (or another store object)
that committed in between makes the write raise `SessionConflictError` and write
nothing, so two writers on one ``session_id`` never interleave their turns.

Every SQLite failure (a full disk, a file that is not a database, a corrupt page) is a
`SessionStoreError` naming the file and the session; a stored row that does not
decode is a `MalformedEnvelopeError` naming the file, the session and the row.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import (
    SessionConflictError,
    SessionNotFoundError,
    SessionStoreError,
)
from doc_processing_toolkit.domain.session import MalformedEnvelopeError, decode_json_text

__all__ = ["SqliteSessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
);
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class SqliteSessionStore:
    """A `SessionStore` in SQLite."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Open (or create) the store.

        Raises:
            SessionStoreError: the directory cannot be created, or the file is not a
                readable SQLite database (garbage, truncated, locked past the timeout).
        """
        self.path = Path(path)
        """The database file (created with its parent directories)."""
        self._lock = threading.Lock()
        self._revisions: dict[str, int] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SessionStoreError(
                f"session store {self.path}: cannot create its directory: {exc.strerror or exc}",
                path=self.path,
            ) from None
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._error(exc, None, "cannot open") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._migrate()
        except sqlite3.Error as exc:
            self._db.close()
            raise self._error(exc, None, "cannot open") from None

    def __repr__(self) -> str:
        return f"SqliteSessionStore({str(self.path)!r})"

    def _error(self, exc: sqlite3.Error, session_id: str | None, doing: str) -> SessionStoreError:
        what = f", session {session_id!r}" if session_id is not None else ""
        return SessionStoreError(
            f"session store {self.path}{what}: {doing}: {exc}",
            path=self.path,
            session_id=session_id,
        )

    def _migrate(self) -> None:
        """Add the ``revision`` column to a store written before it existed."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(sessions)")}
        if "revision" in columns:
            return
        with self._transaction(None, "cannot upgrade the schema"):
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(sessions)")}
            if "revision" not in columns:
                self._db.execute(
                    "ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0"
                )

    @contextmanager
    def _transaction(self, session_id: str | None, doing: str) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; rolled back on any failure (unless SQLite already
        did, as it does on a full disk), every SQLite error raised as a SessionStoreError."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc, session_id, doing) from None
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:  # pragma: no cover - the original error is the story
                    pass
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc, session_id, doing) from None
            raise

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _write(
        self,
        session_id: str,
        header: dict[str, Any],
        count: int,
        rows: list[tuple[str, int, str]],
        *,
        start: int | None,
    ) -> None:
        try:
            header_text = _dumps(header)
        except ValueError as exc:
            raise SessionStoreError(
                f"session store {self.path}, session {session_id!r}: the header holds a value "
                f"JSON cannot carry: {exc}",
                path=self.path,
                session_id=session_id,
            ) from None
        with self._lock:
            self._commit_checked(session_id, header_text, count, rows, start=start)

    def _commit_checked(
        self,
        session_id: str,
        header_text: str,
        count: int,
        rows: list[tuple[str, int, str]],
        *,
        start: int | None,
    ) -> None:
        """One write, in one transaction, after the optimistic check (the lock is held)."""
        with self._transaction(session_id, "cannot save the turn"):
            stored = self._db.execute(
                "SELECT message_count, revision FROM sessions WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            found_count, found_revision = (0, 0) if stored is None else (stored[0], stored[1])
            known = self._revisions.get(session_id)
            if (start is not None and found_count != start) or (
                known is not None and found_revision != known
            ):
                raise SessionConflictError(
                    f"session {session_id!r} in {self.path} was changed by another writer "
                    f"(this session holds {start if start is not None else 'its'} stored "
                    f"messages, the store {found_count}); nothing was written: reload the "
                    "session from the store and resend the message",
                    path=self.path,
                    session_id=session_id,
                    expected=start,
                    found=found_count,
                )
            if rows:
                self._db.executemany(
                    "INSERT OR REPLACE INTO messages (session_id, position, body) VALUES (?, ?, ?)",
                    rows,
                )
            self._db.execute(
                "INSERT OR REPLACE INTO sessions (session_id, header, message_count, revision) "
                "VALUES (?, ?, ?, ?)",
                (session_id, header_text, count, found_revision + 1),
            )
        self._revisions[session_id] = found_revision + 1

    def append(
        self, session_id: str, start: int, messages: list[dict[str, Any]], header: dict[str, Any]
    ) -> None:
        """Commit one turn: its messages at ``start..`` and the new header, atomically.

        Raises:
            SessionConflictError: the store does not hold exactly ``start`` messages, or
                another writer committed since this store object last read the session.
            SessionStoreError: SQLite refused the write (a full disk, a corrupt file).
        """
        rows = self._rows(session_id, start, messages)
        self._write(session_id, header, start + len(messages), rows, start=start)

    def _rows(
        self, session_id: str, start: int, messages: list[dict[str, Any]]
    ) -> list[tuple[str, int, str]]:
        try:
            return [
                (session_id, start + offset, _dumps(message))
                for offset, message in enumerate(messages)
            ]
        except ValueError as exc:
            raise SessionStoreError(
                f"session store {self.path}, session {session_id!r}: a message holds a value "
                f"JSON cannot carry: {exc}",
                path=self.path,
                session_id=session_id,
            ) from None

    def replace(
        self, session_id: str, messages: list[dict[str, Any]], header: dict[str, Any]
    ) -> None:
        """Replace the whole stored history (a compaction or a rewritten prefix) in one
        transaction, so no reader ever sees it half-way.

        Raises:
            SessionConflictError: another writer committed since this store object last
                read the session.
            SessionStoreError: SQLite refused the write.
        """
        rows = self._rows(session_id, 0, messages)
        self._write(session_id, header, len(messages), rows, start=None)

    def truncate(self, session_id: str, message_count: int, header: dict[str, Any]) -> None:
        """Record a cut to the first ``message_count`` messages (no row is rewritten).

        Raises:
            SessionConflictError: another writer committed since this store object last
                read the session.
            SessionStoreError: SQLite refused the write.
        """
        self._write(session_id, header, message_count, [], start=None)

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The envelope after the last committed turn, or None for an unknown session.

        The session's next write through this store object must find the store at the
        revision read here (see `SessionConflictError`).

        Raises:
            SessionStoreError: the file cannot be read (corrupt, truncated).
            MalformedEnvelopeError: a stored row does not decode (names the row).
        """
        return self._read(session_id, remember=True)

    def _read(self, session_id: str, *, remember: bool) -> dict[str, Any] | None:
        with self._lock:
            try:
                self._db.execute("BEGIN")
                try:
                    row = self._db.execute(
                        "SELECT header, message_count, revision FROM sessions WHERE session_id = ?",
                        (session_id,),
                    ).fetchone()
                    bodies = (
                        self._db.execute(
                            "SELECT position, body FROM messages WHERE session_id = ? "
                            "AND position < ? ORDER BY position",
                            (session_id, row[1]),
                        ).fetchall()
                        if row is not None
                        else []
                    )
                finally:
                    if self._db.in_transaction:
                        self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._error(exc, session_id, "cannot read the session") from None
            if remember:
                self._revisions[session_id] = 0 if row is None else int(row[2])
        if row is None:
            return None
        where = f"{self.path} session {session_id!r}"
        envelope = decode_json_text(row[0], source=f"{where} header")
        if not isinstance(envelope, dict):
            raise MalformedEnvelopeError("<envelope>", "the header is not an object", source=where)
        envelope.pop("message_count", None)
        if envelope.get("session_id") != session_id:
            raise MalformedEnvelopeError(
                "session_id", f"the header names {envelope.get('session_id')!r}", source=where
            )
        if [position for position, _ in bodies] != list(range(row[1])):
            raise MalformedEnvelopeError(
                "messages",
                f"the header counts {row[1]} messages, the store holds {len(bodies)} of them",
                source=where,
            )
        envelope["messages"] = [
            decode_json_text(body, source=f"{where} row {position}", key=f"messages.{position}")
            for position, body in bodies
        ]
        return envelope

    def export(self, session_id: str) -> dict[str, Any]:
        """The envelope ``to_dict()`` would write for the session's last completed turn.

        Raises:
            SessionNotFoundError: (a KeyError) the store has never seen ``session_id``.
        """
        envelope = self._read(session_id, remember=False)
        if envelope is None:
            raise SessionNotFoundError(f"no session {session_id!r} in {self.path}")
        return envelope

    def session_ids(self) -> list[str]:
        """Every session the store holds."""
        with self._lock:
            try:
                return [r[0] for r in self._db.execute("SELECT session_id FROM sessions")]
            except sqlite3.Error as exc:
                raise self._error(exc, None, "cannot list the sessions") from None
