"""The documented parameter-mapping functions, by provider name, over each vendor's rules.

Each provider's rules live in its adapter (``adapters/providers/<vendor>/options.py``, a
`VendorOptions`); the
neutral pieces in ``domain/tools/built_in.py`` and ``adapters/providers/_options.py``.
This module keeps the documented functions that take a ``provider`` argument
(`transform_thinking_param`, `map_built_in_tools`,
`transform_mcp_remote_servers`, `check_provider_kwargs`, ...) and the
ParameterMapper / ParameterValidator classes: `OPTIONS` maps a provider name to
its rules. The documented import path is ``doc_processing_toolkit.agent.parameter_mapping``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from doc_processing_toolkit.adapters.providers._options import (
    AGENT_OWNED_KWARGS,
    COMMON_PROVIDER_KWARGS,
    EFFORT_ORDER,
    OFF_TYPES,
    BuiltInToolsWire,
    ThinkingTransform,
    VendorOptions,
    effort_rank,
    keyword_warnings,
    validate_service_tier,
)
from doc_processing_toolkit.adapters.providers.anthropic.options import (
    ANTHROPIC_MCP_BETA,
    ANTHROPIC_OPTIONS,
    INTERLEAVED_THINKING_BETA,
    anthropic_mcp_connector,
    apply_anthropic_allowed_tools,
)
from doc_processing_toolkit.adapters.providers.fireworks.options import FIREWORKS_OPTIONS
from doc_processing_toolkit.adapters.providers.google.options import GOOGLE_OPTIONS
from doc_processing_toolkit.adapters.providers.openai.options import (
    OPENAI_OPTIONS,
    openai_allowed_tools,
)
from doc_processing_toolkit.domain.errors import (
    CompatibilityError,
    ConfigurationError,
    InvalidArgumentTypeError,
)
from doc_processing_toolkit.domain.registry import PROVIDERS, ModelInfo
from doc_processing_toolkit.domain.tools.built_in import (
    BUILT_IN_TOOL_NAMES,
    BuiltInToolConfig,
    normalize_built_in_tools,
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

OPTIONS: dict[str, VendorOptions] = {
    options.name: options
    for options in (ANTHROPIC_OPTIONS, OPENAI_OPTIONS, GOOGLE_OPTIONS, FIREWORKS_OPTIONS)
}
"""Provider name -> its rules (the built-in four)."""

PROVIDER_KWARGS: dict[str, frozenset[str]] = {
    name: options.kwargs for name, options in OPTIONS.items()
}
"""The documented provider keywords, per provider."""

PROVIDER_DEFAULTS: dict[str, dict[str, Any]] = {
    name: dict(options.defaults) for name, options in OPTIONS.items()
}
"""Documented default values per provider (a parameter absent here has no fixed default)."""

_RAW_THINKING = ("thinking_config", "reasoning", "reasoning_effort")


def _options(provider: str) -> VendorOptions:
    """The provider's rules; a name without rules gets a plug-in's (nothing provider-run)."""
    return OPTIONS.get(provider) or VendorOptions(provider)


def transform_thinking_param(
    thinking: Mapping[str, Any] | None,
    provider: str,
    row: ModelInfo | None = None,
    *,
    effort: str | None = None,
) -> ThinkingTransform:
    """Transform the unified thinking config to the provider's wire value.

    Args:
        thinking: The Agent's ``thinking=`` dict (None: the provider default).
        provider: ``anthropic``, ``openai``, ``google`` or ``fireworks``.
        row: The model's registry row; None sends what was given, unchecked.
        effort: Anthropic only: the request's effort (``effort_config``), checked against
            the row's ``thinking_off_max_effort`` for an off value; None reads the row's
            ``default_reasoning_effort``.

    Returns:
        A `ThinkingTransform` (value, keyword, interleaved flag, betas, warnings).

    Raises:
        TypeError: if ``thinking`` is not a mapping.
        ValueError: for an unknown provider, or Google given both budget_tokens and level.
    """
    if provider not in OPTIONS:
        raise ConfigurationError(f"unknown provider {provider!r} for thinking")
    return OPTIONS[provider].transform_thinking(thinking, row, effort=effort)


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
    return _options(provider).map_built_in_tools(built_in_tools, row)


def check_built_in_tools(
    provider: str,
    built_in_tools: Mapping[str, Any] | None,
    row: ModelInfo | None,
    has_custom_tools: bool,
) -> list[str]:
    """The Agent's construction-time check; returns the warnings to log.

    Raises:
        ValueError: as `map_built_in_tools`, and when the row says built-in and
            custom tools cannot be combined (``supports_concurrent_built_in_and_custom_tools``
            false) and both are given.
    """
    return _options(provider).check_built_in_tools(built_in_tools, row, has_custom_tools)


def refuse_provider_ignored_allowed_tools(server: Mapping[str, Any], provider: str) -> None:
    """Refuse ``allowed_tools`` on a provider-run server whose provider ignores it.

    Raises:
        ValueError: if ``provider`` is "fireworks" and the config sets allowed_tools.
    """
    _options(provider).refuse_ignored_allowed_tools(server)


def check_provider_run_allowed_tools(server: Mapping[str, Any], provider: str) -> None:
    """Fail on a provider-run MCP server's ``allowed_tools`` before any request.

    Raises:
        ValueError: if ``provider`` is "fireworks" and the config sets allowed_tools.
        TypeError: if the value is not a form the provider takes.
    """
    _options(provider).check_allowed_tools(server)


def transform_mcp_remote_servers(
    servers: Sequence[Mapping[str, Any]], provider: str
) -> list[dict[str, Any]]:
    """Transform remote MCP server configs to the provider's format.

    Anthropic: the ``mcp_servers`` entries (the toolsets come from
    `anthropic_mcp_connector`). OpenAI / Fireworks: ``{"type": "mcp"}`` tool entries.

    Raises:
        ValueError: if the provider has no provider-run MCP (Google), or Fireworks is
            given allowed_tools, or a config lacks its label / URL.
        TypeError: for an allowed_tools value the provider does not take.
    """
    return _options(provider).remote_mcp_servers(servers)


def get_provider_defaults(provider: str) -> dict[str, Any]:
    """Default parameter values for ``provider`` (a copy; ``{}`` when unknown)."""
    return dict(PROVIDER_DEFAULTS.get(provider, {}))


def get_default_value(param_name: str, provider: str) -> Any:
    """The default value of ``param_name`` on ``provider``, or None if it has none."""
    return PROVIDER_DEFAULTS.get(provider, {}).get(param_name)


def check_provider_kwargs(provider: str, kwargs: Mapping[str, Any]) -> list[str]:
    """Check ``Agent(**provider_kwargs)`` for ``provider``; return the warnings to log.

    One warning per keyword the provider does not take or the Agent supplies itself
    (naming the Agent parameter to use instead); every keyword is still passed through.

    Raises:
        ValueError: for a documented keyword outside its documented bounds (named).
    """
    options = _options(provider)
    warnings = keyword_warnings(provider, kwargs, options.kwargs, PROVIDER_KWARGS)
    return warnings + options.check_kwargs(kwargs)


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise ConfigurationError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")


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
        options = OPTIONS[provider]
        warnings: list[str] = []
        out: dict[str, Any] = {}
        tools: list[dict[str, Any]] = []
        betas: list[str] = []
        if params.get("thinking") is not None:
            raw = [k for k in _RAW_THINKING if k in params]
            if raw:
                raise ConfigurationError(
                    f"thinking= conflicts with the raw provider parameters {raw}"
                )
        for key, value in params.items():
            if value is None:
                continue
            match key:
                case "thinking":
                    effort = params.get("effort_config")
                    result = options.transform_thinking(
                        value, self.row, effort=effort if isinstance(effort, str) else None
                    )
                    out.update(result.as_params())
                    betas.extend(result.betas)
                    warnings.extend(result.warnings)
                case "built_in_tools":
                    wire = options.map_built_in_tools(value, self.row)
                    tools.extend(wire.tools)
                    out.update(wire.params)
                    warnings.extend(wire.warnings)
                case "mcp_remote_servers":
                    mcp = options.remote_mcp_wire(list(value))
                    out.update(mcp.params)
                    tools.extend(mcp.tools)
                    betas.extend(mcp.betas)
                case "service_tier":
                    tier, warning = validate_service_tier(value, self.row)
                    if tier is not None:
                        out["service_tier"] = tier
                    if warning is not None:
                        warnings.append(warning)
                case "max_tokens":
                    out[options.max_tokens_param] = value
                case "tool_choice" | "temperature":
                    out[key] = value
                case _:
                    self._provider_keyword(options, key, value, out, warnings)
        if tools:
            out["tools"] = tools
        if betas:
            out["betas"] = list(dict.fromkeys(betas))
        return out, warnings

    @staticmethod
    def _provider_keyword(
        options: VendorOptions, key: str, value: Any, out: dict[str, Any], warnings: list[str]
    ) -> None:
        provider = options.name
        others = [p for p, names in PROVIDER_KWARGS.items() if p != provider and key in names]
        known = options.kwargs | COMMON_PROVIDER_KWARGS
        if others and key not in known:
            raise CompatibilityError(
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
            raise InvalidArgumentTypeError(
                f"tool_choice must be a string, got {type(tool_choice).__name__}"
            )
        return {"tool_choice": tool_choice}

    def validate_provider_params(
        self, provider: str, params: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """Validate ``params`` for ``provider``: ``(validated_params, warnings)``.

        Raises:
            ValueError: if parameters are invalid for the provider.
        """
        return self._validator.validate(provider, params)
