"""Registry limits: pages over max_pdf_pages and bytes over max_request_bytes, the error
naming the document, its size, the limit, the model and the two ways out."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.documents import check_limits, find_over_limits
from doc_processing_toolkit.domain.errors import DocumentLimitError
from doc_processing_toolkit.domain.registry import ModelInfo

ROW = ModelInfo(
    model="claude-test", provider="anthropic", max_pdf_pages=100, max_request_bytes=32_000_000
)


def test_a_300_page_document_is_over_the_page_limit() -> None:
    with pytest.raises(DocumentLimitError) as caught:
        check_limits(document="contract.pdf", pages=300, size=1_000, row=ROW)
    error = caught.value
    assert (error.document, error.limit_name, error.actual, error.limit, error.model) == (
        "contract.pdf",
        "max_pdf_pages",
        300,
        100,
        "claude-test",
    )
    text = str(error)
    for needle in (
        "contract.pdf",
        "300 pages",
        "100-page limit",
        "claude-test",
        "pages=",
        "run_document",
    ):
        assert needle in text
    assert isinstance(error, ValueError)


def test_bytes_over_the_request_limit_unless_uploaded() -> None:
    found = find_over_limits(document="big.pdf", pages=10, size=40_000_000, row=ROW)
    assert [f.limit_name for f in found] == ["max_request_bytes"]
    assert "40,000,000 bytes" in found[0].message and "run_document" in found[0].message
    assert (
        find_over_limits(document="big.pdf", pages=10, size=40_000_000, row=ROW, uploaded=True)
        == ()
    )


def test_within_limits_or_without_facts_nothing_is_found() -> None:
    assert find_over_limits(document="d", pages=100, size=32_000_000, row=ROW) == ()
    assert find_over_limits(document="d", pages=5_000, size=None, row=None) == ()
    bare = ModelInfo(model="m", provider="p")
    assert find_over_limits(document="d", pages=5_000, size=10**12, row=bare) == ()


def test_both_limits_are_reported_pages_first() -> None:
    found = find_over_limits(document="d", pages=101, size=33_000_000, row=ROW)
    assert [f.limit_name for f in found] == ["max_pdf_pages", "max_request_bytes"]
