"""Agent parameters -> provider-specific request parameters, as pure functions.

Shared by the four provider adapters and the Agent's construction-time checks:
thinking (:mod:`.thinking`), provider-run MCP servers and ``allowed_tools``
(:mod:`.mcp`), built-in tools (:mod:`.built_in`). The documented import path is
``doc_processing_toolkit.agent.parameter_mapping``.
"""

from doc_processing_toolkit.domain.parameter_mapping.built_in import (
    BUILT_IN_TOOL_NAMES,
    BuiltInToolConfig,
    BuiltInToolsWire,
    check_built_in_tools,
    map_built_in_tools,
    normalize_built_in_tools,
)
from doc_processing_toolkit.domain.parameter_mapping.mcp import (
    ANTHROPIC_MCP_BETA,
    anthropic_mcp_connector,
    apply_anthropic_allowed_tools,
    check_provider_run_allowed_tools,
    openai_allowed_tools,
    refuse_provider_ignored_allowed_tools,
    transform_mcp_remote_servers,
)
from doc_processing_toolkit.domain.parameter_mapping.thinking import (
    EFFORT_ORDER,
    INTERLEAVED_THINKING_BETA,
    OFF_TYPES,
    ThinkingTransform,
    effort_rank,
    transform_thinking_param,
)

__all__ = [
    "ANTHROPIC_MCP_BETA",
    "BUILT_IN_TOOL_NAMES",
    "EFFORT_ORDER",
    "INTERLEAVED_THINKING_BETA",
    "OFF_TYPES",
    "BuiltInToolConfig",
    "BuiltInToolsWire",
    "ThinkingTransform",
    "anthropic_mcp_connector",
    "apply_anthropic_allowed_tools",
    "check_built_in_tools",
    "check_provider_run_allowed_tools",
    "effort_rank",
    "map_built_in_tools",
    "normalize_built_in_tools",
    "openai_allowed_tools",
    "refuse_provider_ignored_allowed_tools",
    "transform_mcp_remote_servers",
    "transform_thinking_param",
]
