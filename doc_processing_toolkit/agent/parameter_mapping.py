"""Parameter mapping: Agent parameters -> provider-specific formats (documented import path).

Thin re-exports, no logic: `doc_processing_toolkit.adapters.providers.options` (the
functions by provider name over each vendor's rules in
``adapters/providers/<vendor>/options.py``, the shared mechanics of
``adapters/providers/_options.py``, and the ParameterMapper / ParameterValidator
classes), and `detect_provider` from the composition root
(``application/container.py``), which asks the process registry
(``registry/model_information.json``).
"""

from __future__ import annotations

from doc_processing_toolkit.adapters.providers.options import (
    AGENT_OWNED_KWARGS,
    ANTHROPIC_MCP_BETA,
    BUILT_IN_TOOL_NAMES,
    COMMON_PROVIDER_KWARGS,
    EFFORT_ORDER,
    INTERLEAVED_THINKING_BETA,
    OFF_TYPES,
    PROVIDER_DEFAULTS,
    PROVIDER_KWARGS,
    BuiltInToolConfig,
    BuiltInToolsWire,
    ParameterMapper,
    ParameterValidator,
    ThinkingTransform,
    anthropic_mcp_connector,
    apply_anthropic_allowed_tools,
    check_built_in_tools,
    check_provider_kwargs,
    check_provider_run_allowed_tools,
    effort_rank,
    get_default_value,
    get_provider_defaults,
    map_built_in_tools,
    normalize_built_in_tools,
    openai_allowed_tools,
    refuse_provider_ignored_allowed_tools,
    transform_mcp_remote_servers,
    transform_thinking_param,
    validate_service_tier,
)
from doc_processing_toolkit.application.container import detect_provider

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
    "detect_provider",
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
