"""The Agent's ``built_in_tools=`` setting in its neutral form (no provider names).

``built_in_tools=`` maps a neutral name (`BUILT_IN_TOOL_NAMES`) to
``BuiltInToolConfig(enabled, config)`` or the plain-data form
``{"enabled": bool, "config": {...}}``; `normalize_built_in_tools` turns every
entry into a `BuiltInToolConfig`. Each provider adapter's ``options`` module
turns the normalized entries into its wire tool entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError

__all__ = ["BUILT_IN_TOOL_NAMES", "BuiltInToolConfig", "normalize_built_in_tools"]

BUILT_IN_TOOL_NAMES = ("web_search", "code_execution", "tool_search")
"""The neutral built-in tool names."""


@dataclass(frozen=True, slots=True)
class BuiltInToolConfig:
    """One built-in tool's setting: ``BuiltInToolConfig(enabled=True, config={...})``."""

    enabled: bool = True
    """Whether the tool is offered to the model."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """Tool options (``max_uses``, ``container_id``, ...), merged into the wire entry."""


def normalize_built_in_tools(
    built_in_tools: Mapping[str, Any] | None,
) -> dict[str, BuiltInToolConfig]:
    """Every entry as a `BuiltInToolConfig` (a bool means enabled, no config).

    Raises:
        TypeError: for an entry that is not a BuiltInToolConfig, a dict or a bool.
        ValueError: for a dict with keys other than ``enabled`` and ``config``.
    """
    out: dict[str, BuiltInToolConfig] = {}
    for name, value in (built_in_tools or {}).items():
        if isinstance(value, BuiltInToolConfig):
            out[name] = value
        elif isinstance(value, bool):
            out[name] = BuiltInToolConfig(enabled=value)
        elif isinstance(value, Mapping):
            extra = sorted(set(value) - {"enabled", "config"})
            if extra:
                raise ConfigurationError(
                    f"built_in_tools[{name!r}] takes 'enabled' and 'config'; put {extra} "
                    "under 'config'"
                )
            config = value.get("config") or {}
            if not isinstance(config, Mapping):
                raise InvalidArgumentTypeError(f"built_in_tools[{name!r}]['config'] must be a dict")
            out[name] = BuiltInToolConfig(enabled=bool(value.get("enabled", True)), config=config)
        else:
            raise InvalidArgumentTypeError(
                f"built_in_tools[{name!r}] must be BuiltInToolConfig(...) or "
                f'{{"enabled": bool, "config": {{...}}}}, got {type(value).__name__}'
            )
    return out
