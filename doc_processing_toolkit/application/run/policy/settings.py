"""RunSettings: everything the run loop reads, derived from an Agent's settings.

`derive_run_settings` is the one place an `AgentSettings` (plus what it
resolved to at construction) becomes the loop's settings; the Agent copies no field and
derives them once (`AgentRunSettings`, at its first run).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.config.resolution import AgentResolution, PrefixObserver
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.run.policy.retry import RetryPolicy
from doc_processing_toolkit.application.run.policy.turn_system import run_system
from doc_processing_toolkit.domain.binding import check_behaviour, resolve_behaviour
from doc_processing_toolkit.domain.documents.page_map import PageMap
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.tools.specs import ToolChoice

__all__ = ["BLOCK_BINDING_ENV", "AgentRunSettings", "RunSettings", "derive_run_settings"]

BLOCK_BINDING_ENV = environment.BLOCK_BINDING_ENV
"""The process-wide block-binding behaviour (below the Agent's setting, above the row)."""


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Everything the loop needs, resolved by the Agent before the run."""

    model: str
    provider: str
    row: ModelInfo | None
    system: str = ""
    max_iterations: int = 10
    max_tokens: int | None = None
    temperature: float | None = None
    thinking: dict[str, Any] | None = None
    tool_choice: ToolChoice = "auto"
    output_schema: type[BaseModel] | None = None
    strict_tools: bool = True
    strict_per_tool_only: bool = False
    tool_result_cap: int = 0
    preview_chars: int = 500
    service_tier: str | None = None
    prompt_caching: dict[str, Any] | None = None
    built_in_tools: dict[str, Any] | None = None
    remote_mcp_servers: tuple[dict[str, Any], ...] = ()
    max_pause_turn_iterations: int = 10
    provider_options: dict[str, Any] = field(default_factory=dict)
    retry_policy: RetryPolicy | None = None
    truncated_result_read_chars: int = 0
    """Read-back allowance per truncated result (0: off; the plain cap marker)."""
    tool_reported_cost: bool = True
    """Account the ``_dpt_spend`` markers (False with DPT_AGENT_TOOL_REPORTED_COST=off)."""
    media_resolutions: tuple[str | None, ...] = ()
    """``run(media_resolution_list=...)`` (this run)."""
    purpose: str = "generation"
    """The purpose of the run's first request (``RunInput.purpose``)."""
    code_execution_file_ids: tuple[str, ...] = ()
    """Uploaded ``tool_files`` for the code-execution tool's configuration (this run)."""
    remove_citations: bool = False
    """Strip citation markers from a text answer (``Agent(remove_citations=True)``)."""
    output_retries: int = 0
    """Re-asks after a structured answer fails validation (``output_retries``)."""
    citations: bool = False
    """``Agent(citations=True)``: document citations on every document, ``citation`` events."""
    cited_documents: bool | frozenset[str] = False
    """This run's documents that ask for citations (`ModelRequest.cited_documents`)."""
    page_maps: Mapping[str, PageMap] = field(default_factory=dict)
    """This run's PDFs by document name: citation pages cross to the original pages."""
    cites_documents: bool = False
    """The provider cites documents given in the request (its profile says so)."""
    estimate_input_tokens: str | bool = "lazy"
    """How the pre-flight input estimate is made (see `input_estimate`)."""
    bound_reasoning: bool = False
    """The provider binds replayed reasoning to its prefix (the binding fields apply)."""
    block_binding: str | None = None
    """The resolved binding behaviour each request carries (see domain/binding.py)."""
    prefix_strip_fallback: bool = False
    """Replayed reasoning of the completed turns is not sent."""
    strict_prefix_binding: bool = False
    """A mid-session tool-surface change fails the run instead of being frozen."""
    prefix_auditor: PrefixObserver | None = None
    """The Agent's shadow prefix audit (None: off)."""
    row_lookup: Callable[[str], ModelInfo | None] | None = None
    """The registry, for pricing a request at the row of the model that served it."""


class AgentRunSettings:
    """An Agent's run settings, derived once per Agent (at its first run, so that
    constructing an Agent costs nothing more).

    A run takes them with `for_run`: its system prompt and output schema replace those
    of the previous run (the same value is returned when both are unchanged), and the
    run's environment switches (`environment.run_switches`, read at the start of each
    run, their documented read point) re-derive the settings when one of them moved.
    """

    __slots__ = ("_current", "_resolution", "_settings", "_switches")

    def __init__(self, settings: AgentSettings, resolution: AgentResolution) -> None:
        self._settings = settings
        self._resolution = resolution
        self._switches: environment.RunSwitches | None = None
        self._current: RunSettings | None = None

    def for_run(self, *, system: str, output_schema: type[BaseModel] | None = None) -> RunSettings:
        """The settings of a run with ``system`` and ``output_schema``."""
        switches = environment.run_switches()
        current = self._current
        if current is None or switches != self._switches:
            self._switches = switches
            current = derive_run_settings(
                self._settings,
                self._resolution,
                system=system,
                output_schema=output_schema,
                switches=switches,
            )
        else:
            system = run_system(system)
            if current.system == system and current.output_schema is output_schema:
                return current
            current = dataclasses.replace(current, system=system, output_schema=output_schema)
        self._current = current
        return current


def derive_run_settings(
    settings: AgentSettings,
    resolution: AgentResolution,
    *,
    system: str,
    output_schema: type[BaseModel] | None = None,
    switches: environment.RunSwitches | None = None,
) -> RunSettings:
    """The loop's settings for one run of an Agent with ``settings``.

    Args:
        system: The run's system prompt (the instructions plus what the tool planner added).
        output_schema: The run's structured-output schema, if any.
        switches: The run's environment switches (None: read now).
    """
    env = switches if switches is not None else environment.run_switches()
    bound = bool(getattr(resolution.profile, "thinking_binding", False))
    return RunSettings(
        bound_reasoning=bound,
        block_binding=resolve_behaviour(
            settings.generation.thinking,
            settings.binding.anthropic_block_binding,
            strict=settings.binding.strict_prefix_binding,
            environment=check_behaviour(env.block_binding, BLOCK_BINDING_ENV),
            row_enforces=bool(resolution.row and resolution.row.enforces_thinking_prefix_check),
        ),
        prefix_strip_fallback=bound and settings.binding.prefix_strip_fallback,
        strict_prefix_binding=settings.binding.strict_prefix_binding,
        prefix_auditor=resolution.prefix_auditor if bound else None,
        row_lookup=resolution.row_lookup,
        model=settings.model,
        provider=resolution.provider,
        row=resolution.row,
        system=run_system(system),
        max_iterations=settings.generation.max_iterations,
        max_tokens=settings.generation.max_tokens,
        temperature=settings.generation.temperature,
        thinking=settings.generation.thinking,
        tool_choice=settings.tools.resolved_tool_choice,
        output_schema=output_schema,
        strict_tools=settings.tools.strict_tools,
        strict_per_tool_only=env.strict_per_tool_only,
        tool_result_cap=resolution.tool_result_cap,
        preview_chars=settings.tool_results.tool_result_preview_chars,
        service_tier=resolution.service_tier,
        prompt_caching=settings.provider.prompt_caching_config,
        built_in_tools=settings.tools.built_in_tools or None,
        remote_mcp_servers=settings.remote_mcp_servers,
        max_pause_turn_iterations=settings.generation.max_pause_turn_iterations,
        provider_options=dict(settings.provider.provider_kwargs),
        truncated_result_read_chars=settings.tool_results.read_back_chars,
        tool_reported_cost=env.tool_reported_cost,
        estimate_input_tokens=settings.generation.estimate_input_tokens,
        remove_citations=settings.media.remove_citations,
        output_retries=settings.structured_output.output_retries,
        citations=settings.media.citations,
        cited_documents=settings.media.citations,
        cites_documents=bool(getattr(resolution.profile, "cites_documents", False)),
    )
