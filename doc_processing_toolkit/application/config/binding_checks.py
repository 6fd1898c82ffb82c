"""Validation of the thinking-binding parameters (anthropic_block_binding and friends)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.binding import caller_behaviour, check_behaviour
from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = ["check_binding_settings"]

_FLAGS = ("strict_prefix_binding", "prefix_audit", "prefix_strip_fallback")


def check_binding_settings(values: Mapping[str, Any]) -> None:
    """anthropic_block_binding, strict_prefix_binding, prefix_audit, prefix_strip_fallback
    and ``thinking["block_binding"]`` (``values`` by parameter name): known values that do
    not contradict each other.

    Raises:
        ConfigurationError: (a ValueError) naming the parameter and its value.
    """
    binding = check_behaviour(values["anthropic_block_binding"], "anthropic_block_binding")
    for name in _FLAGS:
        value = values[name]
        if not isinstance(value, bool):
            raise ConfigurationError(f"{name} must be True or False, got {value!r}")
    thinking = values["thinking"]
    caller_behaviour(thinking if isinstance(thinking, dict) else None)
    strict = values["strict_prefix_binding"]
    if strict and binding not in (None, "error"):
        raise ConfigurationError(
            "strict_prefix_binding=True is anthropic_block_binding='error'; it contradicts "
            f"anthropic_block_binding={binding!r}"
        )
    if values["prefix_strip_fallback"] and (binding == "error" or strict):
        raise ConfigurationError(
            "prefix_strip_fallback=True strips the thinking that "
            "anthropic_block_binding='error' (strict_prefix_binding) would check; set one"
        )
