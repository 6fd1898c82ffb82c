"""ParameterMapper and ParameterValidator: the documented class entry points.

Both are thin: the rules live in :mod:`.thinking`, :mod:`.built_in`, :mod:`.mcp` and
:mod:`.provider_kwargs`. A mapper/validator built with a registry row checks against it
(efforts, thinking-off values, built-in tools, service tiers); without one the values
are mapped unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.parameter_mapping.built_in import map_built_in_tools
from doc_processing_toolkit.domain.parameter_mapping.mcp import (
    ANTHROPIC_MCP_BETA,
    anthropic_mcp_connector,
    transform_mcp_remote_servers,
)
from doc_processing_toolkit.domain.parameter_mapping.provider_kwargs import (
    AGENT_OWNED_KWARGS,
    COMMON_PROVIDER_KWARGS,
    PROVIDER_KWARGS,
    get_provider_defaults,
    validate_service_tier,
)
from doc_processing_toolkit.domain.parameter_mapping.thinking import transform_thinking_param
from doc_processing_toolkit.domain.registry import PROVIDERS, ModelInfo

__all__ = ["ParameterMapper", "ParameterValidator"]

_MAX_TOKENS_NAME = {
    "anthropic": "max_tokens",
    "openai": "max_output_tokens",
    "google": "max_output_tokens",
    "fireworks": "max_tokens",
}
_RAW_THINKING = ("thinking_config", "reasoning", "reasoning_effort")


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")


def _other_providers_keyword(provider: str, key: str) -> list[str]:
    return [p for p, names in PROVIDER_KWARGS.items() if p != provider and key in names]


class ParameterValidator:
    """Validates and maps parameters from the unified Agent API to a provider's format.

    Handles name mapping (``max_tokens`` -> ``max_output_tokens`` on OpenAI / Google),
    value transforms (thinking, built-in tools, remote MCP servers, service tier), the
    refusal of another provider's keywords, and warnings for ignored parameters.
    """

    def __init__(self, row: ModelInfo | None = None) -> None:
        """Optionally bind the model's registry row (checked against when given)."""
        self.row = row

    def validate(
        self, provider: str, params: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """Validate and filter ``params`` for ``provider``.

        Returns:
            ``(valid_params, warnings)``: the parameters transformed for the provider
            (``tools`` gathers built-in and MCP entries, ``betas`` the Anthropic beta
            names), and the warning messages for ignored or adjusted parameters.

        Raises:
            ValueError: for another provider's keyword, conflicting parameters, or a
                value a rule refuses (e.g. Fireworks allowed_tools).
            TypeError: for a remote MCP server's allowed_tools in a form the provider
                does not take.
        """
        _check_provider(provider)
        warnings: list[str] = []
        out: dict[str, Any] = {}
        tools: list[dict[str, Any]] = []
        betas: list[str] = []
        if params.get("thinking") is not None:
            raw = [k for k in _RAW_THINKING if k in params]
            if raw:
                raise ValueError(f"thinking= conflicts with the raw provider parameters {raw}")
        for key, value in params.items():
            if value is None:
                continue
            match key:
                case "thinking":
                    effort = params.get("effort_config")
                    result = transform_thinking_param(
                        value,
                        provider,
                        self.row,
                        effort=effort if isinstance(effort, str) else None,
                    )
                    out.update(result.as_params())
                    betas.extend(result.betas)
                    warnings.extend(result.warnings)
                case "built_in_tools":
                    wire = map_built_in_tools(provider, value, self.row)
                    tools.extend(wire.tools)
                    out.update(wire.params)
                    warnings.extend(wire.warnings)
                case "mcp_remote_servers":
                    if provider == "anthropic":
                        entries, toolsets = anthropic_mcp_connector(list(value))
                        out["mcp_servers"] = entries
                        tools.extend(toolsets)
                        betas.append(ANTHROPIC_MCP_BETA)
                    else:
                        tools.extend(transform_mcp_remote_servers(list(value), provider))
                case "service_tier":
                    tier, warning = validate_service_tier(value, self.row)
                    if tier is not None:
                        out["service_tier"] = tier
                    if warning is not None:
                        warnings.append(warning)
                case "max_tokens":
                    out[_MAX_TOKENS_NAME[provider]] = value
                case "tool_choice" | "temperature":
                    out[key] = value
                case _:
                    self._provider_keyword(provider, key, value, out, warnings)
        if tools:
            out["tools"] = tools
        if betas:
            out["betas"] = list(dict.fromkeys(betas))
        return out, warnings

    @staticmethod
    def _provider_keyword(
        provider: str, key: str, value: Any, out: dict[str, Any], warnings: list[str]
    ) -> None:
        others = _other_providers_keyword(provider, key)
        known = PROVIDER_KWARGS[provider] | COMMON_PROVIDER_KWARGS
        if others and key not in known:
            raise ValueError(
                f"{key!r} is a {'/'.join(others)} parameter; it cannot be used with {provider}"
            )
        if key in AGENT_OWNED_KWARGS:
            instead = AGENT_OWNED_KWARGS[key]
            hint = f"; use {instead}= instead" if instead else ""
            warnings.append(f"{key!r} is supplied by the Agent itself{hint}")
        elif key not in known:
            warnings.append(f"{key!r} is not a documented {provider} parameter; passed through")
        out[key] = value


class ParameterMapper:
    """Maps universal Agent parameters to provider-specific formats.

    The main entry point: map one parameter kind at a time, or validate a whole set.
    """

    def __init__(self, row: ModelInfo | None = None) -> None:
        """Initialize the ParameterMapper (optionally bound to a model's registry row)."""
        self.row = row
        self._validator = ParameterValidator(row)

    def get_provider_defaults(self, provider: str) -> dict[str, Any]:
        """Default parameter values for ``provider``."""
        return get_provider_defaults(provider)

    def map_built_in_tools(
        self, provider: str, built_in_tools: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Universal built-in tools -> ``{"tools": [...], **other params}`` (``{}`` if none)."""
        wire = map_built_in_tools(provider, built_in_tools, self.row)
        out: dict[str, Any] = dict(wire.params)
        if wire.tools:
            out["tools"] = list(wire.tools)
        return out

    def map_thinking(self, provider: str, thinking_config: Mapping[str, Any]) -> dict[str, Any]:
        """Universal thinking config -> ``{param: value}`` (e.g. ``{"reasoning": {...}}``)."""
        return transform_thinking_param(thinking_config, provider, self.row).as_params()

    def map_tool_choice(self, provider: str, tool_choice: str) -> dict[str, Any]:
        """``{"tool_choice": tool_choice}``: the value maps directly for all providers.

        Raises:
            ValueError: for an unknown provider.
            TypeError: if ``tool_choice`` is not a string.
        """
        _check_provider(provider)
        if not isinstance(tool_choice, str):
            raise TypeError(f"tool_choice must be a string, got {type(tool_choice).__name__}")
        return {"tool_choice": tool_choice}

    def validate_provider_params(
        self, provider: str, params: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """Validate ``params`` for ``provider``: ``(validated_params, warnings)``.

        Raises:
            ValueError: if parameters are invalid for the provider.
        """
        return self._validator.validate(provider, params)
