"""The run's cost ledger: one `CostRecord` per API request, summed.

A run's token cost is the SUM of its per-request records, each priced on its own
(served model, served tier, long-context threshold), never one costing of the summed
tokens. Failed-and-retried attempts are recorded beside the records, in a
`RetryAccumulator`, and are part of the run's cost and token totals.

This module is the public face of the pricing and retry modules: it re-exports
`price_request`, `CostRecord`, `RetryAttemptCost` and
`RetryAccumulator`, and adds the token-source vocabulary and the tier summary.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from doc_processing_toolkit.domain.costs.pricing import (
    STANDARD_TIER,
    CostRecord,
    canonical_tier,
    price_is_unknown,
    price_request,
    pricing_snapshot,
    resolve_pricing,
)
from doc_processing_toolkit.domain.costs.retry import (
    NON_BILLED_TOKEN_SOURCES,
    RetryAccumulator,
    RetryAttemptCost,
    RetrySummary,
    attach_retry_summary,
    summarize_retries,
)
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import Usage

__all__ = [
    "NON_BILLED_TOKEN_SOURCES",
    "SERVICE_TIER_MIXED",
    "SERVICE_TIER_UNVERIFIABLE",
    "STANDARD_TIER",
    "CostRecord",
    "Ledger",
    "RetryAccumulator",
    "RetryAttemptCost",
    "RetrySummary",
    "add_model_tokens",
    "attach_retry_summary",
    "canonical_tier",
    "normalize_token_source",
    "price_attempt",
    "price_is_unknown",
    "price_request",
    "pricing_snapshot",
    "resolve_pricing",
    "summarize_retries",
    "summarize_served_tiers",
    "tier_was_downgraded",
]

SERVICE_TIER_MIXED = "mixed"
"""``service_tier_served`` when the tier-requesting records were served at different tiers."""

SERVICE_TIER_UNVERIFIABLE = "unverifiable"
"""A served tier the toolkit could not establish (billed at standard)."""

_TOKEN_SOURCE_ALIASES = {"api_metadata": "api_response"}


def normalize_token_source(token_source: str | None) -> str | None:
    """Map a token_source value onto the canonical vocabulary (F12).

    ``"api_metadata"`` becomes ``"api_response"``; every other value, None included, is
    returned unchanged.
    """
    if token_source is None:
        return None
    return _TOKEN_SOURCE_ALIASES.get(token_source, token_source)


def _get(record: Mapping[str, Any] | CostRecord, key: str) -> Any:
    if isinstance(record, CostRecord):
        return getattr(record, key)
    return record.get(key)


def _served_or_unverifiable(record: Mapping[str, Any] | CostRecord) -> str:
    served = canonical_tier(_get(record, "served_tier"))
    return served if served is not None else SERVICE_TIER_UNVERIFIABLE


def tier_was_downgraded(record: Mapping[str, Any] | CostRecord) -> bool:
    """True when a request asked for a tier and was served at another, known one.

    A request asking ``"auto"`` never counts, and neither does one whose served tier is
    unknown (``None`` / ``"unverifiable"``): nothing says it was refused.
    """
    requested = canonical_tier(_get(record, "requested_tier"))
    served = canonical_tier(_get(record, "served_tier"))
    if requested in (None, "auto") or served in (None, SERVICE_TIER_UNVERIFIABLE):
        return False
    return requested != served


def summarize_served_tiers(
    request_cost_records: Iterable[Mapping[str, Any] | CostRecord],
) -> tuple[str | None, int]:
    """Aggregate per-request served tiers into one run-level answer (C7).

    Returns ``(service_tier_served, priority_request_count)``. Only records that asked
    for a tier take part in the first: it is their common served tier (a record with no
    served tier counts as ``"unverifiable"``), `SERVICE_TIER_MIXED` when they
    disagree, or None when no record asked for a tier. The count covers every record
    actually served at ``"priority"``.
    """
    served_tiers: set[str] = set()
    priority = 0
    for record in request_cost_records:
        if canonical_tier(_get(record, "served_tier")) == "priority":
            priority += 1
        if canonical_tier(_get(record, "requested_tier")) is not None:
            served_tiers.add(_served_or_unverifiable(record))
    if not served_tiers:
        return None, priority
    if len(served_tiers) > 1:
        return SERVICE_TIER_MIXED, priority
    return served_tiers.pop(), priority


def price_attempt(
    usage: Usage,
    row: ModelInfo | None,
    *,
    attempt_number: int,
    token_source: str,
    error: str | None = None,
    duration_ms: int = 0,
    served_tier: str | None = None,
    cache_ttl: str = "5m",
    estimated: bool = False,
) -> RetryAttemptCost:
    """Price one failed attempt as a `RetryAttemptCost`.

    Attempts nothing was billed for (``"rejected_before_stream"``, ``"no_charge"``) cost
    0.0 and carry no tokens, whatever ``usage`` says.
    """
    if token_source in NON_BILLED_TOKEN_SOURCES:
        usage = Usage()
    record = price_request(
        usage, row, served_tier=served_tier, cache_ttl=cache_ttl, estimated=estimated
    )
    return RetryAttemptCost(
        attempt_number=attempt_number,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        cost=record.cost,
        token_source=token_source,
        error=error,
        duration_ms=duration_ms,
        cost_estimated=record.cost_estimated and token_source not in NON_BILLED_TOKEN_SOURCES,
    )


def add_model_tokens(
    totals: dict[str, dict[str, int]], model: str | None, input_tokens: int, output_tokens: int
) -> None:
    """Add one request's (or attempt's) tokens to ``totals`` under ``model`` (the shape of
    ``token_totals_by_model``); a request with no model name is left out."""
    if model is None:
        return
    entry = totals.setdefault(model, {"input_tokens": 0, "output_tokens": 0})
    entry["input_tokens"] += input_tokens
    entry["output_tokens"] += output_tokens


@dataclass(slots=True)
class Ledger:
    """Mutable accumulator of one run's request records and retried attempts."""

    records: list[CostRecord] = field(default_factory=list)
    """One record per API request, in order."""
    retries: RetryAccumulator = field(default_factory=RetryAccumulator)
    """Failed-and-retried attempts."""
    _retry_models: list[str | None] = field(default_factory=list)

    def record(self, cost_record: CostRecord) -> CostRecord:
        """Append a record; a missing ``request_index`` gets the next 1-based number."""
        if cost_record.request_index is None:
            cost_record = replace(cost_record, request_index=len(self.records) + 1)
        self.records.append(cost_record)
        return cost_record

    def record_retry(self, attempt: RetryAttemptCost, *, model: str | None = None) -> None:
        """Append a failed attempt; ``model`` attributes its tokens in token_totals_by_model."""
        self.retries.add_attempt(attempt)
        self._retry_models.append(model)

    @property
    def request_cost(self) -> float:
        """The sum of the request records' costs (retries excluded)."""
        return math.fsum(record.cost for record in self.records)

    @property
    def retry_summary(self) -> RetrySummary:
        """retry_count / retry_cost / retry_input_tokens / retry_output_tokens."""
        return summarize_retries(self.retries)

    @property
    def total_cost(self) -> float:
        """The run's token cost: the sum of every record's and every retried attempt's
        cost (equal to `request_cost` when nothing was retried)."""
        costs = [record.cost for record in self.records]
        if self.retries.attempts:
            costs.extend([attempt.cost for attempt in self.retries.attempts])
        return math.fsum(costs)

    def _sum(self, name: str) -> int:
        return sum(int(getattr(record, name)) for record in self.records)

    @property
    def input_tokens(self) -> int:
        """All input tokens, billed retried attempts included."""
        return self._sum("input_tokens") + self.retries.total_input_tokens

    @property
    def output_tokens(self) -> int:
        """All output tokens, billed retried attempts included."""
        return self._sum("output_tokens") + self.retries.total_output_tokens

    @property
    def cached_input_tokens(self) -> int:
        """Cache reads (a subset of `input_tokens`)."""
        return self._sum("cached_input_tokens") + self.retries.total_cached_input_tokens

    @property
    def cache_write_tokens(self) -> int:
        """Cache writes of the request records."""
        return self._sum("cache_write_tokens")

    @property
    def reasoning_tokens(self) -> int:
        """Reasoning tokens (a subset of `output_tokens`)."""
        return self._sum("reasoning_tokens") + self.retries.total_reasoning_tokens

    @property
    def token_totals_by_model(self) -> dict[str, dict[str, int]]:
        """Billed input/output tokens per model that ran them (records and attributed
        retries); models never named are left out."""
        totals: dict[str, dict[str, int]] = {}
        for record in self.records:
            billed = record.extra.get("billed_by_model")  # a server-side fallback's split
            if not isinstance(billed, list):
                add_model_tokens(
                    totals, record.served_model, record.input_tokens, record.output_tokens
                )
                continue
            for part in billed:
                add_model_tokens(
                    totals, part.get("model"), part["input_tokens"], part["output_tokens"]
                )
        for attempt, model in zip(self.retries.attempts, self._retry_models, strict=True):
            if attempt.billed:
                add_model_tokens(totals, model, attempt.input_tokens, attempt.output_tokens)
        return totals

    @property
    def tier_downgraded(self) -> bool:
        """True when any request was served at a tier other than the one it asked for."""
        for record in self.records:
            if record.requested_tier is not None and tier_was_downgraded(record):
                return True
        return False

    @property
    def cost_estimated(self) -> bool:
        """True when any record or retried attempt rests on an estimate or unknown price."""
        for record in self.records:
            if record.cost_estimated:
                return True
        return bool(self.retries.attempts) and self.retries.cost_estimated

    @property
    def unknown_price_models(self) -> tuple[str, ...]:
        """Served models whose price was unknown, each once, in first-seen order."""
        seen: dict[str, None] = {}
        for record in self.records:
            if not record.price_known:
                seen.setdefault(record.served_model or "<unknown>", None)
        return tuple(seen)

    @property
    def service_tier_served(self) -> str | None:
        """See `summarize_served_tiers`."""
        return summarize_served_tiers(self.records)[0]

    @property
    def priority_request_count(self) -> int:
        """Requests actually served at the "priority" tier."""
        return summarize_served_tiers(self.records)[1]

    def record_dicts(self) -> list[dict[str, Any]]:
        """``request_cost_records`` as plain dicts."""
        return [record.to_dict() for record in self.records]
