"""Fireworks' option rules: reasoning_effort, provider-run MCP without allowed_tools, defaults.

* thinking -> the ``reasoning_effort`` string.
* built-in tools: none; web_search / code_execution raise ValueError, tool_search warns
  (every tool loads eagerly).
* provider-run MCP: the Responses-style ``{"type": "mcp"}`` entry. ``allowed_tools`` is
  refused because Fireworks ignores it (measured), which would expose tools the caller
  meant to hide; ``mcp_remote_client`` filters on every provider.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    USE_CLIENT,
    ThinkingTransform,
    VendorOptions,
    check_effort,
    mcp_tool_entry,
    requested_effort,
    server_label,
)
from doc_processing_toolkit.adapters.providers.fireworks.dialect import PROVIDER
from doc_processing_toolkit.domain.errors import CompatibilityError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["FIREWORKS_OPTIONS", "FireworksOptions", "refuse_ignored_allowed_tools"]


_THINKING_KEYS = frozenset({"effort", "type"})
_MCP_PASSTHROUGH = ("require_approval", "headers", "server_description")


def refuse_ignored_allowed_tools(server: Mapping[str, Any]) -> None:
    """Refuse ``allowed_tools`` on a provider-run server: Fireworks ignores it.

    Raises:
        ValueError: if the config sets allowed_tools (``[]`` included).
    """
    if server.get("allowed_tools") is not None:
        label = server.get("server_label") or server.get("name") or "remote-mcp"
        raise CompatibilityError(
            f"Fireworks ignores allowed_tools on a provider-run MCP server ({label!r}) and "
            f"would expose every tool; {USE_CLIENT}"
        )


class FireworksOptions(VendorOptions):
    """Fireworks chat completions: reasoning_effort, MCP tool entries, no built-in tools."""

    thinking_param = "reasoning_effort"
    max_tokens_param = "max_tokens"
    kwargs: frozenset[str] = frozenset()
    defaults = MappingProxyType({"tool_choice": "auto"})
    native_built_in_tools: frozenset[str] = frozenset()

    def __init__(self) -> None:
        """Fireworks' rules."""
        super().__init__(PROVIDER)

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """The ``reasoning_effort`` string; an effort the row does not list is not sent."""
        chosen, warnings = requested_effort(
            config, _THINKING_KEYS, PROVIDER, "Fireworks", "pass {'effort': ...} to reason less"
        )
        if row is not None and not check_effort(
            chosen, row.supported_reasoning_values, row.model, "", warnings
        ):
            return ThinkingTransform(
                provider=PROVIDER,
                param="reasoning_effort",
                thinking_on=True,
                warnings=tuple(warnings),
            )
        return ThinkingTransform(
            provider=PROVIDER,
            param="reasoning_effort",
            value=chosen,
            thinking_on=chosen != "none",
            warnings=tuple(warnings),
        )

    def check_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """No ``allowed_tools`` (`refuse_ignored_allowed_tools`)."""
        refuse_ignored_allowed_tools(server)

    def refuse_ignored_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """Fireworks ignores ``allowed_tools``: refused (`refuse_ignored_allowed_tools`)."""
        refuse_ignored_allowed_tools(server)

    def remote_mcp_servers(self, servers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``{"type": "mcp"}`` tool entries.

        Raises:
            ValueError: for a server with allowed_tools, or without label / URL.
        """
        out = []
        for server in servers:
            refuse_ignored_allowed_tools(server)
            out.append(mcp_tool_entry(server, server_label(server), _MCP_PASSTHROUGH))
        return out


FIREWORKS_OPTIONS = FireworksOptions()
"""Fireworks' rules (stateless; shared)."""
