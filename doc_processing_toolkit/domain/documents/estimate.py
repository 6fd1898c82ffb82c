"""Estimates before sending: the arithmetic of ``Agent.estimate`` (pure, no I/O).

The rule, documented in docs/guide/documents.md:

* a PDF page costs the row's ``pdf_tokens_per_page`` (Gemini documents 258); where the
  provider documents no per-page figure, `ASSUMED_PDF_PAGE_TOKENS` (the low end of
  Anthropic's documented 1,500-3,000 text tokens per page) and the estimate says so;
* text (the prompt, a converted document, the instructions) costs one token per
  `CHARS_PER_TOKEN` characters, rounded up;
* each request is priced with the row's prices through the cost ledger's own rules, so
  a request whose input is over the row's long-context threshold is priced at the
  long-context rates; output tokens are not known before sending and are not priced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from doc_processing_toolkit.domain.costs.estimate import (
    CHARS_PER_TOKEN,
    estimate_tokens_from_chars,
)
from doc_processing_toolkit.domain.costs.pricing import price_request, round_usd
from doc_processing_toolkit.domain.documents.limits import OverLimit
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import Usage

__all__ = [
    "ASSUMED_PDF_PAGE_TOKENS",
    "CHARS_PER_TOKEN",
    "Estimate",
    "RequestEstimate",
    "chunk_request_count",
    "pdf_page_tokens",
    "price_requests",
    "text_tokens",
]

ASSUMED_PDF_PAGE_TOKENS = 1_500
"""Tokens per PDF page when the row documents none (the low end of Anthropic's documented
text range; the page image comes on top and is not counted)."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a run (or ``run_document``) would send, and roughly cost, before sending.

    Attributes:
        input_tokens: The input tokens of every request it would make, summed.
        pages: The PDF pages it would send (after any ``pages=`` selection).
        requests: The requests: 1 for a run that fits, else the chunk requests
            ``Agent.run_document`` makes (plus its reduce request without a schema).
        cost_usd: The input cost in USD at the row's prices (long-context rates where a
            request is over the threshold); None when the row has no price.
        over_limits: The registry limits a single request would exceed (a run would raise
            ``DocumentLimitError``; ``run_document`` splits instead).
        long_context: Whether any request would be priced at the long-context rates.
        assumptions: How figures the registry does not give were estimated (empty when
            every figure came from the row).
        request_tokens: Each request's input tokens, in the order they would be sent.
    """

    input_tokens: int
    pages: int
    requests: int
    cost_usd: float | None
    over_limits: tuple[OverLimit, ...] = ()
    long_context: bool = False
    assumptions: tuple[str, ...] = ()
    request_tokens: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RequestEstimate:
    """One request's estimated input tokens."""

    input_tokens: int


def text_tokens(chars: int) -> int:
    """Tokens of ``chars`` characters of text (ceil(chars / 4))."""
    return estimate_tokens_from_chars(chars)


def pdf_page_tokens(row: ModelInfo | None) -> tuple[int, str | None]:
    """(tokens per PDF page, the assumption made or None) for ``row``."""
    if row is not None and row.pdf_tokens_per_page is not None:
        return row.pdf_tokens_per_page, None
    name = row.model if row is not None else "the model"
    return ASSUMED_PDF_PAGE_TOKENS, (
        f"{name} documents no tokens per PDF page: {ASSUMED_PDF_PAGE_TOKENS:,} per page "
        "assumed (page images not counted)"
    )


def chunk_request_count(pages: int, chunk_pages: int, *, reduce: bool) -> int:
    """The requests ``run_document`` makes for ``pages`` pages in chunks of
    ``chunk_pages``: one per chunk, plus one reduce request when ``reduce`` and there is
    more than one chunk."""
    chunks = max(1, -(-pages // max(1, chunk_pages)))
    return chunks + (1 if reduce and chunks > 1 else 0)


def price_requests(
    requests: Sequence[RequestEstimate], row: ModelInfo | None, *, tier: str | None = None
) -> tuple[float | None, bool]:
    """(the input cost of ``requests`` in USD or None when unpriced, whether any is in
    the long-context tier), priced request by request as the ledger prices them."""
    if row is None or row.pricing.input_per_mtok is None or row.pricing.output_per_mtok is None:
        return None, False
    threshold = row.pricing.long_context_threshold_tokens
    total = 0.0
    long_context = False
    for request in requests:
        record = price_request(Usage(input_tokens=request.input_tokens), row, served_tier=tier)
        if not record.price_known:
            return None, False
        total += record.cost
        long_context = long_context or (threshold is not None and request.input_tokens > threshold)
    return round_usd(total), long_context
