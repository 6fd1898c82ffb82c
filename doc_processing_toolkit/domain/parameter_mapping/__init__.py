"""Agent parameters -> provider-specific request parameters, as pure functions.

Shared by the four provider adapters and the Agent's construction-time checks:
thinking (:mod:`.thinking`), provider-run MCP servers and ``allowed_tools``
(:mod:`.mcp`), built-in tools (:mod:`.built_in`), provider keywords, service tiers
and defaults (:mod:`.provider_kwargs`), and the documented ParameterMapper /
ParameterValidator classes (:mod:`.mapper`). The documented import path is
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
from doc_processing_toolkit.domain.parameter_mapping.mapper import (
    ParameterMapper,
    ParameterValidator,
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
from doc_processing_toolkit.domain.parameter_mapping.provider_kwargs import (
    AGENT_OWNED_KWARGS,
    COMMON_PROVIDER_KWARGS,
    PROVIDER_DEFAULTS,
    PROVIDER_KWARGS,
    check_provider_kwargs,
    get_default_value,
    get_provider_defaults,
    validate_service_tier,
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
    "AGENT_OWNED_KWARGS",
    "ANTHROPIC_MCP_BETA",
    "BUILT_IN_TOOL_NAMES",
    "COMMON_PROVIDER_KWARGS",
    "EFFORT_ORDER",
    "INTERLEAVED_THINKING_BETA",
    "OFF_TYPES",
    "PROVIDER_DEFAULTS",
    "PROVIDER_KWARGS",
    "BuiltInToolConfig",
    "BuiltInToolsWire",
    "ParameterMapper",
    "ParameterValidator",
    "ThinkingTransform",
    "anthropic_mcp_connector",
    "apply_anthropic_allowed_tools",
    "check_built_in_tools",
    "check_provider_kwargs",
    "check_provider_run_allowed_tools",
    "effort_rank",
    "get_default_value",
    "get_provider_defaults",
    "map_built_in_tools",
    "normalize_built_in_tools",
    "openai_allowed_tools",
    "refuse_provider_ignored_allowed_tools",
    "transform_mcp_remote_servers",
    "transform_thinking_param",
    "validate_service_tier",
]
