"""SqliteSessionStore: one SQLite file (WAL), one transaction per completed turn.

A checkpoint costs the turn's new messages plus one header row, not the whole history.
A cut is recorded by the header's ``message_count``; rows past it are ignored on load and
overwritten by the next turns, never rewritten by the cut itself. A process killed
mid-turn leaves the last committed turn: SQLite's journal rolls the open transaction back.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import SessionNotFoundError

__all__ = ["SqliteSessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    message_count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
);
"""


class SqliteSessionStore:
    """A `SessionStore` in SQLite."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        """The database file (created with its parent directories)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def __repr__(self) -> str:
        return f"SqliteSessionStore({str(self.path)!r})"

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _write(
        self, session_id: str, header: dict[str, Any], count: int, rows: list[tuple[str, int, str]]
    ) -> None:
        header_text = json.dumps(header, ensure_ascii=False)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if rows:
                    self._db.executemany(
                        "INSERT OR REPLACE INTO messages (session_id, position, body) "
                        "VALUES (?, ?, ?)",
                        rows,
                    )
                self._db.execute(
                    "INSERT OR REPLACE INTO sessions (session_id, header, message_count) "
                    "VALUES (?, ?, ?)",
                    (session_id, header_text, count),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def append(
        self, session_id: str, start: int, messages: list[dict[str, Any]], header: dict[str, Any]
    ) -> None:
        """Commit one turn: its messages at ``start..`` and the new header, atomically."""
        rows = [
            (session_id, start + offset, json.dumps(message, ensure_ascii=False))
            for offset, message in enumerate(messages)
        ]
        self._write(session_id, header, start + len(messages), rows)

    def truncate(self, session_id: str, message_count: int, header: dict[str, Any]) -> None:
        """Record a cut to the first ``message_count`` messages (no row is rewritten)."""
        self._write(session_id, header, message_count, [])

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The envelope after the last committed turn, or None for an unknown session."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                row = self._db.execute(
                    "SELECT header, message_count FROM sessions WHERE session_id = ?",
                    (session_id,),
                ).fetchone()
                bodies = (
                    self._db.execute(
                        "SELECT body FROM messages WHERE session_id = ? AND position < ? "
                        "ORDER BY position",
                        (session_id, row[1]),
                    ).fetchall()
                    if row is not None
                    else []
                )
            finally:
                self._db.execute("COMMIT")
        if row is None:
            return None
        envelope: dict[str, Any] = json.loads(row[0])
        envelope.pop("message_count", None)
        envelope["messages"] = [json.loads(body) for (body,) in bodies]
        return envelope

    def export(self, session_id: str) -> dict[str, Any]:
        """The envelope ``to_dict()`` would write for the session's last completed turn.

        Raises:
            KeyError: the store has never seen ``session_id``.
        """
        envelope = self.load(session_id)
        if envelope is None:
            raise SessionNotFoundError(f"no session {session_id!r} in {self.path}")
        return envelope

    def session_ids(self) -> list[str]:
        """Every session the store holds."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT session_id FROM sessions")]
