"""ProviderProfile: what the core needs to know about one provider and cannot read from a row.

Each provider adapter ships one (``adapters/providers/<vendor>/profile.py``); a plug-in
registers its own under the entry-point group ``doc_processing_toolkit.provider_profiles``.
The application asks the profile and never branches on a provider's name: option checks
and warnings (`ProviderProfile.check_options`), which media each message position
takes (`ProviderProfile.accepts_media`), and what a verbatim payload or a reasoning
part of this provider contributes when a history crosses to another provider
(`ProviderProfile.salvage`). A profile is pure: it never logs, never does I/O and
never imports an SDK; what the caller must log comes back as warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import Position
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["OptionReport", "ProviderOptions", "ProviderProfile"]


@dataclass(frozen=True, slots=True)
class ProviderOptions:
    """The provider-facing part of an Agent's settings, as a profile checks it."""

    thinking: Mapping[str, Any] | None = None
    """The Agent's neutral ``thinking=`` dict."""
    built_in_tools: Mapping[str, Any] | None = None
    """The Agent's ``built_in_tools=`` (names -> BuiltInToolConfig or its dict form)."""
    remote_mcp_servers: tuple[Mapping[str, Any], ...] = ()
    """Provider-run MCP server configs (tool format 7 and ``mcp_remote_servers=``)."""
    provider_kwargs: Mapping[str, Any] = field(default_factory=dict)
    """The Agent's remaining ``**provider_kwargs``."""
    service_tier: str | None = None
    """The requested service tier (None or "standard": the default)."""
    has_custom_tools: bool = False
    """Whether the Agent has tools of its own besides provider-run ones."""
    agent_parameters: tuple[str, ...] = ()
    """The Agent's own parameter names, for a "did you mean" on a mistyped keyword."""


@dataclass(frozen=True, slots=True)
class OptionReport:
    """What `ProviderProfile.check_options` found."""

    warnings: tuple[str, ...] = ()
    """Messages the caller logs at WARNING, once per Agent."""
    service_tier: str | None = None
    """The tier to request (None: the standard tier, nothing sent)."""
    built_in_tool_names: tuple[str, ...] = ()
    """The neutral built-in tool names that will be sent (AgentResult.built_in_tools_used)."""
    native_tool_search: bool = False
    """The provider's native tool search is on (``defer_tools`` can take effect)."""


@runtime_checkable
class ProviderProfile(Protocol):
    """One provider's facts for the core (pure; see the module docstring)."""

    @property
    def name(self) -> str:
        """The provider name (the registry rows' ``provider``)."""
        ...

    @property
    def api_key_env(self) -> tuple[str, ...]:
        """Environment variables that may hold this provider's API key (kept out of logs)."""
        ...

    @property
    def call_id_prefix(self) -> str | None:
        """The tool-call id convention ids are re-keyed to on crossing (None: any id)."""
        ...

    @property
    def payload_artefact(self) -> str:
        """The artefact name of a dropped verbatim payload (``provider_block``, ...)."""
        ...

    def check_options(self, options: ProviderOptions, row: ModelInfo | None) -> OptionReport:
        """Check the options at construction.

        Raises:
            ValueError: for a value the provider refuses (named, with what to do instead).
            TypeError: for a value in a form the provider does not take.
        """
        ...

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Whether this provider's wire format can carry the media at ``position`` at all."""
        ...

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """What a part of this provider contributes on another provider.

        A ProviderPart: its neutral content and named drops, or None to drop it whole
        as `payload_artefact`. A ReasoningPart never crosses: the Salvage names it
        in ``drops`` (``(artefact, detail)``).
        """
        ...
