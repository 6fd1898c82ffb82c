"""Anthropic's option rules: thinking, built-in tools, the MCP connector, keywords, defaults.

* thinking -> the Messages ``thinking`` object. ``{"budget_tokens": N}`` becomes
  ``{"type": "enabled", "budget_tokens": N}``; ``{"type": "adaptive"}`` is kept; an off
  value (``disabled`` / ``between_tools``) becomes what the row's ``thinking_off_type``
  names; unknown keys are kept verbatim. The ``interleaved`` flag is surfaced on the
  result (with the `INTERLEAVED_THINKING_BETA` header it needs), never sent inside
  the object.
* built-in tools: ``web_search_20250305``, ``code_execution_20250825`` and
  ``tool_search_tool_regex_20251119`` (``config={"variant": "bm25"}`` for BM25).
  ``config["type"]`` overrides the tool version; ``config["container_id"]`` (code
  execution) becomes the request's ``container`` parameter.
* provider-run MCP: an ``mcp_servers`` entry ``{"type": "url", "url", "name",
  "authorization_token"}`` plus one ``{"type": "mcp_toolset", "mcp_server_name"}`` entry
  in ``tools``, sent with the `ANTHROPIC_MCP_BETA` header; ``allowed_tools``
  becomes the toolset's allow-list.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    OFF_TYPES,
    USE_CLIENT,
    RemoteMCPWire,
    ThinkingTransform,
    VendorOptions,
    effort_rank,
    server_label,
    server_names,
    server_url,
)
from doc_processing_toolkit.adapters.providers.anthropic.dialect import PROVIDER
from doc_processing_toolkit.adapters.providers.anthropic.skills import normalize_skills
from doc_processing_toolkit.domain.errors import CompatibilityError, ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "ANTHROPIC_MCP_BETA",
    "ANTHROPIC_OPTIONS",
    "INTERLEAVED_THINKING_BETA",
    "MESSAGES_KEYWORDS",
    "AnthropicOptions",
    "anthropic_mcp_connector",
    "apply_anthropic_allowed_tools",
]

INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
"""The ``anthropic-beta`` value that lets budget thinking run between tool calls."""

ANTHROPIC_MCP_BETA = "mcp-client-2025-11-20"
"""The MCP connector beta that takes ``mcp_servers`` plus ``mcp_toolset`` tool entries."""

MESSAGES_KEYWORDS = frozenset(
    {
        "metadata",
        "stop_sequences",
        "speed",
        "inference_geo",
        "container",
        "diagnostics",
        "cache_control",
        "user_profile_id",
        "workspace_id",
    }
)
"""provider_options keys that are typed ``messages.create`` keywords."""

_INTERLEAVED_KEYS = ("interleaved", "interleaved_thinking")

_TOOL_TYPES = {
    "web_search": ("web_search_20250305", "web_search"),
    "code_execution": ("code_execution_20250825", "code_execution"),
    "tool_search": ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
}
_BM25 = ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25")

_TOOLSET_PASSTHROUGH = ("default_config", "configs", "cache_control")


def apply_anthropic_allowed_tools(
    server: Mapping[str, Any], toolset_config: dict[str, Any], label: str
) -> None:
    """Apply ``allowed_tools`` to one ``mcp_toolset`` entry (in place).

    ``default_config`` gets ``enabled: false`` and each listed tool
    ``configs[name].enabled: true``; a caller's other default_config / configs keys are
    kept. No key (or null) leaves the entry unchanged: every tool.

    Raises:
        TypeError: if allowed_tools is not a list of tool-name strings.
    """
    value = server.get("allowed_tools")
    if value is None:
        return
    names = server_names(value, label)
    default_config = dict(toolset_config.get("default_config") or {})
    default_config["enabled"] = False
    toolset_config["default_config"] = default_config
    configs: dict[str, Any] = {
        str(k): dict(v) for k, v in (toolset_config.get("configs") or {}).items()
    }
    for name in configs:
        if name not in names:
            configs[name]["enabled"] = False
    for name in names:
        configs.setdefault(name, {})["enabled"] = True
    toolset_config["configs"] = configs


def _server_entry(server: Mapping[str, Any], label: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "url", "url": server_url(server, label), "name": label}
    token = server.get("authorization_token")
    headers = dict(server.get("headers") or {})
    auth = next((k for k in headers if k.lower() == "authorization"), None)
    if auth is not None:
        value = str(headers.pop(auth))
        if token is None and value.lower().startswith("bearer "):
            token = value[7:]
        elif token is None:
            raise CompatibilityError(
                f"Anthropic's MCP connector takes a bearer token only (server {label!r}); "
                "pass authorization_token"
            )
    if headers:
        raise CompatibilityError(
            f"Anthropic's MCP connector cannot send headers {sorted(headers)} (server "
            f"{label!r}); pass authorization_token, or {USE_CLIENT}"
        )
    if token is not None:
        entry["authorization_token"] = token
    return entry


def anthropic_mcp_connector(
    servers: Sequence[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Anthropic's ``mcp_servers`` entries and their ``mcp_toolset`` tool entries.

    Send both with the `ANTHROPIC_MCP_BETA` beta header.

    Raises:
        ValueError: for a server without label or URL, or headers Anthropic cannot send.
        TypeError: for allowed_tools that is not a list of tool names.
    """
    entries: list[dict[str, Any]] = []
    toolsets: list[dict[str, Any]] = []
    for server in servers:
        label = server_label(server)
        entries.append(_server_entry(server, label))
        toolset: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": label}
        for key in _TOOLSET_PASSTHROUGH:
            if server.get(key) is not None:
                toolset[key] = copy.deepcopy(server[key])
        apply_anthropic_allowed_tools(server, toolset, label)
        toolsets.append(toolset)
    return entries, toolsets


class AnthropicOptions(VendorOptions):
    """Anthropic Messages: thinking object, server tools, MCP connector, pause turns."""

    thinking_param = "thinking"
    max_tokens_param = "max_tokens"
    kwargs = frozenset({"effort_config", "skills", "max_pause_turn_iterations"})
    defaults = MappingProxyType({"tool_choice": "auto", "max_pause_turn_iterations": 10})
    native_built_in_tools = frozenset({"web_search", "code_execution", "tool_search"})
    request_keywords = MESSAGES_KEYWORDS
    consumed_options = frozenset({"max_pause_turn_iterations", "mcp_remote_servers"})

    def __init__(self) -> None:
        """Anthropic's rules."""
        super().__init__(PROVIDER)

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """The Messages ``thinking`` object, the interleaved flag and its beta."""
        interleaved = False
        for key in _INTERLEAVED_KEYS:
            if key in config:
                interleaved = bool(config.pop(key)) or interleaved
        kind = config.get("type")
        if kind in OFF_TYPES:
            return self._off(config, row, effort, interleaved)
        if not config:
            return ThinkingTransform(provider=PROVIDER, param="thinking", interleaved=interleaved)
        if kind is None and "budget_tokens" in config:
            config = {"type": "enabled", **config}
        betas = (
            (INTERLEAVED_THINKING_BETA,) if interleaved and config.get("type") == "enabled" else ()
        )
        return ThinkingTransform(
            provider=PROVIDER,
            param="thinking",
            value=config,
            thinking_on=True,
            interleaved=interleaved,
            betas=betas,
        )

    @staticmethod
    def _off(
        config: dict[str, Any], row: ModelInfo | None, effort: str | None, interleaved: bool
    ) -> ThinkingTransform:
        kind = str(config["type"])
        if row is None:
            return ThinkingTransform(
                provider=PROVIDER, param="thinking", value={"type": kind}, interleaved=interleaved
            )
        rest = {k: v for k, v in config.items() if k not in ("type", "budget_tokens")}
        reason = None
        if row.thinking_off_type is None:
            reason = f"{row.model} cannot turn thinking off"
        else:
            effective = effort or row.default_reasoning_effort
            limit = row.thinking_off_max_effort
            if effective and limit and effort_rank(effective) > effort_rank(limit) >= 0:
                reason = (
                    f"{row.model} can turn thinking off only at effort {limit!r} or lower "
                    f"(this request: {effective!r})"
                )
        if reason is not None:
            return ThinkingTransform(
                provider=PROVIDER,
                param="thinking",
                value={"type": "adaptive", **rest},
                thinking_on=True,
                interleaved=interleaved,
                warnings=(f"{reason}; thinking={{'type': {kind!r}}} runs with adaptive thinking",),
            )
        return ThinkingTransform(
            provider=PROVIDER,
            param="thinking",
            value={"type": row.thinking_off_type},
            interleaved=interleaved,
        )

    def built_in_tool(
        self, name: str, config: dict[str, Any], params: dict[str, Any], warnings: list[str]
    ) -> dict[str, Any]:
        """A server tool entry; ``container_id`` becomes the ``container`` parameter."""
        wire_type, wire_name = _TOOL_TYPES[name]
        if name == "tool_search" and config.pop("variant", "regex") == "bm25":
            wire_type, wire_name = _BM25
        if name == "code_execution" and config.get("container_id") is not None:
            params["container"] = config.pop("container_id")
        config.pop("container_id", None)
        return {"type": config.pop("type", wire_type), "name": wire_name, **config}

    def check_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """A list of tool names (or none)."""
        if server.get("allowed_tools") is not None:
            label = str(server.get("server_label") or server.get("name") or "remote-mcp")
            server_names(server["allowed_tools"], label)

    def remote_mcp_servers(self, servers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The ``mcp_servers`` entries (the toolsets come from `remote_mcp_wire`)."""
        return anthropic_mcp_connector(servers)[0]

    def remote_mcp_wire(self, servers: Sequence[Mapping[str, Any]]) -> RemoteMCPWire:
        """``mcp_servers``, the ``mcp_toolset`` tool entries and the connector beta."""
        entries, toolsets = anthropic_mcp_connector(servers)
        return RemoteMCPWire(
            tools=tuple(toolsets), params={"mcp_servers": entries}, betas=(ANTHROPIC_MCP_BETA,)
        )

    def check_kwargs(self, kwargs: Mapping[str, Any]) -> list[str]:
        """``max_pause_turn_iterations`` is a positive integer; ``skills`` are well formed.

        Raises:
            ValueError: when one is not (a skills directory without SKILL.md included).
        """
        normalize_skills(kwargs.get("skills"))
        pauses = kwargs.get("max_pause_turn_iterations")
        if pauses is not None and (
            isinstance(pauses, bool) or not isinstance(pauses, int) or pauses < 1
        ):
            raise ConfigurationError(
                f"max_pause_turn_iterations must be a positive integer, got {pauses!r}"
            )
        return []


ANTHROPIC_OPTIONS = AnthropicOptions()
"""Anthropic's rules (stateless; shared)."""
