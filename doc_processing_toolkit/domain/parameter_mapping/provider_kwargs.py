"""``Agent(**provider_kwargs)``, ``service_tier`` and per-provider defaults.

:func:`check_provider_kwargs` is the Agent's construction-time check: a keyword the
provider's entry points do not take, or one the Agent supplies itself, is still passed
through but yields one warning naming it (and the Agent parameter to use instead);
a documented keyword with a value out of its documented bounds raises ValueError.
:func:`validate_service_tier` checks a tier against the row's ``service_tiers``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "AGENT_OWNED_KWARGS",
    "COMMON_PROVIDER_KWARGS",
    "PROVIDER_DEFAULTS",
    "PROVIDER_KWARGS",
    "check_provider_kwargs",
    "get_default_value",
    "get_provider_defaults",
    "validate_service_tier",
]

PROVIDER_KWARGS: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"effort_config", "skills", "max_pause_turn_iterations"}),
    "openai": frozenset(
        {"verbosity_config", "parallel_tool_calls", "image_detail", "openai_transport"}
    ),
    "google": frozenset(
        {
            "video_metadata",
            "media_resolution",
            "file_active_timeout_s",
            "file_poll_interval_s",
            "file_poll_backoff",
        }
    ),
    "fireworks": frozenset(),
}
"""The documented provider keywords, per provider."""

COMMON_PROVIDER_KWARGS = frozenset(
    {"base_url", "mcp_remote_servers", "extra_headers", "extra_body"}
)
"""Keywords every provider takes: the endpoint, provider-run MCP servers (the agent
factory's form) and the SDK's raw header / body escape hatches."""

AGENT_OWNED_KWARGS: dict[str, str | None] = {
    "system_prompt": "instructions",
    "system": "instructions",
    "messages": None,
    "prompt": None,
    "client": None,
    "logger": "logger",
    "model": "model",
    "api_key": "api_key",
    "tools": "tools",
    "tool_choice": "tool_choice",
    "max_output_tokens": "max_tokens",
    "reasoning": "thinking",
    "reasoning_effort": "thinking",
    "thinking_config": "thinking",
    "stream_callback": None,
    "output_schema": None,
}
"""Keywords the Agent supplies to the provider itself -> the Agent parameter to use."""

PROVIDER_DEFAULTS: dict[str, dict[str, Any]] = {
    "anthropic": {"tool_choice": "auto", "max_pause_turn_iterations": 10},
    "openai": {"tool_choice": "auto", "parallel_tool_calls": True, "openai_transport": "http"},
    "google": {"tool_choice": "auto", "file_poll_backoff": 1.0},
    "fireworks": {"tool_choice": "auto"},
}
"""Documented default values per provider (a parameter absent here has no fixed default)."""

_OPENAI_TRANSPORTS = ("http", "websocket")
_GOOGLE_BOUNDS: dict[str, tuple[float, float]] = {
    "file_active_timeout_s": (1.0, 3600.0),
    "file_poll_interval_s": (0.05, 60.0),
    "file_poll_backoff": (1.0, 10.0),
}
_VIDEO_METADATA_KEYS = frozenset({"start_offset", "end_offset", "fps"})


def get_provider_defaults(provider: str) -> dict[str, Any]:
    """Default parameter values for ``provider`` (a copy; ``{}`` when unknown)."""
    return dict(PROVIDER_DEFAULTS.get(provider, {}))


def get_default_value(param_name: str, provider: str) -> Any:
    """The default value of ``param_name`` on ``provider``, or None if it has none."""
    return PROVIDER_DEFAULTS.get(provider, {}).get(param_name)


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ValueError(f"{key} must be a number, got {value!r}")
    return float(value)


def _check_google(kwargs: Mapping[str, Any]) -> None:
    for key, (low, high) in _GOOGLE_BOUNDS.items():
        if kwargs.get(key) is None:
            continue
        number = _number(key, kwargs[key])
        if not low <= number <= high:
            raise ValueError(f"{key} must be between {low:g} and {high:g}, got {kwargs[key]!r}")
    interval, timeout = kwargs.get("file_poll_interval_s"), kwargs.get("file_active_timeout_s")
    if interval is not None and timeout is not None and float(interval) > float(timeout):
        raise ValueError(
            f"file_poll_interval_s ({interval!r}) must not exceed file_active_timeout_s "
            f"({timeout!r})"
        )
    video = kwargs.get("video_metadata")
    if video is not None:
        if not isinstance(video, Mapping):
            raise ValueError(f"video_metadata must be a dict, got {type(video).__name__}")
        extra = sorted(set(video) - _VIDEO_METADATA_KEYS)
        if extra:
            raise ValueError(
                f"video_metadata takes start_offset, end_offset and fps; unknown keys {extra}"
            )
        if video.get("fps") is not None and _number("video_metadata.fps", video["fps"]) <= 0:
            raise ValueError(f"video_metadata.fps must be positive, got {video['fps']!r}")


def check_provider_kwargs(provider: str, kwargs: Mapping[str, Any]) -> list[str]:
    """Check ``Agent(**provider_kwargs)`` for ``provider``; return the warnings to log.

    One warning per keyword the provider does not take or the Agent supplies itself
    (naming the Agent parameter to use instead); every keyword is still passed through.

    Raises:
        ValueError: for a documented keyword outside its documented bounds (named).
    """
    warnings: list[str] = []
    known = PROVIDER_KWARGS.get(provider, frozenset()) | COMMON_PROVIDER_KWARGS
    for key in kwargs:
        if key in AGENT_OWNED_KWARGS:
            instead = AGENT_OWNED_KWARGS[key]
            hint = f"; use Agent({instead}=...) instead" if instead else ""
            warnings.append(
                f"provider keyword {key!r} is supplied by the Agent itself{hint} "
                "(passed through anyway)"
            )
        elif key not in known:
            others = [p for p, names in PROVIDER_KWARGS.items() if key in names]
            where = f" (it is a {'/'.join(others)} keyword)" if others else ""
            warnings.append(
                f"provider keyword {key!r} is not accepted by {provider}{where} "
                "(passed through anyway)"
            )
    if provider == "google":
        _check_google(kwargs)
    if provider == "anthropic" and kwargs.get("max_pause_turn_iterations") is not None:
        pauses = kwargs["max_pause_turn_iterations"]
        if isinstance(pauses, bool) or not isinstance(pauses, int) or pauses < 1:
            raise ValueError(
                f"max_pause_turn_iterations must be a positive integer, got {pauses!r}"
            )
    transport = kwargs.get("openai_transport")
    if provider == "openai" and transport is not None and transport not in _OPENAI_TRANSPORTS:
        warnings.append(
            f"openai_transport {transport!r} is not one of {list(_OPENAI_TRANSPORTS)}; "
            "ignored (the process default applies)"
        )
    return warnings


def validate_service_tier(tier: str | None, row: ModelInfo | None) -> tuple[str | None, str | None]:
    """The tier to request, and the warning to log when it is ignored.

    The vocabulary is data: a tier is requested only when the row has a
    ``service_tiers`` entry for it ("priority", "flex", "ultrafast"...). "standard" is
    the default and sends nothing.

    Returns:
        ``(tier, None)`` when requested, ``(None, warning)`` when ignored, ``(None, None)``
        for None or "standard".

    Raises:
        ValueError: if ``tier`` is not a string.
    """
    if tier is None:
        return None, None
    if not isinstance(tier, str) or not tier.strip():
        raise ValueError(f"service_tier must be a tier name (str), got {tier!r}")
    name = tier.strip().lower()
    if name == "standard":
        return None, None
    if row is None:
        return None, f"service_tier {name!r} ignored: the model has no registry row"
    if name in row.service_tiers:
        return name, None
    offered = sorted(row.service_tiers)
    return None, (
        f"service_tier {name!r} ignored: {row.model} has no {name!r} pricing row "
        f"(tiers: {offered or 'none'})"
    )
