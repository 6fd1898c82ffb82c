"""PageMap: sent page i <-> original page p; chunk plans split a selection in order."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.documents import PageMap, plan_chunks
from doc_processing_toolkit.domain.errors import DocumentError


def test_a_cut_maps_sent_pages_to_original_pages() -> None:
    cut = PageMap("c.pdf", tuple(range(41, 61)))
    assert len(cut) == 20 and cut.first == 41 and cut.last == 60 and cut.label == "41-60"
    assert cut.original(1) == 41 and cut.original(20) == 60
    assert cut.sent(43) == 3 and cut.sent(61) is None
    assert not cut.is_identity and PageMap("c.pdf", (1, 2, 3)).is_identity


@pytest.mark.parametrize("sent", [0, 21, -1])
def test_a_page_outside_the_cut_is_refused_with_the_document(sent: int) -> None:
    with pytest.raises(DocumentError, match=r"c\.pdf.*not one of the 20 page\(s\) sent.*41-60"):
        PageMap("c.pdf", tuple(range(41, 61))).original(sent)


def test_300_pages_in_chunks_of_100() -> None:
    chunks = plan_chunks("c.pdf", range(1, 301), 100)
    assert [(c.first, c.last, len(c)) for c in chunks] == [
        (1, 100, 100),
        (101, 200, 100),
        (201, 300, 100),
    ]


def test_a_selection_keeps_its_gaps_in_chunks() -> None:
    chunks = plan_chunks("c.pdf", (1, 2, 5, 9, 10), 2)
    assert [c.pages for c in chunks] == [(1, 2), (5, 9), (10,)]
    assert chunks[1].original(2) == 9


@pytest.mark.parametrize("size", [0, -3, True])
def test_a_bad_chunk_size_is_refused(size: int) -> None:
    with pytest.raises(DocumentError, match="chunk_pages"):
        plan_chunks("c.pdf", (1, 2), size)


def test_no_pages_is_refused() -> None:
    with pytest.raises(DocumentError, match="no pages"):
        plan_chunks("c.pdf", (), 10)
    with pytest.raises(DocumentError, match="at least one page"):
        PageMap("c.pdf", ())
