"""Pricing one API request: `price_request` turns a `Usage` and a registry row
into a `CostRecord`.

The rules, on the toolkit's one usage convention (see `Usage`):

* cache READS are a subset of input, priced at ``cache_read_per_mtok`` (the input rate
  when the row has none);
* cache WRITES depend on the row's ``cache_write_billing``: ``"additive"`` (Anthropic)
  bills them ON TOP of input at ``cache_write_5m_per_mtok`` / ``cache_write_1h_per_mtok``
  (1.25x / 2x input when absent); ``"subset"`` (OpenAI) treats them as a subset of input
  re-priced at ``cache_write_input_multiplier`` x input;
* reasoning tokens are a subset of output and are never added;
* billing follows the SERVED tier: ``row.service_tiers[served_tier]`` when that tier has
  a row, standard pricing otherwise; a request a provider batch API served
  (``served_tier="batch"``) is billed at ``row.batch``, and at the standard prices with
  ``cost_estimated=True`` when the row has no batch prices;
* above ``long_context_threshold_tokens`` the long-context input/output rates apply and
  cache rates scale with the input rate - which is why a run is costed as the SUM of its
  records, never as one costing of its summed tokens;
* unknown prices (no row, or input/output price missing) cost 0.0 with
  ``cost_estimated=True``; the caller logs the one WARNING (see `price_is_unknown`).

Arithmetic is done in `Decimal` and rounded to float once per record.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from doc_processing_toolkit.domain.registry import ModelInfo, Pricing
from doc_processing_toolkit.domain.requests import Usage

__all__ = [
    "BATCH_TIER",
    "STANDARD_TIER",
    "CostRecord",
    "canonical_tier",
    "price_is_unknown",
    "price_request",
    "pricing_snapshot",
    "resolve_pricing",
    "round_usd",
]

STANDARD_TIER = "standard"
"""The tier name used for standard (no premium row) pricing."""
BATCH_TIER = "batch"
"""The served tier of a request a provider's batch API ran (priced at ``row.batch``)."""

_MTOK = Decimal(1_000_000)
_DEFAULT_WRITE_5M = Decimal("1.25")
_DEFAULT_WRITE_1H = Decimal(2)
_TIER_ALIASES = {"default": STANDARD_TIER, "standard_only": STANDARD_TIER}


def canonical_tier(tier: str | None) -> str | None:
    """Normalise a tier name: lower-cased, ``"default"`` / ``"standard_only"`` -> ``"standard"``."""
    if tier is None:
        return None
    name = tier.strip().lower()
    if not name:
        return None
    return _TIER_ALIASES.get(name, name)


def resolve_pricing(row: ModelInfo | None, served_tier: str | None = None) -> Pricing | None:
    """The price row a request served at ``served_tier`` is billed at, or None when unknown.

    The served tier's own row when the model has one (``row.batch`` for
    `BATCH_TIER`), the standard row otherwise. None when there is no registry row or
    the chosen row lacks an input or output price.
    """
    if row is None:
        return None
    tier = canonical_tier(served_tier)
    if tier == BATCH_TIER and row.batch is not None and row.batch.known:
        return row.batch
    pricing = row.service_tiers.get(tier, row.pricing) if tier else row.pricing
    return pricing if pricing.known else None


def price_is_unknown(row: ModelInfo | None, served_tier: str | None = None) -> bool:
    """True when a request on ``row`` served at ``served_tier`` cannot be priced."""
    return resolve_pricing(row, served_tier) is None


def pricing_snapshot(row: ModelInfo | None, served_tier: str | None = None) -> dict[str, float]:
    """The known rates (USD per million tokens) a request would be billed at, for reports."""
    pricing = resolve_pricing(row, served_tier)
    if pricing is None:
        return {}
    data = pricing.model_dump()
    return {key: float(value) for key, value in data.items() if value is not None}


@functools.lru_cache(maxsize=1024)
def _d(value: float) -> Decimal:
    # A handful of registry rates, converted on every priced request: cached (Decimal is
    # immutable, so sharing one is safe).
    return Decimal(str(value))


@dataclass(frozen=True, slots=True)
class _Rates:
    input: Decimal
    output: Decimal
    cache_read: Decimal
    write_5m: Decimal
    write_1h: Decimal


def _rates(pricing: Pricing, prompt_tokens: int) -> _Rates:
    threshold = pricing.long_context_threshold_tokens
    return _rates_of(pricing, threshold is not None and prompt_tokens > threshold)


@functools.lru_cache(maxsize=1024)
def _rates_of(pricing: Pricing, long_context: bool) -> _Rates:
    # A pure function of a frozen row and one flag, asked on every priced request: cached
    # (the same few rows price every request of a run).
    assert pricing.input_per_mtok is not None and pricing.output_per_mtok is not None
    base_in = _d(pricing.input_per_mtok)
    in_rate, out_rate, scale = base_in, _d(pricing.output_per_mtok), Decimal(1)
    if long_context:
        if pricing.long_context_input_per_mtok is not None:
            in_rate = _d(pricing.long_context_input_per_mtok)
            if base_in:
                scale = in_rate / base_in
        if pricing.long_context_output_per_mtok is not None:
            out_rate = _d(pricing.long_context_output_per_mtok)

    def explicit(value: float | None, default_multiple: Decimal) -> Decimal:
        return in_rate * default_multiple if value is None else _d(value) * scale

    return _Rates(
        input=in_rate,
        output=out_rate,
        cache_read=explicit(pricing.cache_read_per_mtok, Decimal(1)),
        write_5m=explicit(pricing.cache_write_5m_per_mtok, _DEFAULT_WRITE_5M),
        write_1h=explicit(pricing.cache_write_1h_per_mtok, _DEFAULT_WRITE_1H),
    )


def _token_cost(usage: Usage, row: ModelInfo, pricing: Pricing, cache_ttl: str) -> Decimal:
    additive = row.cache_write_billing != "subset"
    writes = max(usage.cache_write_tokens, 0)
    cached = max(usage.cached_input_tokens, 0)
    prompt = usage.input_tokens + (writes if additive else 0)
    rates = _rates(pricing, prompt)
    output = Decimal(max(usage.output_tokens, 0)) * rates.output
    if additive:
        uncached = max(usage.input_tokens - cached, 0)
        one_hour = min(max(usage.cache_write_1h_tokens, 0), writes)
        if one_hour == 0 and cache_ttl == "1h":
            one_hour = writes  # no TTL breakdown reported: every write used the asked TTL
        write_cost = one_hour * rates.write_1h + (writes - one_hour) * rates.write_5m
    else:
        multiplier = row.cache_write_input_multiplier
        write_rate = rates.input * (Decimal(1) if multiplier is None else _d(multiplier))
        uncached = max(usage.input_tokens - cached - writes, 0)
        write_cost = writes * write_rate
    total = uncached * rates.input + cached * rates.cache_read + write_cost + output
    return total / _MTOK


@dataclass(frozen=True, slots=True)
class CostRecord:
    """The cost of one API request (one entry of ``AgentResult.request_cost_records``)."""

    input_tokens: int = 0
    """All prompt tokens, cache reads included."""
    output_tokens: int = 0
    """All generated tokens, reasoning included."""
    cached_input_tokens: int = 0
    """Cache reads (a subset of input)."""
    cache_write_tokens: int = 0
    """Cache writes (on top of input or a subset, per the row's billing style)."""
    cache_write_1h_tokens: int = 0
    """The 1-hour-TTL share of the writes."""
    reasoning_tokens: int = 0
    """The reasoning share of output (never added)."""
    served_model: str | None = None
    """The model that ran the request."""
    requested_tier: str | None = None
    """The tier the request asked for (None: none asked)."""
    served_tier: str | None = None
    """The tier that served it; billing follows this one."""
    cost: float = 0.0
    """USD."""
    cost_estimated: bool = False
    """True when the price was unknown or the token counts were estimated."""
    price_known: bool = True
    """False when the row had no price (cost is then 0.0)."""
    purpose: str | None = None
    """Why the request was sent (the request_start vocabulary)."""
    request_index: int | None = None
    """1-based, monotonic across the run."""
    iteration: int | None = None
    """The tool-loop iteration the request belonged to."""
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Further keys carried verbatim (served_tier_source, synthesised_from_run_totals, ...)."""

    def to_dict(self) -> dict[str, Any]:
        """The documented ``request_cost_records`` entry (extras merged in last)."""
        data: dict[str, Any] = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cache_write_1h_tokens": self.cache_write_1h_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "served_model": self.served_model,
            "requested_tier": self.requested_tier,
            "served_tier": self.served_tier,
            "cost": self.cost,
            "cost_estimated": self.cost_estimated,
            "purpose": self.purpose,
            "request_index": self.request_index,
            "iteration": self.iteration,
        }
        if not self.price_known:
            data["price_known"] = False
        data.update(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CostRecord:
        """Rebuild a record from `to_dict` output (unknown keys go to ``extra``)."""
        names = set(cls.__dataclass_fields__) - {"extra"}
        known = {key: value for key, value in data.items() if key in names}
        extra = {key: value for key, value in data.items() if key not in names}
        return cls(**known, extra=extra)


def price_request(
    usage: Usage,
    row: ModelInfo | None,
    *,
    requested_tier: str | None = None,
    served_tier: str | None = None,
    cache_ttl: str = "5m",
    served_model: str | None = None,
    purpose: str | None = None,
    request_index: int | None = None,
    iteration: int | None = None,
    estimated: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> CostRecord:
    """Price one request (see the module docstring for the rules).

    Args:
        usage: The request's token counts.
        row: The registry row of the model that SERVED the request (None: unknown model).
        requested_tier: The tier asked for, kept on the record.
        served_tier: The tier that ran the request; selects the price row.
        cache_ttl: The TTL the request asked for ("5m" or "1h"); used for the writes only
            when the usage carries no 1-hour share.
        served_model: Recorded model name (defaults to ``row.model``).
        purpose: Why the request was sent.
        request_index: 1-based request number in the run.
        iteration: Tool-loop iteration number.
        estimated: The token counts are estimates (sets ``cost_estimated``).
        extra: Further keys carried on the record's dict.
    """
    pricing = resolve_pricing(row, served_tier)
    if row is None or pricing is None:
        cost, known = Decimal(0), False
    else:
        cost, known = _token_cost(usage, row, pricing, cache_ttl), True
    placed = {"deployment": row.deployment} if row is not None and row.deployment else {}
    batch_unpriced = (
        canonical_tier(served_tier) == BATCH_TIER
        and row is not None
        and known
        and pricing is not row.batch
    )
    return CostRecord(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cache_write_1h_tokens=usage.cache_write_1h_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        served_model=served_model if served_model is not None else (row.model if row else None),
        requested_tier=requested_tier,
        served_tier=served_tier,
        cost=float(cost),
        cost_estimated=estimated or not known or batch_unpriced,
        price_known=known,
        purpose=purpose,
        request_index=request_index,
        iteration=iteration,
        extra={**placed, **(extra or {})},  # a cloud deployment's record names it
    )


USD_DIGITS = 9
"""Costs on a result are rounded to the nano-dollar (1e-9 USD): exact for every price the
registry holds, and free of float noise such as ``9.999999999999999e-05``."""


def round_usd(amount: float) -> float:
    """``amount`` rounded to the nano-dollar (see `USD_DIGITS`)."""
    return round(float(amount), USD_DIGITS) + 0.0
