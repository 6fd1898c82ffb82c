"""Anthropic server-side fallback: which model served a response, and who billed what.

When the requested model declines and a fallback model answers within the same request,
the content carries one ``fallback`` block per hop (``from`` / ``to`` models; the last
``to`` is the model that served the response, which ``message_start`` does not name), and
``usage.iterations`` holds one entry per attempt, each with its ``model``: ``message``
entries for a declined hop (billed at that model's rates) and one ``fallback_message``
entry for the serving attempt. Every entry is billed (see
`parse_usage`): ``compaction`` entries and an ``advisor_message`` are
split out here too, at the model they name (the serving model when they name none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.anthropic.mapping import parse_usage
from doc_processing_toolkit.domain.requests import Usage

__all__ = ["fallback_target", "usage_by_model"]


def fallback_target(block: Mapping[str, Any]) -> str | None:
    """The model a ``fallback`` content block hands over to (None for any other block)."""
    if block.get("type") != "fallback":
        return None
    to = block.get("to")
    model = to.get("model") if isinstance(to, Mapping) else None
    return model if isinstance(model, str) and model else None


def usage_by_model(usage: Mapping[str, Any], served: str) -> tuple[tuple[str, Usage], ...]:
    """The billed usage per model of ``usage.iterations`` (empty: one model billed it all).

    Every entry counts once; an entry without a ``model`` is the serving model's.
    """
    iterations = usage.get("iterations")
    if not isinstance(iterations, list):
        return ()
    totals: dict[str, Usage] = {}
    for entry in iterations:
        if not isinstance(entry, Mapping):
            continue
        model = entry.get("model")
        name = model if isinstance(model, str) and model else served
        totals[name] = totals.get(name, Usage()) + parse_usage(entry)
    if set(totals) <= {served}:
        return ()
    return tuple(totals.items())
