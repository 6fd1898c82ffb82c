"""What an Agent's settings resolve to once, at construction: the provider, the registry
row, the provider profile's verdict on the options, the tool-result cap, the compaction
setup and the prefix audit (``application.construction.resolve_settings`` builds it).

Belongs here because the run's settings are derived from it; it runs no request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from doc_processing_toolkit.domain.compaction.config import CompactionConfig
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.ports.provider_profile import ProviderProfile
from doc_processing_toolkit.ports.telemetry import Telemetry

__all__ = ["AgentResolution", "CompactionSetup", "PrefixObserver"]


@dataclass(frozen=True, slots=True)
class CompactionSetup:
    """An Agent's resolved compaction: the config and the prompt text."""

    config: CompactionConfig
    prompt: str
    """The summarisation prompt (inline, from the file, or the default)."""


class PrefixObserver(Protocol):
    """The shadow prefix audit a run's requests pass through (``run.policy.prefix_audit``)."""

    def observe(self, request: ModelRequest, log: Any) -> str | None:
        """Record ``request``; a warning text when its replayed prefix changed."""
        ...


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
    prefix_auditor: PrefixObserver | None = None
    """The shadow prefix audit of this Agent's requests (None: off)."""
    client_kwargs: dict[str, Any] = field(default_factory=dict)
    """The model client's deployment keywords (``config/deployment.py``; empty: the
    provider's own API)."""
    telemetry: Telemetry | None = None
    """The Agent's own telemetry (``telemetry=True``; None: off unless ``instrument()``)."""
