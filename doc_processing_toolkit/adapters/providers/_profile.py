"""The shared part of every provider profile (see ``ports/provider_profile.py``).

`BaseProfile` checks what every provider shares (provider keywords against the
documented ones, the service tier against the row, built-in tools, provider-run MCP
servers) by asking its `options`, the vendor's rules
(``adapters/providers/<vendor>/options.py``); a vendor profile subclasses it and sets
its facts. A plug-in provider without a profile of its own gets a `BaseProfile`
with its name: no id convention, media anywhere but in a model turn, nothing salvaged,
file references left as they are, keywords passed through (only those the Agent supplies
itself warn), no built-in tools, no provider-run MCP.
"""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.adapters.providers._options import (
    VendorOptions,
    keyword_warnings,
    validate_service_tier,
)
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.history.rules import reasoning_drop
from doc_processing_toolkit.domain.media import MediaLookup, Position, no_media_in_model_turns
from doc_processing_toolkit.domain.messages import MediaPart, ProviderPart, ReasoningPart
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.provider_profile import OptionReport, ProviderOptions

__all__ = ["BaseProfile"]


@dataclass(frozen=True, slots=True)
class BaseProfile:
    """A provider's facts; the defaults suit a plug-in that declares none."""

    name: str
    api_key_env: tuple[str, ...] = ()
    call_id_prefix: str | None = None
    payload_artefact: str = "provider_part"
    options: VendorOptions | None = None
    """The vendor's option rules; None (a plug-in): keywords pass unchecked."""
    sdk_distribution: str | None = None
    """The provider SDK's distribution name (a session envelope records its version)."""
    code_execution_containers: bool = False
    """Whether a code-execution container id can be reused across runs (sessions ask)."""
    thinking_binding: bool = False
    """Whether replayed reasoning is bound to the request prefix (the binding controls,
    the prefix audit and the frozen session tool surface apply)."""
    cites_documents: bool = False
    """Whether the provider cites documents given in the request (``citations=True``
    warns where it cannot)."""

    def check_options(self, options: ProviderOptions, row: ModelInfo | None) -> OptionReport:
        """Check provider keywords, service tier, built-in tools and provider-run MCP.

        The warnings come in that order: provider keywords, the service tier, built-in
        tools; provider-run MCP servers raise or pass.
        """
        # The by-name table imports every vendor's rules, and a vendor's client imports its
        # profile: read at call time, so that importing a profile imports no vendor.
        from doc_processing_toolkit.adapters.providers.options import PROVIDER_KWARGS

        rules = self.options or VendorOptions(self.name)
        known = None if self.options is None else rules.kwargs
        warnings = keyword_warnings(
            self.name,
            options.provider_kwargs,
            known,
            PROVIDER_KWARGS,
            options.agent_parameters,
        )
        warnings += rules.check_kwargs(options.provider_kwargs)
        tier, tier_warning = validate_service_tier(options.service_tier, row)
        if tier_warning:
            warnings.append(tier_warning)
        names: tuple[str, ...] = ()
        tool_search = False
        if options.built_in_tools:
            warnings += rules.check_built_in_tools(
                options.built_in_tools, row, options.has_custom_tools
            )
            wire = rules.map_built_in_tools(options.built_in_tools, row)
            names, tool_search = wire.names, wire.tool_search
        for server in options.remote_mcp_servers:
            rules.check_allowed_tools(server)
        if options.remote_mcp_servers:
            rules.remote_mcp_servers(list(options.remote_mcp_servers))
        return OptionReport(
            warnings=tuple(warnings),
            service_tier=tier,
            built_in_tool_names=tuple(names),
            native_tool_search=tool_search,
        )

    def accepts_media(self, mime_type: str, position: Position, *, has_bytes: bool) -> bool:
        """Any media in a user turn or a tool result, none in a model turn (what every
        wire format but Gemini's does; a plug-in's is not second-guessed further)."""
        return no_media_in_model_turns(mime_type, position, has_bytes=has_bytes)

    def salvage(self, part: ProviderPart | ReasoningPart) -> Salvage | None:
        """Nothing is salvaged from a payload; a reasoning part is named as dropped."""
        if isinstance(part, ReasoningPart):
            return Salvage(drops=(reasoning_drop(part),))
        return None

    def resolve_file_reference(self, part: MediaPart, lookup: MediaLookup | None) -> MediaPart:
        """A media part held by file reference, made sendable elsewhere when the provider
        can tell how (through ``lookup``, a session's media table); here: as it is."""
        return part
