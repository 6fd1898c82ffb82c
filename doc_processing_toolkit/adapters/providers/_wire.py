"""WireRequest: what a provider mapping hands its client for one SDK call (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["WireRequest"]


@dataclass(frozen=True, slots=True)
class WireRequest:
    """The SDK call's keyword arguments plus what the client logs about them."""

    params: dict[str, Any]
    """Typed keyword arguments of the SDK method."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Body keys the typed signature lacks."""
    extra_headers: dict[str, str] = field(default_factory=dict)
    """Headers the request adds (e.g. ``anthropic-beta``)."""
    downgraded_tool_choice: str | None = None
    """The forced tool_choice that was downgraded to auto (the model cannot force tools)."""
    notes: tuple[str, ...] = ()
    """What the mapping did that a reader of the DEBUG log should know."""
    ignored_options: tuple[str, ...] = ()
    """provider_options keys this adapter does not send."""
    warnings: tuple[str, ...] = ()
    """What the client logs at WARNING."""
    built_in_tools: tuple[str, ...] = ()
    """The neutral names of the built-in tools the request carries."""
