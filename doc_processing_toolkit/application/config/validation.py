"""Validation of the Agent's constructor arguments, and the parameters not built yet.

Every check names the parameter and what is wrong with the value. A parameter whose
feature a later release builds raises ``NotImplementedError`` naming it when it is set
to anything but its default — it never silently does nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DEFAULT_MEDIA_MAX_INLINE_BYTES",
    "NOT_YET_IMPLEMENTED",
    "check_not_implemented",
    "validate_non_negative_int",
    "validate_positive_int",
    "validate_temperature",
]

DEFAULT_MEDIA_MAX_INLINE_BYTES = 8 * 1024 * 1024
"""Per-part cap on kept Google upload bytes (8 MiB)."""

NOT_YET_IMPLEMENTED: dict[str, Any] = {
    "compaction": False,
    "compaction_config": None,
    "session_history_config": None,
    "code_execution_output_dir": None,
    "hooks": None,
    "anthropic_block_binding": None,
    "strict_prefix_binding": False,
    "prefix_audit": False,
    "prefix_strip_fallback": False,
    "remove_citations": False,
    "on_unsupported_part": "drop",
    "media_policy": "auto",
    "media_store": None,
    "media_max_inline_bytes": DEFAULT_MEDIA_MAX_INLINE_BYTES,
    "estimate_input_tokens": "lazy",
}
"""Agent parameters whose features are not built yet, with their defaults."""


def check_not_implemented(values: dict[str, Any]) -> None:
    """Raise NotImplementedError for the first not-yet-built parameter set to a non-default."""
    for name, default in NOT_YET_IMPLEMENTED.items():
        value = values.get(name, default)
        if value is default or value == default:
            continue
        raise NotImplementedError(
            f"Agent({name}=...) is not implemented yet in this release; leave it at its "
            f"default ({default!r})"
        )


def validate_positive_int(name: str, value: Any, *, optional: bool = False) -> int | None:
    """An int >= 1 (or None when optional)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def validate_non_negative_int(name: str, value: Any, *, optional: bool = False) -> int | None:
    """An int >= 0 (or None when optional)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def validate_temperature(value: Any) -> float | None:
    """None or a number in [0.0, 2.0]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 2.0:
        raise ValueError(f"temperature must be a number from 0.0 to 2.0, got {value!r}")
    return float(value)
