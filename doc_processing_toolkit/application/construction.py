"""Building an Agent's settings: the one validation path of the constructor,
`AgentBuilder` and ``Agent.from_config``.

`settings_from_arguments` validates the constructor's arguments (by parameter name), with
the checks of the rooms that own a setting (compaction, hooks, media, session, run), and
builds the `AgentSettings` once from the validated values; it also hands back the
compaction setup it resolved, so that the Agent's resolution does not check
``compaction_config`` again (`validated_settings` and `validate_settings`: the same for
settings already gathered). The config room
below holds the settings model and the plain value checks; this module sits above the
rooms whose checks it calls. `resolve_settings` then resolves the settings once against
the registry and the provider profile (an `AgentResolution`).
"""

from __future__ import annotations

import datetime
import logging
import os
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.compaction.setup import (
    check_compaction_settings,
    check_summary_cap,
)
from doc_processing_toolkit.application.config.binding_checks import check_binding_settings
from doc_processing_toolkit.application.config.deployment import (
    check_deployment,
    deployment_client_kwargs,
    deployment_lookup,
    deployment_row,
    resolve_deployment,
)
from doc_processing_toolkit.application.config.resolution import AgentResolution, CompactionSetup
from doc_processing_toolkit.application.config.settings import (
    SETTING_NAMES,
    AgentSettings,
    normalize_prompt_caching,
    setting_field,
)
from doc_processing_toolkit.application.config.validation import (
    CONSUMED_PROVIDER_KWARGS,
    NOT_YET_IMPLEMENTED,
    check_keyword_names,
    check_not_implemented,
    defer_predicate,
    validate_non_negative_int,
    validate_positive_int,
    validate_temperature,
    validate_threshold,
    validate_timeout,
)
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.hooks.runner import validate_hooks
from doc_processing_toolkit.application.media.validation import validate_on_unsupported_part
from doc_processing_toolkit.application.run.policy.input_estimate import validate_estimate_mode
from doc_processing_toolkit.application.run.policy.prefix_audit import (
    PrefixAuditor,
    prefix_audit_enabled,
)
from doc_processing_toolkit.application.session.history_config import validate_history_config
from doc_processing_toolkit.application.session.media_policy import validate_max_inline_bytes
from doc_processing_toolkit.application.telemetry.runtime import agent_telemetry
from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.registry import closest_model_names
from doc_processing_toolkit.domain.session import MEDIA_POLICIES
from doc_processing_toolkit.domain.tools.results import resolve_cap
from doc_processing_toolkit.domain.tools.specs import normalize_tool_choice
from doc_processing_toolkit.ports.provider_profile import ProviderOptions, ProviderProfile

__all__ = [
    "check_arguments",
    "check_session_settings",
    "resolve_settings",
    "settings_from_arguments",
    "validate_settings",
    "validated_settings",
]


def validate_settings(settings: AgentSettings) -> AgentSettings:
    """The validated copy of ``settings`` (see `validated_settings`)."""
    return validated_settings(settings)[0]


def validated_settings(settings: AgentSettings) -> tuple[AgentSettings, CompactionSetup | None]:
    """The validated copy of ``settings`` and the compaction setup it resolved (see
    `settings_from_arguments`, which this is for settings already gathered)."""
    return settings_from_arguments(settings.arguments())


def settings_from_arguments(
    arguments: Mapping[str, Any],
) -> tuple[AgentSettings, CompactionSetup | None]:
    """The validated settings of ``Agent(**arguments)`` (model stripped, dicts copied,
    keywords split), each group built once from the validated values, and the compaction
    setup the validation resolved (None: compaction off).

    ``arguments`` holds every setting by constructor parameter name, as the constructor
    passes them (``provider_kwargs`` the mapping of extra keywords); a missing one takes
    its default (``max_pause_turn_iterations`` and ``mcp_remote_servers`` are provider
    keywords of the constructor, fields of the settings: either spelling is taken).

    Raises:
        ValueError: a value out of range or of the wrong type (naming the parameter).
        TypeError: a ``defer_tools`` that is neither names nor a predicate, a keyword
            that is a near miss of an Agent parameter (``instruction=``), or a name that
            is not a setting.
        NotImplementedError: a parameter of a feature not built yet, set.
    """
    a = arguments
    keys = a.keys()
    if keys != _PARAMETER_SET and keys != _SETTING_NAME_SET:
        unknown = [name for name in a if name not in _SETTING_NAME_SET]
        if unknown:
            raise InvalidArgumentTypeError(f"not Agent settings: {unknown}")
        a = {**_DEFAULT_ARGUMENTS, **a}
    model = a["model"]
    if not isinstance(model, str) or not model.strip():
        raise ConfigurationError(f"model must be a non-empty model name, got {model!r}")
    if not isinstance(a["instructions"], str):
        raise ConfigurationError(
            f"instructions must be a string, got {type(a['instructions']).__name__}"
        )
    if NOT_YET_IMPLEMENTED:
        check_not_implemented({name: a[name] for name in NOT_YET_IMPLEMENTED})
    check_keyword_names(a["provider_kwargs"])
    max_iterations = validate_positive_int("max_iterations", a["max_iterations"]) or 10
    max_tokens = validate_positive_int("max_tokens", a["max_tokens"], optional=True)
    temperature = validate_temperature(a["temperature"])
    thinking = a["thinking"]
    if thinking is not None and not isinstance(thinking, dict):
        raise ConfigurationError(f"thinking must be a dict or None, got {type(thinking).__name__}")
    normalize_tool_choice(a["tool_choice"])
    validate_hooks(a["hooks"])
    max_chars = validate_non_negative_int(
        "max_tool_result_chars", a["max_tool_result_chars"], optional=True
    )
    preview = validate_non_negative_int("tool_result_preview_chars", a["tool_result_preview_chars"])
    read_chars = validate_non_negative_int(
        "truncated_result_read_chars", a["truncated_result_read_chars"], optional=True
    )
    normalize_prompt_caching(a["prompt_caching"])
    validate_on_unsupported_part(a["on_unsupported_part"])
    estimate_mode = validate_estimate_mode(a["estimate_input_tokens"])
    defer_predicate(a["defer_tools"])
    check_session_settings(a)
    compaction = check_compaction_settings(a["compaction"], a["compaction_config"])
    check_binding_settings(a)
    provider_kwargs = dict(a["provider_kwargs"])
    consumed = {k: provider_kwargs.pop(k) for k in CONSUMED_PROVIDER_KWARGS if k in provider_kwargs}
    pauses = consumed.get("max_pause_turn_iterations", a.get("max_pause_turn_iterations", 10))
    remote = [*a.get("mcp_remote_servers", ()), *(consumed.get("mcp_remote_servers") or [])]
    built_in_tools = a["built_in_tools"]
    deployment_options = check_deployment(a["deployment"], a["deployment_options"])
    values = dict(a)
    values.update(
        model=model.strip(),
        tools=tuple(a["tools"]),
        max_iterations=max_iterations,
        max_tokens=max_tokens,
        temperature=temperature,
        thinking=dict(thinking) if thinking is not None else None,
        built_in_tools=dict(built_in_tools) if built_in_tools is not None else None,
        strict_tools=bool(a["strict_tools"]),
        emit_request_start=bool(a["emit_request_start"]),
        max_tool_result_chars=max_chars,
        tool_result_preview_chars=preview or 0,
        truncated_result_read_chars=read_chars,
        detailed_costs=bool(a["detailed_costs"]),
        remove_citations=bool(a["remove_citations"]),
        output_retries=validate_non_negative_int("output_retries", a.get("output_retries", 0)) or 0,
        evidence_threshold=validate_threshold(a.get("evidence_threshold", 85.0)),
        citations=bool(a["citations"]),
        estimate_input_tokens=estimate_mode,
        max_pause_turn_iterations=(
            validate_positive_int("max_pause_turn_iterations", pauses) or 10
        ),
        mcp_remote_servers=tuple(dict(server) for server in remote),
        provider_kwargs=provider_kwargs,
        connect_timeout=validate_timeout("connect_timeout", a["connect_timeout"]),
        request_timeout=validate_timeout("request_timeout", a["request_timeout"]),
        stream_idle_timeout=validate_timeout("stream_idle_timeout", a["stream_idle_timeout"]),
        tool_timeout=validate_timeout("tool_timeout", a["tool_timeout"]),
        deployment_options=deployment_options,
    )
    return AgentSettings.from_values(values), compaction


_SETTING_NAME_SET = frozenset(SETTING_NAMES)
_PARAMETER_SET = _SETTING_NAME_SET - frozenset(CONSUMED_PROVIDER_KWARGS)
"""The constructor's settings parameters (the consumed provider keywords are fields too)."""
_DEFAULT_ARGUMENTS: dict[str, Any] = {
    name: None if name == "model" else setting_field(name).get_default(call_default_factory=True)
    for name in SETTING_NAMES
}
"""Every setting's default by parameter name (``model`` has none: None fails its check)."""


def check_arguments(arguments: dict[str, Any]) -> None:
    """Validate some of the constructor's keyword arguments as the constructor does.

    Used by AgentBuilder, so each builder method fails where the constructor would, with
    the same message.

    Raises:
        ValueError, TypeError, NotImplementedError: as `validate_settings`.
    """
    values = dict(arguments)
    if "tools" in values:
        values["tools"] = tuple(values["tools"] or ())
    values.setdefault("model", "model-placeholder")
    settings_from_arguments(values)


def check_session_settings(values: Mapping[str, Any]) -> None:
    """The session and media-policy parameters (``values`` by parameter name): known
    names and values.

    Raises:
        ValueError: an unknown history mode or key, media policy, or a bad inline cap.
        TypeError: a media_store that is neither a path nor a MediaStore.
    """
    history = values["session_history_config"]
    if history is not None:
        validate_history_config(history, "the Agent's")
    policy = values["media_policy"]
    if policy not in MEDIA_POLICIES:
        raise ConfigurationError(
            f"media_policy must be one of {', '.join(MEDIA_POLICIES)}, got {policy!r}"
        )
    validate_max_inline_bytes(values["media_max_inline_bytes"])
    store = values["media_store"]
    if store is not None and not isinstance(store, str | os.PathLike):
        if not (callable(getattr(store, "put", None)) and callable(getattr(store, "get", None))):
            raise InvalidArgumentTypeError(
                "media_store must be None, a directory path or an object with put() and "
                f"get(), got {type(store).__name__}"
            )


_AGENT_PARAMETERS = tuple(name for name in SETTING_NAMES if name != "provider_kwargs")
"""The Agent's own parameter names, for a "did you mean" on a mistyped provider keyword."""


_BINDING_SETTINGS = (
    "anthropic_block_binding",
    "strict_prefix_binding",
    "prefix_audit",
    "prefix_strip_fallback",
)


def _binding_ignored(settings: AgentSettings, profile: ProviderProfile) -> list[str]:
    """One warning per thinking-binding setting a provider without bound reasoning ignores."""
    if getattr(profile, "thinking_binding", False):
        return []
    binding = settings.binding.parameters()
    return [
        f"{name} is Anthropic-only: ignored for provider {profile.name!r}"
        for name in _BINDING_SETTINGS
        if binding.get(name) not in (None, False)
    ]


def resolve_settings(
    settings: AgentSettings,
    deps: AgentDeps,
    logger: logging.Logger,
    compaction: CompactionSetup | None = None,
) -> AgentResolution:
    """Resolve ``settings`` against the registry and the provider's profile.

    ``compaction`` is the setup the settings' validation resolved; only its
    ``summary_max_tokens`` is checked here, against the registry.

    The profile's warnings are logged on ``logger`` (once per Agent).

    Raises:
        ValueError: an unknown model, or an option the provider refuses.
        TypeError: an option in a form the provider does not take.
    """
    provider = deps.registry.detect_provider(settings.model)
    deployment = resolve_deployment(settings.deployment.deployment, provider)
    row = deployment_row(deps.registry.row(settings.model), deployment, settings.model)
    if row is None:
        # The missing price is warned about once, at the first request it leaves unpriced.
        close = closest_model_names(settings.model, [r.model for r in deps.registry.models()])
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        logger.warning("model %s has no registry row: default limits apply%s", settings.model, hint)
    else:
        lifecycle = row.lifecycle_warning(datetime.date.today().isoformat())
        if lifecycle is not None:
            logger.warning(lifecycle)
    profile = deps.provider_profiles(provider)
    report = profile.check_options(
        ProviderOptions(
            thinking=settings.generation.thinking,
            built_in_tools=settings.tools.built_in_tools or None,
            remote_mcp_servers=settings.remote_mcp_servers,
            provider_kwargs=settings.provider.provider_kwargs,
            service_tier=settings.provider.service_tier,
            has_custom_tools=settings.tools.has_custom_tools,
            agent_parameters=_AGENT_PARAMETERS,
        ),
        row,
    )
    for warning in (*report.warnings, *_binding_ignored(settings, profile)):
        logger.warning(warning)
    window = row.context_window_tokens if row is not None else None
    check_summary_cap(compaction, model=settings.model, row_lookup=deps.registry.row)
    return AgentResolution(
        provider=provider,
        row=row,
        profile=profile,
        service_tier=report.service_tier,
        built_in_tool_names=tuple(report.built_in_tool_names),
        native_tool_search=report.native_tool_search,
        tool_result_cap=resolve_cap(settings.tool_results.max_tool_result_chars, window),
        compaction=compaction,
        row_lookup=deployment_lookup(deps.registry.row, deployment),
        client_kwargs=deployment_client_kwargs(deployment, settings.deployment.deployment_options),
        prefix_auditor=PrefixAuditor()
        if prefix_audit_enabled(settings.binding.prefix_audit)
        else None,
        telemetry=agent_telemetry(settings.logging.telemetry, deps.telemetry),
    )
