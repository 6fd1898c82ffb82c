"""Page selections: text, ranges and lists to sorted unique 1-based pages; every bad
selection is a DocumentError naming the document and the problem."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.documents import describe_pages, select_pages
from doc_processing_toolkit.domain.errors import DocumentError, InvalidInputError


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("1-20,25", (*range(1, 21), 25)),
        (" 3 , 1-2 ", (1, 2, 3)),
        ("41-60", tuple(range(41, 61))),
        ("7", (7,)),
        (range(41, 61), tuple(range(41, 61))),
        ([5, 3, 3, 1], (1, 3, 5)),
        ((2, 2), (2,)),
    ],
)
def test_a_selection_gives_sorted_unique_pages(spec: object, expected: tuple[int, ...]) -> None:
    assert select_pages(spec, document="c.pdf", page_count=300) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("0", "numbered from 1"),
        ("30-10", "runs backwards"),
        ("", "empty"),
        ("1,,2", "empty"),
        ("a-b", "not a page or a range"),
        ("301", "beyond the end: the document has 300 page(s)"),
        ("290-310", "page 301 is beyond the end"),
        ([0, 1], "numbered from 1"),
        ([], "empty"),
        (range(0), "empty"),
        ([1.5], "not a page number"),
        ([True], "not a page number"),
        (3, "expected a string"),
    ],
)
def test_a_bad_selection_names_the_document_and_the_problem(spec: object, problem: str) -> None:
    with pytest.raises(DocumentError) as caught:
        select_pages(spec, document="contract.pdf", page_count=300)  # type: ignore[arg-type]
    assert caught.value.document == "contract.pdf"
    assert "contract.pdf" in str(caught.value) and problem in str(caught.value)
    assert isinstance(caught.value, InvalidInputError) and isinstance(caught.value, ValueError)


def test_an_unknown_page_count_checks_no_end() -> None:
    assert select_pages("999", document="d", page_count=None) == (999,)


def test_pages_are_written_back_as_ranges() -> None:
    assert describe_pages((1, 2, 3, 7, 9, 10)) == "1-3, 7, 9-10"
    assert describe_pages(()) == ""
