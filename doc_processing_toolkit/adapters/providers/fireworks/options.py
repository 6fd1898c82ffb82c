"""Fireworks' option rules: the chat-completions base plus provider-run MCP without
allowed_tools.

* thinking -> the ``reasoning_effort`` string, and built-in tools: none (web_search /
  code_execution raise ValueError, tool_search warns: every tool loads eagerly), as
  every OpenAI-compatible vendor (``openai_compatible/options.py``).
* provider-run MCP: the Responses-style ``{"type": "mcp"}`` entry. ``allowed_tools`` is
  refused because Fireworks ignores it (measured), which would expose tools the caller
  meant to hide; ``mcp_remote_client`` filters on every provider.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    USE_CLIENT,
    mcp_tool_entry,
    server_label,
)
from doc_processing_toolkit.adapters.providers.fireworks.dialect import LABEL, PROVIDER
from doc_processing_toolkit.adapters.providers.openai_compatible.options import (
    ChatCompletionsOptions,
)
from doc_processing_toolkit.domain.errors import CompatibilityError

__all__ = ["FIREWORKS_OPTIONS", "FireworksOptions", "refuse_ignored_allowed_tools"]

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


class FireworksOptions(ChatCompletionsOptions):
    """Fireworks chat completions: reasoning_effort, MCP tool entries, no built-in tools."""

    def __init__(self) -> None:
        """Fireworks' rules."""
        super().__init__(PROVIDER, LABEL)

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
