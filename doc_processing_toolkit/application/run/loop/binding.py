"""The run's thinking-binding choices: what each request carries, the one re-send, the report.

The loop hands every request through `prepare_request` (the resolved
``block_binding``, the ``prefix_strip_fallback`` boundary, the run's re-send choice, and
the shadow `PrefixAuditor`) and gives the retry layer
`rebinder`: a prefix-binding 400 (``ProviderError.error_type ==
PREFIX_BINDING_ERROR_TYPE``) is logged at WARNING and re-sent once with
``ModelRequest.rebind`` set, unless the run asked for ``"error"``. From then on every
request of the run carries the same choice (``RunOutcome.prefix_binding_retry``).
`response_facts` annotates the server's ``input_transformations`` with the 1-based
index of the request that reported them; `serving_row` and
`attribute_fallback` price a request at the model(s) that served it. Nothing here
names a provider: the adapter that
binds reasoning maps these fields (the others ignore them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.binding import (
    PREFIX_BINDING_ERROR_TYPE,
    annotate_transformations,
)
from doc_processing_toolkit.domain.costs.ledger import CostRecord, price_request
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse

__all__ = [
    "attribute_fallback",
    "prepare_request",
    "rebinder",
    "request_fields",
    "response_facts",
    "serving_row",
]


def request_fields(settings: RunSettings, outcome: RunOutcome) -> dict[str, Any]:
    """The `ModelRequest` fields of the run's binding choices, as they stand now
    (none where reasoning is not bound): the loop builds each request with them."""
    if not settings.bound_reasoning:
        return {}
    return {
        "block_binding": settings.block_binding,
        "rebind": outcome.prefix_binding_retry,
        "strip_reasoning_before": (
            outcome.new_messages_start if settings.prefix_strip_fallback else 0
        ),
    }


def prepare_request(
    request: ModelRequest, settings: RunSettings, outcome: RunOutcome, log: Any
) -> ModelRequest:
    """``request`` with the run's binding choices (`request_fields`); copied only
    when one moved since it was built (the re-send after a prefix-binding 400), and
    audited (never altered) when asked."""
    if not settings.bound_reasoning:
        return request
    fields = request_fields(settings, outcome)
    for name, value in fields.items():
        if getattr(request, name) != value:
            request = replace(request, **fields)
            break
    if settings.prefix_auditor is not None:
        settings.prefix_auditor.observe(request, log)
    return request


def rebinder(
    settings: RunSettings, outcome: RunOutcome, log: Any
) -> Callable[[ProviderError, ModelRequest], ModelRequest | None]:
    """The retry layer's ``rebind``: the one re-send of a prefix-binding 400."""

    def rebind(exc: ProviderError, request: ModelRequest) -> ModelRequest | None:
        if exc.error_type != PREFIX_BINDING_ERROR_TYPE or not settings.bound_reasoning:
            return None
        if outcome.prefix_binding_retry or request.rebind or request.block_binding == "error":
            return None
        outcome.prefix_binding_retry = True
        log.warning(
            "prefix-binding 400: a replayed thinking block is bound to a conversation prefix "
            "that moved; re-sending once with the stale blocks dropped, and every later "
            "request of this run does the same",
            model=settings.model,
            error=str(exc),
        )
        return replace(request, rebind=True)

    return rebind


def response_facts(response: ModelResponse, request_index: int) -> dict[str, Any]:
    """The response's metadata, ``input_transformations`` annotated with the request index."""
    metadata = response.metadata
    if "input_transformations" not in metadata:
        return metadata
    return {
        **metadata,
        "input_transformations": annotate_transformations(
            metadata["input_transformations"], request_index
        ),
    }


def attribute_fallback(
    record: CostRecord, response: ModelResponse, settings: RunSettings, cache_ttl: str
) -> CostRecord:
    """``record`` re-priced per model when a server-side fallback split the request.

    Each model's share (a declined attempt included) is priced at that model's row and
    listed under ``billed_by_model``; the record's cost is their sum.
    """
    if not response.usage_by_model:
        return record
    parts = [
        price_request(
            usage,
            serving_row(settings, model),
            served_tier=response.served_tier,
            cache_ttl=cache_ttl,
            served_model=model,
        )
        for model, usage in response.usage_by_model
    ]
    billed = [
        {
            "model": part.served_model,
            "input_tokens": part.input_tokens,
            "output_tokens": part.output_tokens,
            "cost": part.cost,
        }
        for part in parts
    ]
    return replace(
        record,
        cost=math.fsum(part.cost for part in parts),
        cost_estimated=record.cost_estimated or any(p.cost_estimated for p in parts),
        price_known=all(part.price_known for part in parts),
        extra={**record.extra, "billed_by_model": billed},
    )


def serving_row(settings: RunSettings, served_model: str | None) -> ModelInfo | None:
    """The registry row a request is priced at: the model that served it (server-side
    fallback), else the requested model's row when the served one is unknown."""
    if not served_model or settings.row_lookup is None:
        return settings.row
    if settings.row is not None and served_model in (
        settings.row.model,
        settings.row.api_model,
        *settings.row.aliases,
    ):
        return settings.row
    return settings.row_lookup(served_model) or settings.row
