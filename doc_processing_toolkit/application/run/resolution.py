"""What an Agent's settings resolve to once, at construction: the provider, the registry
row, the provider profile's verdict on the options, and the tool-result cap.

Belongs here because it turns settings into facts about this model; it runs no request.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass

from doc_processing_toolkit.application.compaction.setup import CompactionSetup, check_summary_cap
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.deps import AgentDeps
from doc_processing_toolkit.application.run.prefix_audit import PrefixAuditor, prefix_audit_enabled
from doc_processing_toolkit.domain.registry import ModelInfo, closest_model_names
from doc_processing_toolkit.domain.tools.results import resolve_cap
from doc_processing_toolkit.ports.provider_profile import ProviderOptions, ProviderProfile

__all__ = ["AgentResolution", "resolve_settings"]


@dataclass(frozen=True, slots=True)
class AgentResolution:
    """The construction-time facts an Agent's runs share."""

    provider: str
    """The provider serving the model."""
    row: ModelInfo | None
    """The model's registry row (None: an unknown model, default limits)."""
    profile: ProviderProfile
    """The provider's profile."""
    service_tier: str | None
    """The tier to request, as the profile decided."""
    built_in_tool_names: tuple[str, ...]
    """The neutral built-in tool names that will be sent."""
    native_tool_search: bool
    """The provider's native tool search is on (``defer_tools`` can take effect)."""
    tool_result_cap: int
    """Characters of a tool result the model is shown (0: no cap)."""
    compaction: CompactionSetup | None = None
    """The resolved compaction (None: ``compaction=False``)."""
    row_lookup: Callable[[str], ModelInfo | None] | None = None
    """The registry's row lookup (a request is priced at the row of its serving model)."""
    prefix_auditor: PrefixAuditor | None = None
    """The shadow prefix audit of this Agent's requests (None: off)."""


_AGENT_PARAMETERS = tuple(
    f.name for f in dataclasses.fields(AgentSettings) if f.name != "provider_kwargs"
)
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
    return [
        f"{name} is Anthropic-only: ignored for provider {profile.name!r}"
        for name in _BINDING_SETTINGS
        if getattr(settings, name) not in (None, False)
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
    row = deps.registry.row(settings.model)
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
            thinking=settings.thinking,
            built_in_tools=settings.built_in_tools or None,
            remote_mcp_servers=settings.remote_mcp_servers,
            provider_kwargs=settings.provider_kwargs,
            service_tier=settings.service_tier,
            has_custom_tools=settings.has_custom_tools,
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
        tool_result_cap=resolve_cap(settings.max_tool_result_chars, window),
        compaction=compaction,
        row_lookup=deps.registry.row,
        prefix_auditor=PrefixAuditor() if prefix_audit_enabled(settings.prefix_audit) else None,
    )
