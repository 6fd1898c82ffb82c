"""The record of a session's turn that waits for approval (``metadata["awaiting_approval"]``):
written at the turn's commit, read by a resume, and the guard that refuses a new turn while
one waits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.config.schema_reference import (
    import_schema,
    schema_reference,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput
from doc_processing_toolkit.application.session.metadata import SessionMetadata
from doc_processing_toolkit.application.session.state import SessionState
from doc_processing_toolkit.domain.approvals import PendingApproval
from doc_processing_toolkit.domain.errors import ApprovalError, ConfigurationError, StateError

__all__ = [
    "AWAITING_KEY",
    "check_not_awaiting",
    "mark_awaiting",
    "pending_of",
    "resumed_options",
    "structured_record",
]

AWAITING_KEY = "awaiting_approval"
"""The session metadata key of the turn waiting for approval."""

_STRUCTURED_KEYS = ("output_schema", "evidence", "output_retries")


def pending_of(metadata: Mapping[str, Any]) -> list[PendingApproval]:
    """The calls the session's waiting turn holds (empty when none waits)."""
    awaiting = metadata.get("awaiting_approval")
    if not isinstance(awaiting, dict):
        return []
    return [PendingApproval.from_dict(p) for p in awaiting.get("pending", [])]


def structured_record(run_input: RunInput | None) -> dict[str, Any]:
    """What a waiting turn keeps of its run's structured output: the schema's import path
    (None when it has none: a model defined in a function resumes as such only in this
    process), ``evidence`` and ``output_retries``. Empty for a text turn."""
    if run_input is None or run_input.output_schema is None:
        return {}
    try:
        reference: str | None = schema_reference(run_input.output_schema)
    except ConfigurationError:
        reference = None
    return {
        "output_schema": reference,
        "evidence": run_input.evidence,
        "output_retries": run_input.output_retries,
    }


def resumed_options(awaiting: Mapping[str, Any], in_memory: Any) -> dict[str, Any]:
    """The `RunInput` keywords that finish a waiting turn as it started: its schema (this
    process's class, else imported from the record), ``evidence`` and ``output_retries``.

    Raises:
        ApprovalError: (code ``"schema_missing"``) the turn's schema cannot be had here.
    """
    if "output_schema" not in awaiting:
        return {}
    schema, reference = in_memory, awaiting.get("output_schema")
    if schema is None and reference:
        try:
            schema = import_schema(str(reference))
        except ConfigurationError as exc:
            raise ApprovalError(
                f"the waiting turn's output_schema cannot be imported: {exc}",
                code="schema_missing",
            ) from exc
    if schema is None:
        raise ApprovalError(
            "the waiting turn asked for an output_schema defined inside a function: resume it "
            "in the process that ran it, or define the schema at module level",
            code="schema_missing",
        )
    return {
        "output_schema": schema,
        "evidence": bool(awaiting.get("evidence")),
        "output_retries": awaiting.get("output_retries"),
    }


def mark_awaiting(
    metadata: SessionMetadata,
    result: AgentResult,
    *,
    start: int,
    end: int,
    run: int,
    agent: Any,
    structured: Mapping[str, Any] | None = None,
) -> None:
    """Record (or clear) the waiting turn in ``metadata`` after a commit (``structured``:
    `structured_record` of the turn's run; a resume keeps the record's own)."""
    before = metadata.pop("awaiting_approval", None) or {}
    if before.get("run") != run:
        before = {}  # another turn's record: its requests are not this turn's
    if structured is None:  # a resume that waits again: the turn's own options
        structured = {k: before[k] for k in _STRUCTURED_KEYS if k in before}
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
            **structured,
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
