"""OpenAI's option rules: reasoning, built-in tools, provider-run MCP, keywords, defaults.

* thinking -> the Responses ``reasoning`` object ``{"effort", "summary", "mode"}``,
  checked against the row's efforts (and its pro-mode efforts).
* built-in tools: ``{"type": "web_search"}`` (``allowed_domains`` become
  ``filters.allowed_domains``), ``{"type": "code_interpreter", "container": {"type":
  "auto"}}`` and ``{"type": "tool_search"}``.
* provider-run MCP: a ``{"type": "mcp", "server_label", "server_url",
  "require_approval", "headers", "allowed_tools"}`` entry in ``tools``; ``allowed_tools``
  is sent as given (`openai_allowed_tools`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    ThinkingTransform,
    VendorOptions,
    check_effort,
    drop_options,
    effort_rank,
    mcp_tool_entry,
    requested_effort,
    server_label,
    server_names,
)
from doc_processing_toolkit.adapters.providers.openai.dialect import PROVIDER
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "IMAGE_DETAILS",
    "OPENAI_OPTIONS",
    "RESPONSES_KEYWORDS",
    "VERBOSITIES",
    "OpenAIOptions",
    "openai_allowed_tools",
]

RESPONSES_KEYWORDS = frozenset(
    {
        "access_programs",
        "background",
        "context_management",
        "conversation",
        "max_tool_calls",
        "metadata",
        "moderation",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "safety_identifier",
        "store",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    }
)
"""provider_options keys that are typed ``responses.create`` keywords, sent as given."""

IMAGE_DETAILS = frozenset({"low", "high", "auto", "original"})
"""The ``image_detail`` values (set on every input image)."""
VERBOSITIES = frozenset({"low", "medium", "high"})
"""The ``verbosity_config`` values (``text.verbosity``)."""


_THINKING_KEYS = frozenset({"effort", "summary", "mode", "type"})
_TRANSPORTS = ("http", "websocket")
_MCP_PASSTHROUGH = (
    "require_approval",
    "headers",
    "server_description",
    "authorization",
    "connector_id",
    "defer_loading",
)
_NAMES_OR_FILTER = 'a list of tool names or {"tool_names": [...], "read_only": bool}'


def openai_allowed_tools(server: Mapping[str, Any], label: str) -> Any:
    """Check the ``allowed_tools`` of an OpenAI provider-run MCP server or connector.

    A list of names or the filter object ``{"tool_names": [...], "read_only": bool}`` is
    sent as given, except that a tuple or set of names becomes a list. ``[]`` is sent
    too (the model sees no tool of the server).

    Returns:
        None when the key is absent or null (send nothing: every tool), else the list
        or the filter object to send.

    Raises:
        TypeError: if the value is neither a list of names nor a valid filter object.

    Example:
        >>> openai_allowed_tools({"allowed_tools": ("search",)}, "docs")
        ['search']
        >>> openai_allowed_tools({}, "docs") is None
        True
    """
    value = server.get("allowed_tools")
    if value is None:
        return None
    if isinstance(value, Mapping):
        if "tool_names" in value:
            tool_names = value["tool_names"]
            if isinstance(tool_names, str) or not isinstance(tool_names, list):
                raise InvalidArgumentTypeError(
                    f"allowed_tools.tool_names of MCP server {label!r} must be a list of tool "
                    f"names, got {type(tool_names).__name__}"
                )
            server_names(tool_names, label)
        if "read_only" in value and not isinstance(value["read_only"], bool):
            raise InvalidArgumentTypeError(
                f"allowed_tools.read_only of MCP server {label!r} must be a bool, "
                f"got {type(value['read_only']).__name__}"
            )
        return dict(value)
    return server_names(value, label, _NAMES_OR_FILTER)


class OpenAIOptions(VendorOptions):
    """OpenAI Responses: reasoning object, hosted tools, MCP tool entries, transports."""

    thinking_param = "reasoning"
    max_tokens_param = "max_output_tokens"
    kwargs = frozenset(
        {"verbosity_config", "parallel_tool_calls", "image_detail", "openai_transport"}
    )
    defaults = MappingProxyType(
        {"tool_choice": "auto", "parallel_tool_calls": True, "openai_transport": "http"}
    )
    native_built_in_tools = frozenset({"web_search", "code_execution", "tool_search"})
    request_keywords = RESPONSES_KEYWORDS
    unsent_options = frozenset({"openai_transport", "effort_config", "skills"})

    def __init__(self) -> None:
        """OpenAI's rules."""
        super().__init__(PROVIDER)

    def thinking_value(
        self, config: dict[str, Any], row: ModelInfo | None, effort: str | None
    ) -> ThinkingTransform:
        """The ``reasoning`` object; an effort or mode the row does not list is dropped."""
        chosen, warnings = requested_effort(
            config,
            _THINKING_KEYS,
            PROVIDER,
            "OpenAI",
            "pass an effort the model lists (e.g. {'effort': 'low'}) to reason less",
        )
        mode = config.get("mode")
        model = row.model if row is not None else PROVIDER
        if mode is not None and row is not None and mode not in row.supported_reasoning_modes:
            modes = list(row.supported_reasoning_modes)
            warnings.append(f"{model}: reasoning mode {mode!r} is not among {modes}; not sent")
            mode = None
        keep_effort = True
        if row is not None:
            keep_effort = check_effort(chosen, row.supported_reasoning_values, model, "", warnings)
            if keep_effort and mode == "pro":
                pro = row.supported_reasoning_values_pro_mode
                if pro:
                    keep_effort = check_effort(chosen, pro, model, " in pro mode", warnings)
                elif effort_rank(chosen) < effort_rank("medium"):
                    keep_effort = check_effort(chosen, ("medium",), model, " in pro mode", warnings)
        reasoning: dict[str, Any] = {}
        if keep_effort:
            reasoning["effort"] = chosen
        summary = config.get("summary", "auto")
        if summary is not None:
            reasoning["summary"] = summary
        if mode is not None:
            reasoning["mode"] = mode
        return ThinkingTransform(
            provider=PROVIDER,
            param="reasoning",
            value=reasoning or None,
            thinking_on=chosen != "none" or not keep_effort,
            warnings=tuple(warnings),
        )

    def built_in_tool(
        self, name: str, config: dict[str, Any], params: dict[str, Any], warnings: list[str]
    ) -> dict[str, Any]:
        """A hosted tool entry; options OpenAI does not take are dropped with a warning."""
        drop_options(config, ("container_id", "variant"), PROVIDER, name, warnings)
        if name == "web_search":
            drop_options(config, ("max_uses", "blocked_domains"), PROVIDER, name, warnings)
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

    def check_allowed_tools(self, server: Mapping[str, Any]) -> None:
        """A list of tool names or OpenAI's filter object (or none)."""
        label = str(server.get("server_label") or server.get("name") or "remote-mcp")
        openai_allowed_tools(server, label)

    def remote_mcp_servers(self, servers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``{"type": "mcp"}`` tool entries, ``allowed_tools`` as given."""
        out = []
        for server in servers:
            label = server_label(server)
            entry = mcp_tool_entry(server, label, _MCP_PASSTHROUGH)
            allowed = openai_allowed_tools(server, label)
            if allowed is not None:
                entry["allowed_tools"] = allowed
            out.append(entry)
        return out

    def check_kwargs(self, kwargs: Mapping[str, Any]) -> list[str]:
        """An ``openai_transport`` other than http / websocket is ignored, with a warning."""
        transport = kwargs.get("openai_transport")
        if transport is not None and transport not in _TRANSPORTS:
            return [
                f"openai_transport {transport!r} is not one of {list(_TRANSPORTS)}; "
                "ignored (the process default applies)"
            ]
        return []


OPENAI_OPTIONS = OpenAIOptions()
"""OpenAI's rules (stateless; shared)."""
