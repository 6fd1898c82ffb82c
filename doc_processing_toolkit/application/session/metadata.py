"""A session's metadata: created_at, the cumulative totals, and what each turn adds.

The totals are the history of what the session spent, never of what it holds: clearing
or truncating never rewinds them, and a failed turn adds the spend it really billed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypedDict, cast

from doc_processing_toolkit.domain.grounding import citation_to_dict

__all__ = [
    "FIRST_RUN_TOTALS",
    "InterruptedTurn",
    "RunBoundary",
    "ServedModel",
    "SessionMetadata",
    "as_metadata",
    "fold_spend",
    "new_metadata",
    "record_citations",
    "record_served_models",
    "utc_now",
]


class RunBoundary(TypedDict):
    """Where one recorded turn's messages sit in the history."""

    run: int
    start: int
    end: int


class InterruptedTurn(TypedDict):
    """The most recent turn that did not complete (``AgentSession.interrupted_turn``)."""

    message: str
    files: int
    """How many files were attached."""
    error: str
    at: str
    run: int
    """The run number the turn would have had."""


class ServedModel(TypedDict, total=False):
    """One run's served model (``requests`` of them), or one rebind (``rebind``: True)."""

    run: int
    provider: str
    requested_model: str
    model: str
    requests: int
    rebind: bool


class SessionMetadata(TypedDict, total=False):
    """A session's metadata (``AgentSession.metadata``): a JSON-clean dict, typed.

    The envelope carries it as it is; a key a newer writer added is kept and ignored.
    """

    created_at: str | None
    run_count: int
    total_tokens: int
    total_cost: float
    total_input_tokens: int
    total_output_tokens: int
    total_cached_input_tokens: int
    total_cache_write_tokens: int
    total_retry_cost: float
    total_retry_count: int
    total_retry_input_tokens: int
    total_retry_output_tokens: int
    total_cost_inclusive: float
    compaction_count: int
    compaction_archives: list[Any]
    run_boundaries: list[RunBoundary]
    boundaries_reset_at_run: int
    served_models: list[ServedModel]
    """One record per run and served model, and one per rebind."""
    pending_injections: list[str]
    interrupted_turn: InterruptedTurn
    conversion_report: list[dict[str, Any]]
    tool_surface_drift: list[dict[str, Any]]
    awaiting_approval: dict[str, Any]
    """The turn waiting for approval (application/session/awaiting.py), when one does."""
    citations: list[dict[str, Any]]
    """One ``{"run", "citations"}`` record per run that had citations (plain data)."""


def as_metadata(value: Mapping[str, Any]) -> SessionMetadata:
    """``value`` (an envelope's metadata, or an edited copy) as the typed metadata."""
    return cast(SessionMetadata, value)


FIRST_RUN_TOTALS = (
    "total_cached_input_tokens",
    "total_cache_write_tokens",
    "total_retry_cost",
    "total_retry_count",
    "total_retry_input_tokens",
    "total_retry_output_tokens",
    "total_cost_inclusive",
)
"""The totals the first run adds to metadata."""


def utc_now() -> str:
    """Now, UTC, ISO 8601."""
    return datetime.now(UTC).isoformat()


def new_metadata() -> SessionMetadata:
    """The metadata of a session that has run nothing."""
    return {
        "created_at": utc_now(),
        "total_tokens": 0,
        "total_cost": 0.0,
        "total_input_tokens": 0,
        "total_output_tokens": 0,
        "run_count": 0,
        "compaction_count": 0,
        "compaction_archives": [],
        "run_boundaries": [],
        "served_models": [],
        "pending_injections": [],
    }


def _get(result: Any, name: str, default: Any = 0) -> Any:
    if isinstance(result, dict):
        return result.get(name, default)
    return getattr(result, name, default)


def fold_spend(metadata: SessionMetadata, result: Any) -> None:
    """Add one run's spend (an AgentResult, or its ``to_dict()``) to the totals."""
    metadata.setdefault("total_cached_input_tokens", 0)
    metadata.setdefault("total_cache_write_tokens", 0)
    metadata.setdefault("total_retry_cost", 0.0)
    metadata.setdefault("total_retry_count", 0)
    metadata.setdefault("total_retry_input_tokens", 0)
    metadata.setdefault("total_retry_output_tokens", 0)
    metadata.setdefault("total_cost_inclusive", 0.0)
    input_tokens = int(_get(result, "input_tokens") or 0)
    output_tokens = int(_get(result, "output_tokens") or 0)
    cost = float(_get(result, "cost") or 0.0)
    metadata["total_input_tokens"] += input_tokens
    metadata["total_output_tokens"] += output_tokens
    metadata["total_tokens"] += input_tokens + output_tokens
    metadata["total_cost"] += cost
    metadata["total_cost_inclusive"] = metadata["total_cost"]
    metadata["total_cached_input_tokens"] += int(_get(result, "cached_input_tokens") or 0)
    metadata["total_cache_write_tokens"] += int(_get(result, "cache_write_tokens") or 0)
    metadata["total_retry_cost"] += float(_get(result, "retry_cost") or 0.0)
    metadata["total_retry_count"] += int(_get(result, "retry_count") or 0)
    metadata["total_retry_input_tokens"] += int(_get(result, "retry_input_tokens") or 0)
    metadata["total_retry_output_tokens"] += int(_get(result, "retry_output_tokens") or 0)
    metadata["compaction_count"] += int(_get(result, "compaction_count") or 0)
    metadata["compaction_archives"].extend(list(_get(result, "compaction_archives", []) or []))


def record_served_models(
    metadata: SessionMetadata, run: int, result: Any, *, provider: str, model: str
) -> None:
    """One record per run and served model, from the run's request_cost_records."""
    seen: dict[str, ServedModel] = {}
    for record in _get(result, "request_cost_records", []) or []:
        served = (record.get("served_model") if isinstance(record, dict) else None) or model
        entry = seen.setdefault(
            served,
            {
                "run": run,
                "provider": provider,
                "requested_model": model,
                "model": served,
                "requests": 0,
            },
        )
        entry["requests"] += 1
    metadata.setdefault("served_models", []).extend(seen.values())


def record_citations(metadata: SessionMetadata, run: int, result: Any) -> None:
    """The run's citations (``AgentResult.citations``), as plain data under
    ``metadata["citations"]``: one ``{"run", "citations"}`` record per run that had any.
    They survive a save, a restore and a rebind (the history itself may hold them only in
    the provider's own form, or not at all: Gemini's grounding is not in its history)."""
    cited = _get(result, "citations", []) or []
    if cited:
        plain = [c if isinstance(c, dict) else citation_to_dict(c) for c in cited]
        metadata.setdefault("citations", []).append({"run": run, "citations": plain})
