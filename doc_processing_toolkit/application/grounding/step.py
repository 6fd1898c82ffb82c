"""Evidence at run time: the run's settings, the documents' text, the result's fields.

`grounded_settings` hands the loop `evidence_model(Model)` as its output schema (the
schema asking for each leaf's value, quote and page) and the run's ``output_retries``.
`document_texts` reads the text of every document the run sent, page by page: a PDF's
text layer through the `PdfPages` port (the pages as sent, each with its ORIGINAL number
through the run's `PageMap`), a converted document's Markdown (an Office file: one page;
a PDF converted to text: its ``## Page N`` sections). `ground_result` splits the answer
and checks each quote (`check_claims`), filling ``result.output`` (the plain validated
dict, as without evidence), ``result.evidence`` and ``result.unverified_fields``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from doc_processing_toolkit.application.documents.planner import DocumentPlanner, PreparedFiles
from doc_processing_toolkit.application.documents.source import DocumentSource
from doc_processing_toolkit.application.media.inputs import media_part
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.loop.schemas import read_only_output_schema
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.application.run.run_input import RunInput
from doc_processing_toolkit.domain.documents.kinds import PDF_MIME
from doc_processing_toolkit.domain.documents.page_map import PageMap
from doc_processing_toolkit.domain.errors import DocProcessingToolkitError, DocumentError
from doc_processing_toolkit.domain.grounding.evidence import (
    evidence_model,
    evidence_of,
    split_evidence,
)
from doc_processing_toolkit.domain.grounding.matching import DocumentText, check_claims
from doc_processing_toolkit.domain.messages import MediaPart, Message, TextPart
from doc_processing_toolkit.ports.document_converter import PdfPages

__all__ = ["document_texts", "ground_result", "ground_run", "grounded_settings"]

_CONVERTED = re.compile(
    r'\A<document name="(?P<name>[^"]*)" converted_from="(?P<mime>[^"]*)"[^>]*>\n'
    r"(?P<body>.*)\n</document>\Z",
    re.DOTALL,
)
_PAGE_HEADING = re.compile(r"^## Page (\d+)$", re.MULTILINE)


def grounded_settings(settings: RunSettings, run_input: RunInput) -> RunSettings:
    """``settings`` for ``run_input``: its ``output_retries`` when given, and the evidence
    schema in place of ``output_schema`` when it asks for evidence."""
    changes: dict[str, Any] = {}
    if run_input.output_retries is not None:
        changes["output_retries"] = run_input.output_retries
    if run_input.evidence and settings.output_schema is not None:
        changes["output_schema"] = evidence_model(settings.output_schema)
    return dataclasses.replace(settings, **changes) if changes else settings


def _pdf_text(
    data: bytes, name: str, page_map: PageMap | None, pdf_pages: PdfPages
) -> DocumentText:
    """``data`` is the ORIGINAL document (its text layer was read, and kept by the
    adapter, when the run counted its pages): the sent pages' texts are picked from it."""
    texts = pdf_pages.page_texts(data, name)
    if page_map is None or not all(1 <= p <= len(texts) for p in page_map.pages):
        return DocumentText(name, texts, tuple(range(1, len(texts) + 1)))
    return DocumentText(name, [texts[p - 1] for p in page_map.pages], page_map.pages)


def _original_data(part: MediaPart, source: Any, documents: DocumentPlanner) -> bytes | None:
    if isinstance(source, DocumentSource):  # a cut document: its pages come from the whole
        original = documents.read(source)
        if original.data is not None:
            return original.data
    if part.data is None and part.path is not None:
        return Path(part.path).read_bytes()
    return part.data


def _converted_text(text: str) -> DocumentText | None:
    match = _CONVERTED.match(text)
    if match is None:
        return None
    name, body = match["name"], match["body"]
    if match["mime"] != PDF_MIME:
        return DocumentText(name, [body], [1])
    parts = _PAGE_HEADING.split(body)  # ["", "3", "text of 3", "4", ...]
    numbers = [int(n) for n in parts[1::2]]
    return DocumentText(name, parts[2::2], numbers, numbered_by_original=True)


def document_texts(
    files: Sequence[Any],
    sources: Sequence[Any],
    page_maps: Mapping[int, PageMap],
    messages: Sequence[Message],
    documents: DocumentPlanner,
) -> list[DocumentText]:
    """The text of each document the run sent: the PDFs in ``files`` (as prepared: cut
    documents with their page maps; ``sources`` as given, for the whole of a cut
    `Document`) and the converted documents in the run's new user message (in
    ``messages``). A PDF whose text cannot be read is left out with a WARNING (its
    fields then end unverified)."""
    out: list[DocumentText] = []
    pdf_pages, logger = documents.pdf_pages, documents.logger
    for index, value in enumerate(files):
        if not isinstance(value, MediaPart):  # files the run did not need to prepare
            try:
                value = media_part(value)
            except (DocProcessingToolkitError, TypeError, ValueError, OSError):
                continue
        if value.mime_type != PDF_MIME:
            continue
        name = value.filename or f"files[{index}]"
        if pdf_pages is None:
            logger.warning("evidence: no PDF adapter to read %s; its quotes are unchecked", name)
            continue
        source = sources[index] if index < len(sources) else None
        try:
            data = _original_data(value, source, documents)
            if data is not None:
                out.append(_pdf_text(data, name, page_maps.get(index), pdf_pages))
        except (DocumentError, OSError) as exc:
            logger.warning("evidence: cannot read the text of %s (%s)", name, exc)
    for message in messages:
        if message.role != "user":
            continue
        for part in message.parts:
            if isinstance(part, TextPart) and (converted := _converted_text(part.text)):
                out.append(converted)
    return out


def ground_result(
    result: AgentResult,
    settings: RunSettings,
    documents: Sequence[DocumentText],
    threshold: float,
) -> None:
    """Split ``result.output`` (the answer under the evidence schema) into the plain
    output and its evidence, each quote checked against ``documents``; nothing happens
    when the run asked for no evidence or failed (its output is None)."""
    model = evidence_of(settings.output_schema)
    if model is None or result.output is None:
        return
    plain, claims = split_evidence(read_only_output_schema(model), result.output)
    evidence = check_claims(claims, documents, threshold)
    result.output = plain
    result.evidence = evidence
    result.unverified_fields = [path for path, e in evidence.items() if not e.verified]


def ground_run(
    result: AgentResult,
    run: tuple[RunSettings, RunInput, RunOutcome],
    prepared: PreparedFiles,
    documents: DocumentPlanner,
    threshold: float,
) -> None:
    """The evidence step of one finished run (nothing unless it asked for evidence and
    succeeded): the documents' text read, then `ground_result`."""
    settings, run_input, outcome = run
    if evidence_of(settings.output_schema) is None or outcome.error is not None:
        return
    files = prepared.files if isinstance(prepared.files, list | tuple) else []
    sources = run_input.files if isinstance(run_input.files, list | tuple) else []
    messages = outcome.messages[outcome.new_messages_start :]
    texts = document_texts(files, sources, prepared.page_maps, messages, documents)
    ground_result(result, settings, texts, threshold)
