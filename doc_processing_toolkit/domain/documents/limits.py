"""Page and size limits of one request, from the model's registry row (pure, no I/O).

`find_over_limits` lists what a document (or its page selection) exceeds: the row's
``max_pdf_pages`` and, where the document travels inside the request,
``max_request_bytes``. `OverLimit.error` is the `DocumentLimitError` the run raises
before any request; ``Agent.estimate`` reports the same findings without raising.
A fact the row does not have (None) checks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from doc_processing_toolkit.domain.errors import DocumentLimitError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["OverLimit", "check_limits", "find_over_limits"]


@dataclass(frozen=True, slots=True)
class OverLimit:
    """One registry limit a document exceeds.

    Attributes:
        document: The document's name.
        limit_name: The registry fact: ``"max_pdf_pages"`` or ``"max_request_bytes"``.
        actual: The document's pages (or bytes).
        limit: The row's value.
        model: The model id.
    """

    document: str
    limit_name: str
    actual: int
    limit: int
    model: str

    @property
    def message(self) -> str:
        """What is over which limit, and the two ways out."""
        if self.limit_name == "max_pdf_pages":
            what = (
                f"document {self.document!r} has {self.actual:,} pages, over the "
                f"{self.limit:,}-page limit of {self.model} (registry max_pdf_pages)"
            )
            pages, chunks = f"pages='1-{self.limit}'", f"chunks of up to {self.limit:,} pages"
        else:
            what = (
                f"document {self.document!r} is {self.actual:,} bytes, over the "
                f"{self.limit:,}-byte request limit of {self.model} (registry "
                "max_request_bytes)"
            )
            pages, chunks = "pages='1-20'", "smaller chunks (chunk_pages=)"
        return (
            f"{what}; nothing was sent. Send fewer pages with Document(..., {pages}), or "
            f"use Agent.run_document(...), which sends it in {chunks} and merges the answers"
        )

    def error(self) -> DocumentLimitError:
        """This finding as the error a run raises."""
        return DocumentLimitError(
            self.message,
            document=self.document,
            limit_name=self.limit_name,
            actual=self.actual,
            limit=self.limit,
            model=self.model,
        )


def find_over_limits(
    *,
    document: str,
    pages: int | None,
    size: int | None,
    row: ModelInfo | None,
    uploaded: bool = False,
) -> tuple[OverLimit, ...]:
    """The limits of ``row`` that a document of ``pages`` pages and ``size`` bytes
    exceeds in one request.

    Args:
        document: The document's name.
        pages: Its page count as sent (None: not a PDF, no page limit applies).
        size: Its size in bytes as sent (None: unknown).
        row: The model's registry row (None: no facts, nothing is checked).
        uploaded: The document goes through the provider's Files API rather than inside
            the request (``max_request_bytes`` does not bound it).

    Returns:
        tuple[OverLimit, ...]: Page limit first, then bytes; empty when it fits.
    """
    if row is None:
        return ()
    found: list[OverLimit] = []
    if pages is not None and row.max_pdf_pages is not None and pages > row.max_pdf_pages:
        found.append(OverLimit(document, "max_pdf_pages", pages, row.max_pdf_pages, row.model))
    limit = row.max_request_bytes
    if not uploaded and size is not None and limit is not None and size > limit:
        found.append(OverLimit(document, "max_request_bytes", size, limit, row.model))
    return tuple(found)


def check_limits(
    *,
    document: str,
    pages: int | None,
    size: int | None,
    row: ModelInfo | None,
    uploaded: bool = False,
) -> None:
    """Raise the first limit ``find_over_limits`` finds (arguments as there).

    Raises:
        DocumentLimitError: the document is over the page or byte limit, naming the
            document, its pages (or bytes), the limit, the model and the two ways out.
    """
    found = find_over_limits(document=document, pages=pages, size=size, row=row, uploaded=uploaded)
    if found:
        raise found[0].error()
