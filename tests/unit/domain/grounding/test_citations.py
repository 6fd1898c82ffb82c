"""The Citation type and its pure helpers (domain/grounding/citations.py)."""

from __future__ import annotations

import json

from doc_processing_toolkit.domain.documents import PageMap
from doc_processing_toolkit.domain.grounding import (
    Citation,
    citation_from_dict,
    citation_to_dict,
    citations_as_text,
    to_original_pages,
)


def _page(start: int | None, end: int | None = None) -> Citation:
    return Citation("x", page_start=start, page_end=end, kind="document", raw={"p": start})


def test_sent_pages_become_the_original_pages() -> None:
    pages = PageMap("report.pdf", (3, 4))
    assert to_original_pages(_page(1, 1), pages).page_start == 3
    moved = to_original_pages(_page(1, 2), pages)
    assert (moved.page_start, moved.page_end, moved.document) == (3, 4, "report.pdf")


def test_a_citation_past_the_end_does_not_raise_and_keeps_the_raw_numbers() -> None:
    pages = PageMap("report.pdf", (3, 4))
    lost = to_original_pages(_page(7, 8), pages)
    assert (lost.page_start, lost.page_end) == (None, None)
    assert lost.raw == {"p": 7}
    clamped = to_original_pages(_page(2, 9), pages)  # the end clamped to the last page sent
    assert (clamped.page_start, clamped.page_end) == (4, 4)
    assert to_original_pages(_page(0), pages).page_start is None


def test_no_page_map_or_no_page_leaves_the_citation_as_it_is() -> None:
    citation = _page(2, 2)
    assert to_original_pages(citation, None) is citation
    web = Citation("y", url="https://example.com", kind="web")
    assert to_original_pages(web, PageMap("a.pdf", (1,))) is web


def test_plain_data_round_trip() -> None:
    citation = Citation(
        "the sky is blue",
        quote="The sky is blue.",
        document="notes.txt",
        document_index=0,
        char_start=5,
        char_end=20,
        provider="anthropic",
        kind="document",
        raw={"type": "char_location", "start_char_index": 20},
    )
    data = json.loads(json.dumps(citation_to_dict(citation)))
    back = citation_from_dict(data)
    assert back == citation
    assert back.raw == citation.raw


def test_unreadable_plain_data_reads_as_documented_empty_values() -> None:
    back = citation_from_dict(
        {"cited_text": 3, "kind": "nonsense", "page_start": "2", "raw": [1], "extra": 1}
    )
    assert back == Citation("", kind="unknown")
    assert back.raw == {}


def test_citations_as_text_lists_each_source_once_per_citation() -> None:
    text = citations_as_text(
        [
            Citation("a", quote="Rates held.", url="https://ex.com/fed", title="Fed", kind="web"),
            Citation("b", document="r.pdf", page_start=3, page_end=4, kind="document"),
        ]
    )
    assert text == 'Sources:\n[1] Fed (https://ex.com/fed): "Rates held."\n[2] r.pdf (pp. 3-4)'
    assert citations_as_text([]) == ""


def test_a_huge_or_empty_quote_does_not_raise() -> None:
    assert citations_as_text([Citation("", quote="")]) == ""  # names no source: no line
    huge = "q" * 1_000_000
    assert citations_as_text([Citation("", quote=huge)]).endswith(f'"{huge}"')
