"""Citations of a run: each response's citations turned to original pages, the opt-in
``citation`` events (the documents that ask for citations and
their page maps come in the run's settings: ``application/documents/citations.py``).

The adapters map their provider's citation shapes to `Citation` (``ModelResponse.
citations``) with pages as the model numbered what it was sent; here each document
citation is placed: its document named (the provider's title, else the n-th document of
the request) and its pages mapped through that document's `PageMap` (this run's
documents only; a document of an earlier turn keeps the provider's numbers). A page past
the end of what was sent does not raise (see `to_original_pages`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from doc_processing_toolkit.application.run.loop.events import EventChannel
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.documents.page_map import PageMap
from doc_processing_toolkit.domain.grounding import Citation, citation_to_dict, to_original_pages
from doc_processing_toolkit.domain.messages import MediaPart, Message
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse

__all__ = ["collect_citations", "place"]

_NOT_DOCUMENTS = ("image/", "audio/", "video/")


def _documents(messages: Sequence[Message]) -> list[MediaPart]:
    """The request's documents in order (media that is no image, audio or video)."""
    found: list[MediaPart] = []
    for message in messages:
        if message.role != "user":
            continue
        for part in message.parts:
            if isinstance(part, MediaPart) and not part.mime_type.startswith(_NOT_DOCUMENTS):
                found.append(part)
    return found


def place(
    citations: Sequence[Citation],
    messages: Sequence[Message],
    page_maps: Mapping[str, PageMap],
) -> list[Citation]:
    """Each document citation named and on its original pages (the others unchanged)."""
    documents: list[MediaPart] | None = None
    out: list[Citation] = []
    for citation in citations:
        if citation.kind == "document":
            name = citation.document
            if name is None and citation.document_index is not None:
                documents = _documents(messages) if documents is None else documents
                if 0 <= citation.document_index < len(documents):
                    name = documents[citation.document_index].filename
            if name is not None and name != citation.document:
                citation = dataclasses.replace(citation, document=name)
            citation = to_original_pages(citation, page_maps.get(name) if name else None)
        out.append(citation)
    return out


async def collect_citations(
    response: ModelResponse,
    request: ModelRequest,
    outcome: RunOutcome,
    settings: RunSettings,
    channel: EventChannel,
) -> None:
    """Keep ``response``'s citations on ``outcome`` (and their count on the request's
    cost facts); under ``Agent(citations=True)`` emit one ``citation`` event each."""
    if not response.citations:
        return
    placed = place(response.citations, request.messages, settings.page_maps)
    outcome.citations.extend(placed)
    if outcome.request_facts:
        outcome.request_facts[-1]["citations"] = len(placed)
    if settings.citations:
        for citation in placed:
            await channel.emit("citation", citation.cited_text, citation_to_dict(citation))
