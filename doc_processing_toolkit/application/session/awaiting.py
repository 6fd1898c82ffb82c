"""The record of a session's turn that waits for approval (``metadata["awaiting_approval"]``):
written at the turn's commit, read by a resume, and the guard that refuses a new turn while
one waits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.session.metadata import SessionMetadata
from doc_processing_toolkit.application.session.state import SessionState
from doc_processing_toolkit.domain.approvals import PendingApproval
from doc_processing_toolkit.domain.errors import StateError

__all__ = ["AWAITING_KEY", "check_not_awaiting", "mark_awaiting", "pending_of"]

AWAITING_KEY = "awaiting_approval"
"""The session metadata key of the turn waiting for approval."""


def pending_of(metadata: Mapping[str, Any]) -> list[PendingApproval]:
    """The calls the session's waiting turn holds (empty when none waits)."""
    awaiting = metadata.get("awaiting_approval")
    if not isinstance(awaiting, dict):
        return []
    return [PendingApproval.from_dict(p) for p in awaiting.get("pending", [])]


def mark_awaiting(
    metadata: SessionMetadata, result: AgentResult, *, start: int, end: int, run: int, agent: Any
) -> None:
    """Record (or clear) the waiting turn in ``metadata`` after a commit."""
    before = metadata.pop("awaiting_approval", None) or {}
    if before.get("run") != run:
        before = {}  # another turn's record: its requests are not this turn's
    if result.status == "awaiting_approval":
        metadata["awaiting_approval"] = {
            "pending": [p.to_dict() for p in result.pending_approvals],
            "run": run,
            "start": start,
            "end": end,
            "iteration": result.iterations,
            "requests": int(before.get("requests", 0)) + len(result.request_cost_records),
            "provider": agent.provider,
            "model": agent.model,
        }


def check_not_awaiting(state: SessionState) -> None:
    """Refuse a new turn while one waits for approval (a waiting turn that `clear` or a
    truncation removed from the history no longer blocks: its record is stale).

    Raises:
        StateError: a turn of this session waits for approval.
    """
    awaiting = state.metadata.get("awaiting_approval")
    pending = pending_of(state.metadata)
    if pending and isinstance(awaiting, dict) and awaiting.get("end") == len(state.messages):
        raise StateError(
            f"session {state.session_id!r} has a turn awaiting approval of "
            f"{[p.call_id for p in pending]}: resume(approvals=...) it before a new run"
        )
