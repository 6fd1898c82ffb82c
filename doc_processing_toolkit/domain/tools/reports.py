"""What a tool reports beside its answer: its spend (the ``_dpt_spend`` marker) and its
result as JSON data (``result_data`` on the ``tool_call_result`` events).

A tool that pays for something on the user's behalf (an image model, a paid API)
reports it by returning a dict that carries the marker::

    from doc_processing_toolkit.utils import tool_spend_marker

    @tool
    def make_image(prompt: str) -> dict:
        ...
        return {"path": path, **tool_spend_marker(0.04)}

The run adds it to ``AgentResult.tool_reported_cost`` (and so to ``cost``). An MCP
server reports the same way, in its structured content or as a JSON object text item.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import MediaPart, TextPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome

__all__ = [
    "SPEND_MARKER_KEY",
    "ReportedSpend",
    "find_spend",
    "tool_result_data",
    "tool_spend_marker",
]

SPEND_MARKER_KEY = "_dpt_spend"
"""The key a tool's dict return carries its spend under."""


@dataclass(frozen=True, slots=True)
class ReportedSpend:
    """One tool call's reported spend."""

    usd: float
    """What the call cost, in USD (already paid by the tool)."""
    estimated: bool = False
    """True when ``usd`` is an estimate rather than a billed amount."""
    source: str | None = None
    """What was paid for (free text, e.g. ``"gpt-image-2"``), when the tool says."""


def tool_spend_marker(
    usd: float, estimated: bool = False, *, source: str | None = None
) -> dict[str, Any]:
    """The marker a tool merges into its dict return to report what it spent.

    Args:
        usd: The amount in USD (a finite, non-negative number).
        estimated: True when the amount is an estimate; the run's ``cost_estimated``
            becomes True with it.
        source: What was paid for, shown in logs (optional).

    Returns:
        ``{"_dpt_spend": {"usd": usd, "estimated": estimated[, "source": source]}}``.

    Raises:
        ValueError: ``usd`` is negative, not finite, or not a number.
    """
    spend = _spend_from({"usd": usd, "estimated": estimated, "source": source})
    marker: dict[str, Any] = {"usd": spend.usd, "estimated": spend.estimated}
    if source is not None:
        marker["source"] = source
    return {SPEND_MARKER_KEY: marker}


def _spend_from(value: Any) -> ReportedSpend:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{SPEND_MARKER_KEY} must be an object with usd, got {value!r}")
    usd = value.get("usd")
    if isinstance(usd, bool) or not isinstance(usd, int | float) or not math.isfinite(usd):
        raise ConfigurationError(f"{SPEND_MARKER_KEY}.usd must be a finite number, got {usd!r}")
    if usd < 0:
        raise ConfigurationError(f"{SPEND_MARKER_KEY}.usd must not be negative, got {usd!r}")
    estimated = value.get("estimated", False)
    if not isinstance(estimated, bool):
        raise ConfigurationError(
            f"{SPEND_MARKER_KEY}.estimated must be true or false, got {estimated!r}"
        )
    source = value.get("source")
    return ReportedSpend(float(usd), estimated, source if isinstance(source, str) else None)


def find_spend(data: Any, texts: Iterable[str] = ()) -> ReportedSpend | None:
    """The spend a tool reported: the marker in its dict return (``data``), else in a
    text item holding a JSON object. None when there is no marker.

    Raises:
        ValueError: a marker is present but malformed (the message says how).
    """
    if isinstance(data, Mapping) and SPEND_MARKER_KEY in data:
        return _spend_from(data[SPEND_MARKER_KEY])
    for text in texts:
        stripped = text.strip()
        if not (stripped.startswith("{") and SPEND_MARKER_KEY in stripped):
            continue
        try:
            decoded = json.loads(stripped)
        except ValueError:
            continue
        if isinstance(decoded, Mapping) and SPEND_MARKER_KEY in decoded:
            return _spend_from(decoded[SPEND_MARKER_KEY])
    return None


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _item_data(item: Any) -> Any:
    if isinstance(item, TextPart):
        return _decoded(item.text)
    if isinstance(item, MediaPart):
        media: dict[str, Any] = {"type": "media", "mime_type": item.mime_type}
        if item.data is not None:
            media["data"] = base64.b64encode(item.data).decode("ascii")
        for key in ("url", "file_uri", "filename"):
            if getattr(item, key) is not None:
                media[key] = getattr(item, key)
        return media
    if isinstance(item, Mapping):
        if item.get("type") == "text" and isinstance(item.get("text"), str):
            return _decoded(item["text"])
        return dict(item)
    kind = getattr(item, "type", None)
    text = getattr(item, "text", None)
    if kind == "text" and isinstance(text, str):
        return _decoded(text)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return str(item)


def tool_result_data(result: Any) -> Any:
    """A tool result as JSON data (the ``result_data`` of ``tool_call_result`` events).

    A tool that returned a dict (or other JSON value) gives that value; an MCP result
    with structured content gives the structured content; otherwise the content items,
    each text item JSON-decoded when it holds JSON — a single text item gives its value
    alone, several give a list. Media items become ``{"type": "media", "mime_type", ...}``
    (bytes base64-encoded).

    Accepts a `ToolOutcome`, an MCP ``CallToolResult``-shaped object, a dict, a
    string, or a list of items.
    """
    if isinstance(result, ToolOutcome):
        if result.data is not None:
            return result.data
        items: list[Any] = list(result.content)
    elif isinstance(result, str):
        return _decoded(result)
    elif isinstance(result, Mapping):
        return dict(result)
    elif isinstance(result, list | tuple):
        items = list(result)
    else:
        structured = getattr(result, "structured_content", None)
        if structured is None:
            structured = getattr(result, "structuredContent", None)
        if structured is not None:
            return structured
        items = list(getattr(result, "content", None) or [])
    converted = [_item_data(item) for item in items]
    if len(converted) == 1 and _is_text(items[0]):
        return converted[0]
    return converted


def _is_text(item: Any) -> bool:
    if isinstance(item, TextPart):
        return True
    if isinstance(item, Mapping):
        return item.get("type") == "text"
    return getattr(item, "type", None) == "text"
