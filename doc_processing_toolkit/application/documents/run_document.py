"""``Agent.run_document``: a long document split in page chunks, one ordinary run per chunk
(bounded concurrency), then merged.

```
Document (300 pages) ── plan: chunks of max_pdf_pages (or chunk_pages) ──┐
   pages 1-100   ──► run (purpose document_chunk) ──► answer A ─┐         │ every chunk is
   pages 101-200 ──► run (purpose document_chunk) ──► answer B ─┼─ merge  │ cut and checked
   pages 201-300 ──► run (purpose document_chunk) ──► answer C ─┘         │ before the first
                      with a schema: field by field (domain/documents/merge.py), validated
                      without: one reduce run over A, B, C (purpose document_reduce)
```

Each chunk is an ordinary run through the Agent's public seam (``run_turn``): retried by
the one retry layer, costed, seen by hooks. A chunk that still fails is reported as
missing pages (or raised, with ``on_chunk_error="raise"``); a reduce request that still
fails leaves ``output`` None and says why in ``reduce_error`` (or is raised). Whatever is
raised carries the DocumentResult so far on ``document_result``: the chunks' answers and
what they cost are never lost. ``cost`` is the exact sum of every request record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import anyio
from pydantic import BaseModel, ValidationError

from doc_processing_toolkit._redaction import redact_text, scrub_exception_chain
from doc_processing_toolkit.application.documents.planner import DocumentPlanner
from doc_processing_toolkit.application.documents.result import (
    ChunkResult,
    DocumentResult,
    sum_costs,
    sum_usage,
)
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput, TurnHistory
from doc_processing_toolkit.domain.documents.kinds import PDF_MIME
from doc_processing_toolkit.domain.documents.merge import ChunkOutput, merge_chunk_outputs
from doc_processing_toolkit.domain.documents.page_map import PageMap, plan_chunks
from doc_processing_toolkit.domain.documents.pages import describe_pages
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    DocumentError,
    StructuredOutputError,
)
from doc_processing_toolkit.domain.grounding.merge import merge_evidence

__all__ = [
    "CHUNK_ERROR_POLICIES",
    "CHUNK_PURPOSE",
    "REDUCE_PURPOSE",
    "DocumentRunHost",
    "as_document",
    "chunk_plan",
    "run_document",
]

CHUNK_PURPOSE = "document_chunk"
REDUCE_PURPOSE = "document_reduce"
CHUNK_ERROR_POLICIES = ("return", "raise")


class DocumentRunHost(Protocol):
    """What ``run_document`` needs of an Agent: its planner and its run seam."""

    @property
    def document_planner(self) -> DocumentPlanner: ...

    async def run_turn(
        self, run_input: RunInput, history: TurnHistory | None = None
    ) -> tuple[AgentResult, BaseException | None]: ...


def as_document(document: Any) -> DocumentSource:
    """``document`` as a DocumentSource (a path, bytes or URL is wrapped).

    Raises:
        TypeError: not a document, path, bytes or URL.
    """
    if isinstance(document, DocumentSource):
        return document
    return DocumentSource(document)


def chunk_plan(
    planner: DocumentPlanner, document: DocumentSource, chunk_pages: int | None
) -> tuple[bytes | None, tuple[PageMap, ...]]:
    """(the PDF's bytes, its chunks) for ``document``; (None, ()) for a document that is
    not a PDF (it is sent whole, in one run).

    Raises:
        DocumentError: a bad document, page selection or ``chunk_pages``.
    """
    part = planner.read(document)
    if part.mime_type != PDF_MIME or part.data is None:
        return None, ()
    info = planner.pdf_pages_port(document.name).info(part.data, document.name)
    pages = document.selection(info.pages) or tuple(range(1, (info.pages or 0) + 1))
    row = planner.row
    size = chunk_pages
    if size is None:
        size = row.max_pdf_pages if row is not None and row.max_pdf_pages else len(pages)
    return part.data, plan_chunks(document.name, pages, size)


def _chunk_prompt(prompt: str, name: str, chunk: PageMap, total: int, count: int) -> str:
    if count == 1:
        return prompt
    return (
        f"{prompt}\n\n(This is part of {name!r}: its pages {chunk.label} of the {total} "
        f"pages selected, sent as {len(chunk)} page(s); the first page sent is page "
        f"{chunk.first} of the document. Answer from these pages only.)"
    )


def _reduce_prompt(
    prompt: str, name: str, chunks: Sequence[ChunkResult], missing: Sequence[int]
) -> str:
    parts = [
        f"{prompt}\n\nThe document {name!r} was read in {len(chunks)} parts. The answers "
        "for each part follow, in page order. Combine them into one answer to the request "
        "above."
    ]
    if missing:
        parts.append(f"(Pages {describe_pages(missing)} could not be read: say so.)")
    for chunk in chunks:
        parts.append(f"\n### Pages {chunk.page_range}\n{chunk.output}")
    return "\n".join(parts)


async def run_document(
    host: DocumentRunHost,
    document: Any,
    prompt: str,
    *,
    output_schema: type[BaseModel] | None = None,
    chunk_pages: int | None = None,
    concurrency: int = 4,
    on_chunk_error: str = "return",
    evidence: bool = False,
) -> DocumentResult:
    """See ``Agent.run_document`` (the module docstring draws the flow)."""
    if on_chunk_error not in CHUNK_ERROR_POLICIES:
        raise ConfigurationError(
            f'on_chunk_error must be "return" or "raise", got {on_chunk_error!r}'
        )
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigurationError(f"concurrency must be a positive int, got {concurrency!r}")
    doc = as_document(document)
    planner = host.document_planner
    data, chunks = chunk_plan(planner, doc, chunk_pages)
    if data is None:  # not a PDF: one ordinary run over the whole document
        inputs = [
            RunInput(
                prompt,
                files=[doc],
                output_schema=output_schema,
                evidence=evidence,
                purpose=CHUNK_PURPOSE,
            )
        ]
        maps: list[PageMap | None] = [None]
    else:
        total = sum(len(c) for c in chunks)
        pieces = [
            DocumentSource(data, pages=list(c.pages), name=doc.name, mime_type=PDF_MIME)
            for c in chunks
        ]
        for piece in pieces:  # every chunk cut and checked before the first request
            planner.prepare(piece)
        inputs = [
            RunInput(
                _chunk_prompt(prompt, doc.name, chunk, total, len(chunks)),
                files=[piece],
                output_schema=output_schema,
                evidence=evidence,
                purpose=CHUNK_PURPOSE,
            )
            for chunk, piece in zip(chunks, pieces, strict=True)
        ]
        maps = list(chunks)
    results: list[tuple[AgentResult, BaseException | None] | None] = [None] * len(inputs)
    limiter = anyio.CapacityLimiter(concurrency)

    failures: list[tuple[BaseException, AgentResult]] = []

    async def one(index: int, scope: anyio.CancelScope) -> None:
        async with limiter:
            result, error = await host.run_turn(inputs[index])
        results[index] = (result, error)
        if error is not None and on_chunk_error == "raise" and not failures:
            failures.append((error, result))
            scope.cancel()  # the other chunks stop; the first failure is raised below

    async with anyio.create_task_group() as group:
        for index in range(len(inputs)):
            group.start_soon(one, index, group.cancel_scope)
    done: list[ChunkResult] = []
    runs: list[AgentResult] = []
    for page_map, outcome in zip(maps, results, strict=True):
        pages = page_map.pages if page_map is not None else ()
        if outcome is None:  # cancelled after another chunk failed (on_chunk_error="raise")
            done.append(ChunkResult(pages=pages, error="cancelled: another chunk failed"))
            continue
        result, error = outcome
        runs.append(result)
        done.append(
            ChunkResult(
                pages=pages,
                output=None if error is not None else result.output,
                cost=sum_costs(result.request_cost_records),
                request_records=list(result.request_cost_records),
                error=None if error is None else _describe(error),
                evidence=dict(result.evidence) if error is None else {},
            )
        )
    if failures:
        error, partial = failures[0]
        records = [r for c in done for r in c.request_records]
        raise _carrying(
            error,
            partial,
            DocumentResult(
                output=None,
                chunks=tuple(done),
                cost=sum_costs(records),
                usage=sum_usage(runs),
                missing_pages=tuple(p for c in done if not c.ok for p in c.pages),
            ),
        )
    return await _merge(host, doc.name, prompt, output_schema, done, runs, on_chunk_error)


def _describe(error: BaseException) -> str:
    return redact_text(f"{type(error).__name__}: {error}")


def _carrying(
    error: BaseException, partial: AgentResult, document: DocumentResult
) -> BaseException:
    """``error`` as ``run`` raises it (chain redacted, ``partial_result`` the failed run's
    partial result), carrying the DocumentResult so far on ``document_result``."""
    scrub_exception_chain(error)
    try:
        error.partial_result = partial  # type: ignore[attr-defined]
        error.document_result = document  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # pragma: no cover - a slotted foreign exception
        pass
    return error


async def _merge(
    host: DocumentRunHost,
    name: str,
    prompt: str,
    output_schema: type[BaseModel] | None,
    chunks: list[ChunkResult],
    runs: list[AgentResult],
    on_chunk_error: str,
) -> DocumentResult:
    answered = [c for c in chunks if c.ok]
    missing = tuple(p for c in chunks if not c.ok for p in c.pages)
    records = [r for c in chunks for r in c.request_records]
    if output_schema is not None:
        merged = merge_chunk_outputs(
            [ChunkOutput(c.pages, _as_json(c.output, name)) for c in answered]
        )
        output: Any = None
        if answered:
            try:
                output = output_schema.model_validate(merged.output)
            except ValidationError as exc:
                raise StructuredOutputError(
                    f"document {name!r}: the merged answer of {len(answered)} chunk(s) does "
                    f"not validate against {output_schema.__name__}: {exc}"
                ) from exc
        evidence = merge_evidence(
            merged.output, [(_as_json(c.output, name), c.evidence) for c in answered]
        )
        return DocumentResult(
            output=output,
            evidence=evidence,
            unverified_fields=[path for path, e in evidence.items() if not e.verified],
            chunks=tuple(chunks),
            conflicts=merged.conflicts,
            provenance=merged.provenance,
            cost=sum_costs(records),
            usage=sum_usage(runs),
            missing_pages=missing,
        )
    reduce: AgentResult | None = None
    reduce_error: BaseException | None = None
    if len(answered) > 1:
        reduce, reduce_error = await host.run_turn(
            RunInput(_reduce_prompt(prompt, name, answered, missing), purpose=REDUCE_PURPOSE)
        )
        runs.append(reduce)
        records.extend(reduce.request_cost_records)
        output = None if reduce_error is not None else reduce.output
    else:
        output = answered[0].output if answered else None
    document = DocumentResult(
        output=output,
        chunks=tuple(chunks),
        cost=sum_costs(records),
        usage=sum_usage(runs),
        missing_pages=missing,
        reduce=reduce,
        reduce_error=None if reduce_error is None else _describe(reduce_error),
    )
    if reduce_error is not None and on_chunk_error == "raise":
        assert reduce is not None
        raise _carrying(reduce_error, reduce, document)
    return document


def _as_json(output: Any, name: str) -> dict[str, Any]:
    if isinstance(output, BaseModel):
        return output.model_dump(mode="json")
    if isinstance(output, dict):
        return output
    raise DocumentError(
        f"document {name!r}: a chunk answered {type(output).__name__}, not a structured output",
        document=name,
    )
