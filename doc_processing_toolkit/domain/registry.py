"""Model registry rows (ModelInfo) and the built-in provider names, as pure data.

A row says what a model is (provider, window, output cap, input types), what it can
do (capability flags) and what it costs (per-million-token prices, service tiers).
The JSON file ``registry/model_information.json`` holds the rows; the adapter in
``adapters/registry/json_file.py`` reads it and detects a model's provider (by row, then
by name prefix). Keys starting with ``_`` are metadata at every level and never resolve
as models.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEPLOYMENTS",
    "FEATURE_GAPS",
    "PROVIDERS",
    "DeploymentInfo",
    "ModelInfo",
    "Pricing",
    "closest_model_names",
    "is_metadata_key",
    "suggested_model_names",
]

PROVIDERS = ("anthropic", "openai", "google", "fireworks")
"""The built-in providers' names (a plug-in adds its own)."""


class Pricing(BaseModel):
    """USD per million tokens. None means unknown (never invented)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float | None = None
    """Uncached input."""
    output_per_mtok: float | None = None
    """Output, reasoning included."""
    cache_read_per_mtok: float | None = None
    """Prompt-cache reads. None: priced as uncached input."""
    cache_write_5m_per_mtok: float | None = None
    """Anthropic 5-minute cache writes (1.25x input when None)."""
    cache_write_1h_per_mtok: float | None = None
    """Anthropic 1-hour cache writes (2x input when None)."""
    long_context_threshold_tokens: int | None = None
    """Input size above which the long-context prices apply, if the model has them."""
    long_context_input_per_mtok: float | None = None
    long_context_output_per_mtok: float | None = None

    @property
    def known(self) -> bool:
        """True when both input and output prices are known."""
        return self.input_per_mtok is not None and self.output_per_mtok is not None


DEPLOYMENTS = ("vertex", "bedrock", "foundry", "azure")
"""The cloud deployments a row may list besides the provider's own API (None)."""

FEATURE_GAPS = ("files_api", "batch_api", "count_tokens", "skills")
"""Features (besides input types and built-in tools) a deployment may lack."""


class DeploymentInfo(BaseModel):
    """One model on one cloud deployment: its id there, its prices, what it lacks."""

    model_config = ConfigDict(extra="ignore", frozen=True)  # ``_source`` and other metadata

    model_id: str
    """The model id the deployment takes (a Bedrock ``anthropic.claude-...-v1:0``, a
    Vertex ``claude-...@date``, an Azure deployment name)."""
    pricing: Pricing = Field(default_factory=Pricing)
    """The deployment's own list prices (None: unknown, never the provider's copied)."""
    batch: Pricing | None = None
    """The deployment's batch prices (None: unknown or no batch API there)."""
    unsupported: tuple[str, ...] = ()
    """What the deployment lacks: input types (``pdf``...), built-in tools
    (``code_execution``...) or features of `FEATURE_GAPS`."""
    notes: str | None = None


class ModelInfo(BaseModel):
    """One model's row. Unknown extra keys are kept (later issues add flags)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    model: str
    """The canonical model name."""
    provider: str
    """One of `PROVIDERS`, or a plug-in's name."""
    context_window_tokens: int | None = None
    max_output_tokens: int | None = None
    input_types: tuple[str, ...] = ("text",)
    """Accepted inputs: text, image, pdf, audio, video, and the Office types the provider
    documents as native input (docx, pptx, xlsx)."""
    aliases: tuple[str, ...] = ()
    """Other names that resolve to this row (dated snapshots, provider ids)."""
    api_model: str | None = None
    """The model id sent on the wire, when it differs from ``model``."""
    pricing: Pricing = Field(default_factory=Pricing)
    service_tiers: dict[str, Pricing] = Field(default_factory=dict)
    """Tier name (priority, flex, ultrafast) -> that tier's prices."""
    batch: Pricing | None = None
    """The prices of the provider's batch API (served tier ``"batch"``); None: unknown, or
    the provider sells no batch processing for this model."""
    cache_write_billing: str = "additive"
    """"additive" (Anthropic: writes on top of input) or "subset" (OpenAI GPT-5.6+)."""
    cache_write_input_multiplier: float | None = None
    """OpenAI-style: the multiple of uncached input a written token costs."""
    cache_min_prompt_tokens: int | None = None
    """Shortest prefix the provider caches (Anthropic); None: unknown."""
    max_request_bytes: int | None = None
    """The largest request body the provider's API takes (bytes); None: unknown."""
    max_inline_bytes: int | None = None
    """The most media bytes one request carries inline (bytes); larger media is uploaded
    through the Files API. None: unknown, or the provider never uploads prompt media."""
    max_upload_bytes: int | None = None
    """The largest one file the provider's Files API takes (bytes); None: unknown."""
    max_pdf_pages: int | None = None
    """The most PDF pages one request may carry; a document over it is refused before
    sending (``DocumentLimitError``) or split by ``Agent.run_document``. None: unknown."""
    pdf_tokens_per_page: int | None = None
    """The input tokens the provider documents for one PDF page (``Agent.estimate``);
    None: not documented (the estimate's rule applies, docs/guide/documents.md)."""
    supports_tools: bool = True
    supports_thinking: bool = False
    supports_adaptive_thinking: bool = False
    thinking_off_type: str | None = None
    """The thinking type that turns thinking off (``disabled``, ``between_tools``).

    None on a thinking row means the model cannot turn thinking off."""
    thinking_off_max_effort: str | None = None
    """The highest effort at which thinking can be turned off; None: no limit."""
    supports_structured_output: bool = False
    """Native schema-constrained output (structured output Path A)."""
    supports_function_calling_and_structured_outputs: bool = True
    supports_strict_tools: bool = False
    strict_tool_budget: bool = False
    """Strict tools count against per-request limits (Anthropic's 20 tools / 24 optional
    properties / 16 unions), so the run loop budgets them; elsewhere every tool is strict."""
    supports_forced_tool_choice: bool = True
    supports_concurrent_built_in_and_custom_tools: bool = True
    enforces_thinking_prefix_check: bool = False
    """Anthropic rows that send ``drop_block`` plus the thinking-binding beta by default."""
    retry_empty_final_turn: bool = False
    """The model sometimes ends a turn with nothing in it (no text, no tool call) after a
    tool round (Gemini); the run loop re-requests such a turn once per run."""
    default_reasoning_effort: str | None = None
    """The effort the provider applies when the request names none."""
    supported_reasoning_values: tuple[str, ...] = ()
    """Effort values the model accepts (empty: unknown, send what the caller gave)."""
    supported_reasoning_modes: tuple[str, ...] = ()
    """OpenAI GPT-5.6+ reasoning modes (``standard`` / ``pro``)."""
    supported_reasoning_values_pro_mode: tuple[str, ...] = ()
    """Effort values allowed in pro mode."""
    built_in_tools: tuple[str, ...] = ()
    """Provider-run tools the row offers (web_search, code_execution, tool_search)."""
    deprecated: bool = False
    """The provider has announced the model's retirement."""
    retirement_date: str | None = None
    """The day (YYYY-MM-DD) the provider retires the model, when announced."""
    replacement: str | None = None
    """The model the provider recommends instead."""
    release_date: str | None = None
    notes: str | None = None
    requests_per_minute: int | None = None
    """The provider's request rate limit for this model, when one applies to every
    account (fleets limit their requests to it); None: it depends on the account's tier."""
    tokens_per_minute: int | None = None
    """The provider's token rate limit (input + output) for this model; None: unknown."""
    deployments: dict[str, DeploymentInfo] = Field(default_factory=dict)
    """Cloud deployment name (`DEPLOYMENTS`) -> the model there."""
    deployment: str | None = None
    """The deployment this row was resolved for (`for_deployment`); None: the provider's
    own API."""

    def for_deployment(self, name: str | None) -> ModelInfo:
        """This row as served by deployment ``name``: its model id, its prices, and what it
        lacks taken out (input types, built-in tools, the Files and batch APIs).

        Raises:
            KeyError: when the row does not list ``name`` (`deployment_names` says which).
        """
        if name is None or name == self.deployment:
            return self
        info = self.deployments[name]
        gaps = set(info.unsupported)
        update: dict[str, Any] = {
            "deployment": name,
            "api_model": info.model_id,
            "pricing": info.pricing,
            "batch": None if "batch_api" in gaps else info.batch,
            "service_tiers": {},
            "input_types": tuple(t for t in self.input_types if t not in gaps),
            "built_in_tools": tuple(t for t in self.built_in_tools if t not in gaps),
        }
        if "files_api" in gaps:
            update["max_upload_bytes"] = None
        return self.model_copy(update=update)

    @property
    def deployment_names(self) -> tuple[str, ...]:
        """Where the model is served: ``"api"`` (the provider's own) and each deployment."""
        return ("api", *sorted(self.deployments))

    def lacks(self, feature: str) -> bool:
        """Whether this row's deployment lacks ``feature`` (one of `FEATURE_GAPS`)."""
        info = self.deployments.get(self.deployment or "")
        return info is not None and feature in info.unsupported

    def lifecycle_warning(self, today: str) -> str | None:
        """The WARNING for a deprecated or retired row on ``today`` (YYYY-MM-DD); None if
        the row is current. The provider decides whether it still serves the model."""
        retired = self.retirement_date is not None and self.retirement_date <= today
        if not (self.deprecated or retired):
            return None
        if retired:
            state = f"retired on {self.retirement_date}"
        elif self.retirement_date is not None:
            state = f"is deprecated and retires on {self.retirement_date}"
        else:
            state = "is deprecated"
        instead = f"; use {self.replacement} instead" if self.replacement else ""
        return f"model {self.model} {state} (its registry row says so){instead}"

    def flag(self, name: str, default: Any = None) -> Any:
        """A capability flag by name, declared or extra."""
        if name in type(self).model_fields:
            return getattr(self, name)
        extra = self.model_extra or {}
        return extra.get(name, default)


def closest_model_names(
    name: str, known: list[str], *, limit: int = 3, cutoff: float = 0.85
) -> list[str]:
    """Registry names within a small edit distance of ``name`` (for "did you mean")."""
    return difflib.get_close_matches(name.strip().lower(), known, n=limit, cutoff=cutoff)


def suggested_model_names(name: str, known: list[str], *, limit: int = 3) -> list[str]:
    """What an unknown model name was likely meant to be: the near spellings, else the
    names most alike (``claude-imaginary-9`` -> ``claude-haiku-5-5``, ...)."""
    return closest_model_names(name, known, limit=limit) or closest_model_names(
        name, known, limit=limit, cutoff=0.5
    )


def is_metadata_key(key: str) -> bool:
    """True for registry metadata keys (``_meta``, ``_comment``...): never a model."""
    return key.startswith("_")
