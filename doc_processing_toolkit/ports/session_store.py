"""SessionStore: a durable, per-turn record of a session's history."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["SessionStore"]


@runtime_checkable
class SessionStore(Protocol):
    """Keeps a session as it grows, one completed turn at a time.

    ``append`` is called once per completed turn with the messages that turn added
    (starting at index ``start`` of the history) and the envelope header (every
    ``to_dict()`` key but ``messages``), and must commit both or neither, so the store
    always holds the last completed turn. ``truncate`` records a cut (the history keeps its
    first ``message_count`` messages). ``load`` returns the envelope ``to_dict()`` would
    have written after the last committed turn, or None for an unknown session.
    """

    def append(
        self, session_id: str, start: int, messages: list[dict[str, Any]], header: dict[str, Any]
    ) -> None:
        """Commit one turn: ``messages`` at ``start..`` and the new header, atomically."""
        ...

    def truncate(self, session_id: str, message_count: int, header: dict[str, Any]) -> None:
        """Record a cut to the first ``message_count`` messages, with the new header."""
        ...

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The session's envelope, or None when the store has never seen it."""
        ...
