"""Page selections: ``"1-20,25"``, a ``range`` or a list of ints -> sorted unique pages.

Pages are 1-based and inclusive, as a reader numbers them (``"41-60"`` is twenty pages;
``range(41, 61)`` is the same twenty, as Python counts). A selection is checked against
the document's page count when it is known; every problem raises `DocumentError` naming
the document and what is wrong, before anything is read or sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeAlias

from doc_processing_toolkit.domain.errors import DocumentError

__all__ = ["PageSpec", "describe_pages", "select_pages"]

PageSpec: TypeAlias = str | range | Sequence[int]
"""What ``Document(pages=...)`` takes."""


def _fail(document: str, spec: object, problem: str) -> DocumentError:
    return DocumentError(f"document {document!r}: pages={spec!r}: {problem}", document=document)


def _parse_text(spec: str, document: str) -> list[int]:
    pages: list[int] = []
    items = [item.strip() for item in spec.split(",")]
    if not spec.strip() or any(not item for item in items):
        raise _fail(document, spec, "an empty page selection (write e.g. '1-20,25')")
    for item in items:
        first, dash, last = item.partition("-")
        try:
            start = int(first.strip())
            end = int(last.strip()) if dash else start
        except ValueError:
            raise _fail(
                document, spec, f"{item!r} is not a page or a range (write e.g. '1-20,25')"
            ) from None
        if start < 1 or end < 1:
            raise _fail(document, spec, f"{item!r}: pages are numbered from 1")
        if end < start:
            raise _fail(document, spec, f"{item!r}: the range runs backwards ({start} > {end})")
        pages.extend(range(start, end + 1))
    return pages


def _parse_ints(spec: Iterable[object], document: str) -> list[int]:
    pages: list[int] = []
    for value in spec:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(document, spec, f"{value!r} is not a page number (an int from 1)")
        if value < 1:
            raise _fail(document, spec, f"page {value}: pages are numbered from 1")
        pages.append(value)
    if not pages:
        raise _fail(document, spec, "an empty page selection")
    return pages


def select_pages(spec: PageSpec, *, document: str, page_count: int | None) -> tuple[int, ...]:
    """The sorted, unique 1-based pages ``spec`` selects.

    Args:
        spec: ``"1-20,25"`` (ranges inclusive), a ``range`` of page numbers, or a list of
            ints.
        document: The document's name, for the error message.
        page_count: The document's page count (None: unknown, not checked).

    Returns:
        tuple[int, ...]: The pages, ascending, each once.

    Raises:
        DocumentError: an empty selection, page 0 or a negative page, a range that runs
            backwards, a value that is not a page, or a page beyond ``page_count``.
    """
    if isinstance(spec, str):
        pages = _parse_text(spec, document)
    elif isinstance(spec, range | list | tuple):
        pages = _parse_ints(spec, document)
    else:
        raise _fail(document, spec, "expected a string like '1-20,25', a range or a list of ints")
    unique = tuple(sorted(set(pages)))
    if page_count is not None and unique[-1] > page_count:
        beyond = [p for p in unique if p > page_count]
        raise _fail(
            document,
            spec,
            f"page {beyond[0]} is beyond the end: the document has {page_count} page(s)",
        )
    return unique


def describe_pages(pages: Sequence[int]) -> str:
    """``pages`` (ascending) written back as ranges: ``(1, 2, 3, 7)`` -> ``"1-3, 7"``."""
    runs: list[str] = []
    start = prev = None
    for page in pages:
        if prev is not None and page == prev + 1:
            prev = page
            continue
        if start is not None:
            runs.append(f"{start}-{prev}" if start != prev else f"{start}")
        start = prev = page
    if start is not None:
        runs.append(f"{start}-{prev}" if start != prev else f"{start}")
    return ", ".join(runs)
