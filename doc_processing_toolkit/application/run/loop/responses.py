"""What the run loop decides about a response: empty, structured, its metadata."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ValidationError

from doc_processing_toolkit.domain.errors import StructuredOutputError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse

__all__ = [
    "is_empty_reply",
    "may_retry_empty",
    "merge_metadata",
    "native_structured",
    "validate_structured",
    "with_purpose",
]


def is_empty_reply(response: ModelResponse) -> bool:
    message = response.message
    return (
        not message.text.strip()
        and not message.tool_calls
        and response.stop_reason
        in (
            "end_turn",
            "other",
        )
    )


def merge_metadata(into: dict[str, Any], new: dict[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, list):
            existing = into.setdefault(key, [])
            existing.extend(v for v in value if v not in existing or isinstance(v, dict))
        else:
            into[key] = value


def native_structured(row: ModelInfo | None) -> bool:
    return bool(row is not None and row.supports_structured_output)


def with_purpose(request: ModelRequest, purpose: str) -> ModelRequest:
    return replace(request, purpose=purpose)


def validate_structured(schema: type[BaseModel] | None, data: Any) -> Any:
    if schema is None:
        return data
    try:
        schema.model_validate(data)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"structured output does not match {schema.__name__}: {exc.error_count()} error(s): "
            + "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]
            )
        ) from exc
    return data


def may_retry_empty(settings: Any, outcome: Any, logger: Any) -> bool:
    """Whether an empty final turn is re-requested: the registry row says this model
    sometimes ends a turn with nothing in it, and the run has not re-requested yet."""
    row = settings.row
    if row is None or not row.flag("retry_empty_final_turn", False):
        return False
    if outcome.empty_turn_retried:
        return False
    outcome.empty_turn_retried = True
    logger.warning("empty final turn: re-requesting once", model=settings.model)
    return True
