"""RunSettings: everything the run loop reads, derived from an Agent's settings.

`derive_run_settings` is the one place an `AgentSettings` (plus what it
resolved to at construction) becomes the loop's settings; the Agent copies no field.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.application.config.resolution import AgentResolution
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.run.prefix_audit import PrefixAuditor
from doc_processing_toolkit.application.run.retry import RetryPolicy
from doc_processing_toolkit.application.run.turn_system import run_system
from doc_processing_toolkit.application.tools.accounting import tool_reported_cost_enabled
from doc_processing_toolkit.domain.binding import check_behaviour, resolve_behaviour
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.tools.specs import ToolChoice

__all__ = ["BLOCK_BINDING_ENV", "RunSettings", "RunSettingsCache", "derive_run_settings"]

BLOCK_BINDING_ENV = "DPT_ANTHROPIC_BLOCK_BINDING"
"""The process-wide block-binding behaviour (below the Agent's setting, above the row)."""
STRICT_BUDGET_ENV = "DPT_ANTHROPIC_STRICT_BUDGET"
"""``off``: Anthropic's strict tool budget applies per tool only."""


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
    code_execution_file_ids: tuple[str, ...] = ()
    """Uploaded ``tool_files`` for the code-execution tool's configuration (this run)."""
    remove_citations: bool = False
    """Strip citation markers from a text answer (``Agent(remove_citations=True)``)."""
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
    prefix_auditor: PrefixAuditor | None = None
    """The Agent's shadow prefix audit (None: off)."""
    row_lookup: Callable[[str], ModelInfo | None] | None = None
    """The registry, for pricing a request at the row of the model that served it."""


class RunSettingsCache:
    """`derive_run_settings` remembered per Agent: a run whose inputs are those of
    the previous run (the same frozen settings and resolution, system prompt, schema and
    environment switches) reuses its `RunSettings` instead of building ~40 fields
    again. One entry: an Agent's runs nearly always share them."""

    __slots__ = ("_key", "_value")

    def __init__(self) -> None:
        self._key: tuple[Any, ...] | None = None
        self._value: RunSettings | None = None

    def get(
        self,
        settings: AgentSettings,
        resolution: AgentResolution,
        *,
        system: str,
        output_schema: type[BaseModel] | None = None,
    ) -> RunSettings:
        objects = (settings, resolution, output_schema)
        switches = (
            run_system(system),
            os.environ.get(BLOCK_BINDING_ENV),
            os.environ.get(STRICT_BUDGET_ENV),
            tool_reported_cost_enabled(),
        )
        value = self._value
        key = self._key
        if (
            value is None
            or key is None
            or key[0][0] is not settings
            or key[0][1] is not resolution
            or key[0][2] is not output_schema
            or key[1] != switches
        ):
            value = derive_run_settings(
                settings, resolution, system=system, output_schema=output_schema
            )
            self._key, self._value = (objects, switches), value
        return value


def derive_run_settings(
    settings: AgentSettings,
    resolution: AgentResolution,
    *,
    system: str,
    output_schema: type[BaseModel] | None = None,
) -> RunSettings:
    """The loop's settings for one run of an Agent with ``settings``.

    Args:
        system: The run's system prompt (the instructions plus what the tool planner added).
        output_schema: The run's structured-output schema, if any.
    """
    bound = bool(getattr(resolution.profile, "thinking_binding", False))
    return RunSettings(
        bound_reasoning=bound,
        block_binding=resolve_behaviour(
            settings.thinking,
            settings.anthropic_block_binding,
            strict=settings.strict_prefix_binding,
            environment=check_behaviour(
                os.environ.get(BLOCK_BINDING_ENV, "").strip() or None, BLOCK_BINDING_ENV
            ),
            row_enforces=bool(resolution.row and resolution.row.enforces_thinking_prefix_check),
        ),
        prefix_strip_fallback=bound and settings.prefix_strip_fallback,
        strict_prefix_binding=settings.strict_prefix_binding,
        prefix_auditor=resolution.prefix_auditor if bound else None,
        row_lookup=resolution.row_lookup,
        model=settings.model,
        provider=resolution.provider,
        row=resolution.row,
        system=run_system(system),
        max_iterations=settings.max_iterations,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        thinking=settings.thinking,
        tool_choice=settings.resolved_tool_choice,
        output_schema=output_schema,
        strict_tools=settings.strict_tools,
        strict_per_tool_only=os.environ.get(STRICT_BUDGET_ENV, "").lower() == "off",
        tool_result_cap=resolution.tool_result_cap,
        preview_chars=settings.tool_result_preview_chars,
        service_tier=resolution.service_tier,
        prompt_caching=settings.prompt_caching_config,
        built_in_tools=settings.built_in_tools or None,
        remote_mcp_servers=settings.remote_mcp_servers,
        max_pause_turn_iterations=settings.max_pause_turn_iterations,
        provider_options=dict(settings.provider_kwargs),
        truncated_result_read_chars=settings.read_back_chars,
        tool_reported_cost=tool_reported_cost_enabled(),
        estimate_input_tokens=settings.estimate_input_tokens,
        remove_citations=settings.remove_citations,
    )
