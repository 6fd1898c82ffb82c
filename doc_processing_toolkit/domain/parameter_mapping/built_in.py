"""Built-in (provider-run) tools: web search, code execution, tool search.

The Agent's ``built_in_tools=`` maps a neutral name to ``BuiltInToolConfig(enabled,
config)`` or the plain-data form ``{"enabled": bool, "config": {...}}``.
:func:`map_built_in_tools` turns it into the provider's wire tool entries:

* web_search: Anthropic ``web_search_20250305``; OpenAI ``{"type": "web_search"}``;
  Google ``{"google_search": {}}``.
* code_execution: Anthropic ``code_execution_20250825``; OpenAI
  ``{"type": "code_interpreter", "container": {"type": "auto"}}``; Google
  ``{"code_execution": {}}``.
* tool_search: Anthropic ``tool_search_tool_regex_20251119`` (``config={"variant":
  "bm25"}`` for BM25); OpenAI ``{"type": "tool_search"}``; Google and Fireworks have no
  native tool search: a warning, nothing sent, every tool loads eagerly.
* Fireworks has no built-in tools: web_search / code_execution raise ValueError.

A ``config`` is merged into the entry (``max_uses``, ``allowed_domains``...); a key the
provider does not take is dropped with a warning. ``config["type"]`` overrides the
Anthropic tool version. Anthropic's ``config["container_id"]`` (code execution) becomes
the request's ``container`` parameter, so files and REPL state persist across runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "BUILT_IN_TOOL_NAMES",
    "BuiltInToolConfig",
    "BuiltInToolsWire",
    "check_built_in_tools",
    "map_built_in_tools",
    "normalize_built_in_tools",
]

BUILT_IN_TOOL_NAMES = ("web_search", "code_execution", "tool_search")
"""The neutral built-in tool names."""

_ANTHROPIC_TYPES = {
    "web_search": ("web_search_20250305", "web_search"),
    "code_execution": ("code_execution_20250825", "code_execution"),
    "tool_search": ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
}
_ANTHROPIC_BM25 = ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25")


@dataclass(frozen=True, slots=True)
class BuiltInToolConfig:
    """One built-in tool's setting: ``BuiltInToolConfig(enabled=True, config={...})``."""

    enabled: bool = True
    """Whether the tool is offered to the model."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """Tool options (``max_uses``, ``container_id``, ...), merged into the wire entry."""


@dataclass(frozen=True, slots=True)
class BuiltInToolsWire:
    """What :func:`map_built_in_tools` produced for one provider."""

    tools: tuple[dict[str, Any], ...] = ()
    """Wire tool entries, appended to the request's tools."""
    params: dict[str, Any] = field(default_factory=dict)
    """Other request parameters (Anthropic ``container`` for container reuse)."""
    names: tuple[str, ...] = ()
    """The neutral names actually sent (AgentResult.built_in_tools_used)."""
    tool_search: bool = False
    """Native tool search is on: the adapter may stamp ``defer_loading`` on tools."""
    warnings: tuple[str, ...] = ()
    """Messages the caller logs at WARNING."""


def normalize_built_in_tools(
    built_in_tools: Mapping[str, Any] | None,
) -> dict[str, BuiltInToolConfig]:
    """Every entry as a :class:`BuiltInToolConfig` (a bool means enabled, no config).

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
                raise ValueError(
                    f"built_in_tools[{name!r}] takes 'enabled' and 'config'; put {extra} "
                    "under 'config'"
                )
            config = value.get("config") or {}
            if not isinstance(config, Mapping):
                raise TypeError(f"built_in_tools[{name!r}]['config'] must be a dict")
            out[name] = BuiltInToolConfig(enabled=bool(value.get("enabled", True)), config=config)
        else:
            raise TypeError(
                f"built_in_tools[{name!r}] must be BuiltInToolConfig(...) or "
                f'{{"enabled": bool, "config": {{...}}}}, got {type(value).__name__}'
            )
    return out


def _anthropic(name: str, config: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    wire_type, wire_name = _ANTHROPIC_TYPES[name]
    if name == "tool_search" and config.pop("variant", "regex") == "bm25":
        wire_type, wire_name = _ANTHROPIC_BM25
    if name == "code_execution" and config.get("container_id") is not None:
        params["container"] = config.pop("container_id")
    config.pop("container_id", None)
    return {"type": config.pop("type", wire_type), "name": wire_name, **config}


def _openai(name: str, config: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    _drop(config, ("container_id", "variant"), "openai", name, warnings)
    if name == "web_search":
        _drop(config, ("max_uses", "blocked_domains"), "openai", name, warnings)
        domains = config.pop("allowed_domains", None)
        if domains is not None:
            config["filters"] = {**config.get("filters", {}), "allowed_domains": list(domains)}
        return {"type": "web_search", **config}
    if name == "code_execution":
        container = config.pop("container", None)
        if container is None:
            container = {"type": "auto", **config}
        return {"type": "code_interpreter", "container": container}
    return {"type": "tool_search", **config}


def _google(name: str, config: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    _drop(config, ("container_id", "max_uses", "allowed_domains"), "google", name, warnings)
    return {"google_search" if name == "web_search" else "code_execution": config}


def _drop(
    config: dict[str, Any], keys: tuple[str, ...], provider: str, name: str, warnings: list[str]
) -> None:
    dropped = [key for key in keys if config.pop(key, None) is not None]
    if dropped:
        warnings.append(
            f"{provider}: built_in_tools[{name!r}] options {dropped} not supported; not sent"
        )


def map_built_in_tools(
    provider: str, built_in_tools: Mapping[str, Any] | None, row: ModelInfo | None = None
) -> BuiltInToolsWire:
    """Map the neutral built-in tool config to the provider's wire entries.

    Raises:
        ValueError: for an unknown tool name, a tool the provider (Fireworks: any) or the
            row's ``built_in_tools`` does not offer. ``tool_search`` where there is no
            native tool search is a warning instead: every tool then loads eagerly.
        TypeError: for an entry in an unknown form.
    """
    tools: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    names: list[str] = []
    warnings: list[str] = []
    for name, setting in normalize_built_in_tools(built_in_tools).items():
        if name not in BUILT_IN_TOOL_NAMES:
            raise ValueError(
                f"unknown built-in tool {name!r}; known: {', '.join(BUILT_IN_TOOL_NAMES)}"
            )
        if not setting.enabled:
            continue
        offered = row is None or name in row.built_in_tools
        native = provider in ("anthropic", "openai") or (
            provider == "google" and name != "tool_search"
        )
        if name == "tool_search" and not (native and offered):
            where = row.model if row is not None and native else provider
            warnings.append(
                f"{where} has no native tool search; built_in_tools['tool_search'] is not "
                "sent and every tool loads eagerly"
            )
            continue
        if not native:
            raise ValueError(
                f"{provider} has no built-in (provider-run) tools; {name!r} is supported on "
                "anthropic, openai and google"
            )
        if not offered:
            assert row is not None
            raise ValueError(
                f"{row.model} does not offer the built-in tool {name!r} (its registry row "
                f"lists {list(row.built_in_tools)})"
            )
        config = dict(setting.config)
        match provider:
            case "anthropic":
                tools.append(_anthropic(name, config, params))
            case "openai":
                tools.append(_openai(name, config, warnings))
            case _:
                tools.append(_google(name, config, warnings))
        names.append(name)
    return BuiltInToolsWire(
        tools=tuple(tools),
        params=params,
        names=tuple(names),
        tool_search="tool_search" in names,
        warnings=tuple(warnings),
    )


def check_built_in_tools(
    provider: str,
    built_in_tools: Mapping[str, Any] | None,
    row: ModelInfo | None,
    has_custom_tools: bool,
) -> list[str]:
    """The Agent's construction-time check; returns the warnings to log.

    Raises:
        ValueError: as :func:`map_built_in_tools`, and when the row says built-in and
            custom tools cannot be combined (``supports_concurrent_built_in_and_custom_tools``
            false) and both are given.
    """
    wire = map_built_in_tools(provider, built_in_tools, row)
    if (
        wire.tools
        and has_custom_tools
        and row is not None
        and not row.supports_concurrent_built_in_and_custom_tools
    ):
        raise ValueError(
            f"{row.model} cannot combine built-in tools {list(wire.names)} with your own tools "
            "(supports_concurrent_built_in_and_custom_tools is false); drop one of them or "
            "pick a model that allows both"
        )
    return list(wire.warnings)
