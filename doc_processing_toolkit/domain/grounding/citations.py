"""`Citation`: one provider-neutral record of where a span of an answer comes from.

Each adapter maps its provider's own shape (Anthropic ``char_location`` / ``page_location``
/ ``content_block_location`` / ``web_search_result_location``, OpenAI ``url_citation`` /
``file_citation`` / ``container_file_citation`` annotations, Gemini grounding metadata
and citation metadata) to this one type, keeping the provider's dict verbatim in ``raw``.
The helpers here are pure: page numbers cross to the ORIGINAL pages of a document through
its `PageMap` (`to_original_pages`), citations travel as plain data
(`citation_to_dict` / `citation_from_dict`) and cross to another provider as text
(`citations_as_text`).

A citation whose pages lie past the end of what was sent does not raise: its
``page_start`` / ``page_end`` become None (unknown) and ``raw`` keeps the provider's
numbers; an end page past the end is clamped to the last page sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Protocol, TypeAlias

__all__ = [
    "CITATION_KINDS",
    "Citation",
    "CitationKind",
    "citation_from_dict",
    "citation_to_dict",
    "citations_as_text",
    "to_original_pages",
]

CitationKind: TypeAlias = Literal["document", "web", "file_search", "grounding", "unknown"]
"""What a citation points at: a document the request carried, a web page, a file of a
provider-side file store, a Gemini grounding source, or a shape this toolkit does not
know (``raw`` then holds all of it)."""

CITATION_KINDS: tuple[str, ...] = ("document", "web", "file_search", "grounding", "unknown")


class PageMap(Protocol):
    """What `to_original_pages` reads of a ``domain.documents.PageMap`` (declared here so
    the grounding room does not import the documents room, which imports the requests
    that carry citations)."""

    @property
    def document(self) -> str: ...

    def __len__(self) -> int: ...

    def original(self, sent: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Citation:
    """One source of one span of an answer, the same on every provider."""

    cited_text: str
    """The span of the answer this citation supports ("" when the provider names none)."""
    quote: str | None = None
    """The source text, where the provider gives it (Anthropic ``cited_text``)."""
    document: str | None = None
    """The document's name as given in ``files=`` (a `Document`'s ``name``), or None."""
    document_index: int | None = None
    """The provider's index of the cited document in the request, or None."""
    page_start: int | None = None
    """First cited page: ORIGINAL and 1-based, also after ``Document(pages=...)``."""
    page_end: int | None = None
    """Last cited page (inclusive), ORIGINAL and 1-based."""
    char_start: int | None = None
    """Start of ``cited_text`` in the text of the assistant message that carries it."""
    char_end: int | None = None
    """End (exclusive) of ``cited_text`` in that text."""
    url: str | None = None
    """The cited web page (or a file-search file's URI), when there is one."""
    title: str | None = None
    """The source's title (a web page's, a document's, a file's name)."""
    provider: str = ""
    """The provider that returned the citation."""
    kind: CitationKind = "unknown"
    """See `CitationKind`."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """The provider's own citation dict, verbatim (not part of equality or the hash)."""


def to_original_pages(citation: Citation, page_map: PageMap | None) -> Citation:
    """``citation`` with its pages (as the model numbered what it was sent) turned into the
    document's original pages through ``page_map``.

    A start page outside the pages sent makes both pages None (the citation cannot be
    placed; ``raw`` keeps the provider's numbers); an end page past the last page sent
    is clamped to it. No page map (not a PDF, or not this run's document): unchanged.
    """
    if page_map is None or citation.page_start is None:
        return citation
    sent = len(page_map)
    start = citation.page_start
    if not 1 <= start <= sent:
        return replace(citation, page_start=None, page_end=None)
    end = citation.page_end if citation.page_end is not None else start
    end = min(max(end, start), sent)
    return replace(
        citation,
        page_start=page_map.original(start),
        page_end=page_map.original(end),
        document=citation.document or page_map.document,
    )


def citation_to_dict(citation: Citation) -> dict[str, Any]:
    """``citation`` as JSON-clean plain data (`citation_from_dict` reads it back)."""
    return asdict(citation)


_FIELDS = frozenset(Citation.__dataclass_fields__)


def citation_from_dict(data: Mapping[str, Any]) -> Citation:
    """The `Citation` `citation_to_dict` wrote; unknown keys are ignored, an unknown
    ``kind`` reads as "unknown", a field of the wrong type as its empty value."""
    values: dict[str, Any] = {k: v for k, v in data.items() if k in _FIELDS}
    if values.get("kind") not in CITATION_KINDS:
        values["kind"] = "unknown"
    if not isinstance(values.get("cited_text"), str):
        values["cited_text"] = ""
    if not isinstance(values.get("provider", ""), str):
        values["provider"] = ""
    raw = values.get("raw")
    values["raw"] = dict(raw) if isinstance(raw, Mapping) else {}
    for key in ("document_index", "page_start", "page_end", "char_start", "char_end"):
        value = values.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            values[key] = None
    for key in ("quote", "document", "url", "title"):
        if values.get(key) is not None and not isinstance(values[key], str):
            values[key] = None
    return Citation(**values)


def _source(citation: Citation) -> str:
    name = citation.title or citation.document or citation.url or "source"
    where = []
    if citation.document and citation.title and citation.document != citation.title:
        where.append(citation.document)
    if citation.page_start is not None:
        end = citation.page_end
        pages = (
            f"p. {citation.page_start}"
            if end is None or end == citation.page_start
            else f"pp. {citation.page_start}-{end}"
        )
        where.append(pages)
    if citation.url and citation.url != name:
        where.append(citation.url)
    return name + (f" ({', '.join(where)})" if where else "")


def citations_as_text(citations: Sequence[Citation]) -> str:
    """The citations as a plain-text source list (what another provider is given, where
    it has no structured form for them): one numbered line per citation, with the quote
    when there is one. A citation that names no source (no title, document, URL, page or
    quote) has no line; empty when no citation has one."""
    lines: list[str] = []
    named = [
        c
        for c in citations
        if c.title or c.document or c.url or c.quote or c.page_start is not None
    ]
    for number, citation in enumerate(named, start=1):
        line = f"[{number}] {_source(citation)}"
        if citation.quote:
            line += f': "{citation.quote.strip()}"'
        lines.append(line)
    return ("Sources:\n" + "\n".join(lines)) if lines else ""
