"""Parameter mapping: Agent parameters -> provider-specific formats (documented import path).

Re-exports `doc_processing_toolkit.adapters.providers.options` (the functions by
provider name over each vendor's rules in ``adapters/providers/<vendor>/options.py``, and
the ParameterMapper / ParameterValidator classes) and adds `detect_provider`,
which asks the process registry (``registry/model_information.json``).
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
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError

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


def detect_provider(model_name: str) -> str:
    """Detect the provider from a model name using model_information.json.

    ``_``-prefixed keys are registry metadata at every level and never resolve as
    models.

    Args:
        model_name: Model name (e.g. "claude-sonnet-5-5", "gpt-4o").

    Returns:
        The provider name ("anthropic", "openai", "google", "fireworks").

    Raises:
        ValueError: if the model is not found.
        TypeError: if ``model_name`` is None (or not a string).
    """
    if not isinstance(model_name, str):
        raise InvalidArgumentTypeError(
            f"model_name must be a string, got {type(model_name).__name__}"
        )
    from doc_processing_toolkit.application.container import registry

    return registry().detect_provider(model_name)
