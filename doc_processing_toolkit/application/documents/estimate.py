"""``Agent.estimate``: pages, tokens, requests and cost before sending (no network call).

The rule (docs/guide/documents.md, "Estimates"): a PDF page costs the row's
``pdf_tokens_per_page`` (or the stated assumption of `domain/documents/estimate.py`) on a
model that takes PDFs, and its text layer's length on one that does not (it would be
converted); other text costs its length (4 characters a token), an image the run loop's
local estimate. A single PDF over the row's page limit is counted as ``run_document``
would send it: the same chunk plan, one request per chunk (plus the reduce request
without a schema). Each request is priced at the row's prices, long-context rates
included; output is not priced (it is not known before sending).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from doc_processing_toolkit.application.documents.planner import DocumentPlanner
from doc_processing_toolkit.application.documents.run_document import as_document, chunk_plan
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.media.inputs import media_part
from doc_processing_toolkit.application.media.limits import prompt_file_limit
from doc_processing_toolkit.application.run.loop.schemas import output_json_schema
from doc_processing_toolkit.application.run.policy.input_estimate import IMAGE_TOKENS
from doc_processing_toolkit.domain.documents.estimate import (
    Estimate,
    RequestEstimate,
    pdf_page_tokens,
    price_requests,
    text_tokens,
)
from doc_processing_toolkit.domain.documents.kinds import PDF_MIME
from doc_processing_toolkit.domain.documents.limits import OverLimit, find_over_limits
from doc_processing_toolkit.domain.errors import InvalidArgumentTypeError
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.messages import MediaPart

__all__ = ["estimate_run"]


@dataclass(slots=True)
class _Tally:
    tokens: int = 0
    pages: int = 0
    over: list[OverLimit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    chunked: tuple[DocumentSource, int] | None = None
    """The one PDF over the page limit and its tokens per page (run_document's plan)."""


def _note(tally: _Tally, note: str | None) -> None:
    if note is not None and note not in tally.notes:
        tally.notes.append(note)


def _pdf(planner: DocumentPlanner, tally: _Tally, doc: DocumentSource, part: MediaPart) -> None:
    assert part.data is not None
    port = planner.pdf_pages_port(doc.name)
    info = port.info(part.data, doc.name)
    pages = doc.selection(info.pages) or tuple(range(1, (info.pages or 0) + 1))
    row = planner.row
    if row is None or accepts_input_type(row.input_types, PDF_MIME):
        per_page, note = pdf_page_tokens(row)
        _note(tally, note)
        tokens = per_page * len(pages)
    else:  # the model reads no PDF: its text layer would be sent (on_unsupported_part)
        texts = port.page_texts(part.data, doc.name)
        tokens = text_tokens(sum(len(texts[p - 1]) for p in pages))
        per_page = max(1, tokens // max(1, len(pages)))
        _note(tally, f"{doc.name}: {row.model} takes no PDF; its text layer counted")
    found = find_over_limits(document=doc.name, pages=len(pages), size=None, row=row)
    tally.over.extend(found)
    if found and tally.chunked is None:
        tally.chunked = (doc, per_page)
    tally.tokens += tokens
    tally.pages += len(pages)


def _file(planner: DocumentPlanner, tally: _Tally, value: Any, index: int) -> None:
    if isinstance(value, DocumentSource):
        doc = value
        part = planner.read(doc)
    else:
        part = media_part(value, limit=prompt_file_limit(planner.row, planner.provider))
        doc = DocumentSource(
            part.data or b"", name=part.filename or f"files[{index}]", mime_type=part.mime_type
        )
    if part.data is None:  # a URL: its size is unknown here
        tally.tokens += IMAGE_TOKENS
        _note(tally, f"{doc.name}: a URL, not read; {IMAGE_TOKENS:,} tokens assumed")
    elif part.mime_type == PDF_MIME:
        _pdf(planner, tally, doc, part)
    elif part.mime_type.startswith("image/"):
        tally.tokens += IMAGE_TOKENS
        _note(tally, f"an image is counted as {IMAGE_TOKENS:,} tokens")
    else:
        tally.tokens += text_tokens(len(part.data))
        _note(tally, f"{doc.name}: counted by its size (4 bytes a token)")


def estimate_run(
    planner: DocumentPlanner,
    prompt: str,
    *,
    files: Sequence[Any] | None,
    output_schema: type[BaseModel] | None,
    instructions: str,
    service_tier: str | None,
) -> Estimate:
    """The `Estimate` of ``run(prompt, files=files, output_schema=output_schema)``, or of
    ``run_document`` for a single PDF over the page limit (see the module docstring).

    Raises:
        TypeError: ``files`` is not a list.
        DocumentError: a bad document or page selection.
    """
    if files is not None and (
        isinstance(files, str | bytes | dict) or not isinstance(files, Sequence)
    ):
        raise InvalidArgumentTypeError(f"files must be a list, got {type(files).__name__}")
    tally = _Tally()
    for index, value in enumerate(files or ()):
        _file(planner, tally, value, index)
    fixed = text_tokens(len(prompt) + len(instructions))
    if output_schema is not None:
        fixed += text_tokens(len(json.dumps(output_json_schema(output_schema))))
    requests = [RequestEstimate(fixed + tally.tokens)]
    if tally.chunked is not None:
        doc, per_page = tally.chunked
        _data, chunks = chunk_plan(planner, as_document(doc), None)
        others = tally.tokens - per_page * sum(len(c) for c in chunks)
        requests = [RequestEstimate(fixed + max(0, others) + per_page * len(c)) for c in chunks]
        if output_schema is None and len(chunks) > 1:
            requests.append(RequestEstimate(fixed))  # the reduce request (answers not known)
            _note(tally, "the reduce request counts the prompt only (the answers are unknown)")
    cost, long_context = price_requests(requests, planner.row, tier=service_tier)
    return Estimate(
        input_tokens=sum(r.input_tokens for r in requests),
        pages=tally.pages,
        requests=len(requests),
        cost_usd=cost,
        over_limits=tuple(tally.over),
        long_context=long_context,
        assumptions=tuple(tally.notes),
        request_tokens=tuple(r.input_tokens for r in requests),
    )
