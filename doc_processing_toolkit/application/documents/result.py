"""DocumentResult: what ``Agent.run_document`` produced, chunk by chunk, and what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.domain.costs.pricing import round_usd
from doc_processing_toolkit.domain.documents.merge import Conflict
from doc_processing_toolkit.domain.documents.pages import describe_pages
from doc_processing_toolkit.domain.grounding.evidence import Evidence

__all__ = ["ChunkResult", "DocumentResult", "sum_costs", "sum_usage"]

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
)


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """One chunk of a document: its ORIGINAL pages, its answer, and its requests.

    Attributes:
        pages: The original page numbers the chunk sent, ascending.
        output: The chunk's answer (a model instance with a schema, else text); None when
            the chunk failed.
        cost: The chunk's cost in USD (the sum of its request records).
        request_records: The chunk's ``request_cost_records`` (purpose
            ``"document_chunk"`` for its first request).
        error: Why the chunk failed after the retry layer gave up; None on success.
    """

    pages: tuple[int, ...]
    output: Any = None
    cost: float = 0.0
    request_records: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """``evidence=True``: the chunk's evidence by field path (ORIGINAL pages)."""

    @property
    def page_range(self) -> str:
        """The chunk's original pages as ranges, e.g. ``"101-200"``."""
        return describe_pages(self.pages)

    @property
    def ok(self) -> bool:
        """Whether the chunk answered."""
        return self.error is None


@dataclass(frozen=True, slots=True)
class DocumentResult:
    """The merged answer over a document read in page chunks.

    Attributes:
        output: The merged answer: an instance of ``output_schema`` (merged field by field
            and validated), or the reduce request's text without a schema (a single
            chunk's text when the document fit in one chunk).
        chunks: Every chunk, in page order.
        conflicts: Scalar fields the chunks answered differently (each with every value
            and the ORIGINAL pages it came from; the first in page order is kept).
        provenance: Field path (``"parties"``, ``"parties[2]"``, ``"terms.law"``) -> the
            original pages of the chunks its value came from (structured outputs only).
        cost: The exact sum of the cost of every request record (chunks and reduce).
        usage: Token totals over every request (input, output, reasoning, cached input,
            cache writes).
        missing_pages: The original pages of chunks that failed (their answers are
            missing from ``output``); empty when every chunk answered.
        reduce: The reduce run's result without a schema (None with a schema or a
            single chunk); when the reduce request failed, its partial result (what it
            spent is in ``cost`` and ``request_records``).
        reduce_error: Why the reduce request failed after the retry layer gave up
            (``output`` is then None; every chunk's answer is still in ``chunks``); None
            when it answered or was not needed.
    """

    output: Any
    chunks: tuple[ChunkResult, ...]
    conflicts: tuple[Conflict, ...] = ()
    provenance: dict[str, tuple[int, ...]] = field(default_factory=dict)
    cost: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    missing_pages: tuple[int, ...] = ()
    reduce: AgentResult | None = None
    reduce_error: str | None = None
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """``evidence=True``: the merged answer's evidence by field path (ORIGINAL pages)."""
    unverified_fields: list[str] = field(default_factory=list)
    """``evidence=True``: the paths whose evidence is not verified."""

    @property
    def request_records(self) -> list[dict[str, Any]]:
        """Every request record: the chunks' in page order, then the reduce request's."""
        records = [r for chunk in self.chunks for r in chunk.request_records]
        if self.reduce is not None:
            records.extend(self.reduce.request_cost_records)
        return records

    @property
    def success(self) -> bool:
        """True when every chunk answered and the reduce request (if any) did too."""
        return not self.missing_pages and self.reduce_error is None


def sum_costs(records: list[dict[str, Any]]) -> float:
    """The exact sum of the records' ``cost`` (decimal addition, rounded as results are)."""
    total = sum((Decimal(str(r.get("cost") or 0.0)) for r in records), Decimal(0))
    return round_usd(float(total))


def sum_usage(results: list[AgentResult]) -> dict[str, int]:
    """Token totals over ``results``."""
    return {key: sum(int(getattr(r, key)) for r in results) for key in _USAGE_KEYS}
