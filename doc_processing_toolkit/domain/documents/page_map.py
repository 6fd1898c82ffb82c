"""PageMap and chunk plans: the one way a page number crosses from what the model saw to
what the user reads.

A cut PDF of pages ``(41, 42, ..., 60)`` shows the model pages 1 to 20; its `PageMap`
turns the model's page 3 into the original page 43. Citations, evidence and chunk
provenance all go through `PageMap.original`; nothing else does page arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from doc_processing_toolkit.domain.documents.pages import describe_pages
from doc_processing_toolkit.domain.errors import DocumentError

__all__ = ["PageMap", "plan_chunks"]


@dataclass(frozen=True, slots=True)
class PageMap:
    """Sent page ``i`` (1-based, as the model numbers the PDF it received) <-> original
    page ``pages[i - 1]`` of the document.

    Attributes:
        document: The document's name (for errors).
        pages: The original page numbers, in the order they were sent (ascending).
    """

    document: str
    pages: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.pages:
            raise DocumentError(
                f"document {self.document!r}: a page map needs at least one page",
                document=self.document,
            )

    def __len__(self) -> int:
        return len(self.pages)

    @property
    def first(self) -> int:
        """The first original page."""
        return self.pages[0]

    @property
    def last(self) -> int:
        """The last original page."""
        return self.pages[-1]

    @property
    def label(self) -> str:
        """The original pages as ranges, e.g. ``"41-60"``."""
        return describe_pages(self.pages)

    def original(self, sent: int) -> int:
        """The original page number of sent page ``sent``.

        Raises:
            DocumentError: ``sent`` is not a page of what was sent (naming the document).
        """
        if isinstance(sent, bool) or not 1 <= sent <= len(self.pages):
            raise DocumentError(
                f"document {self.document!r}: page {sent!r} is not one of the "
                f"{len(self.pages)} page(s) sent (original pages {self.label})",
                document=self.document,
            )
        return self.pages[sent - 1]

    def sent(self, original: int) -> int | None:
        """The sent page number of original page ``original``; None if it was not sent."""
        try:
            return self.pages.index(original) + 1
        except ValueError:
            return None

    @property
    def is_identity(self) -> bool:
        """True when the pages sent are the document's first ``len(self)`` pages in order
        (nothing needs cutting)."""
        return self.pages == tuple(range(1, len(self.pages) + 1))


def plan_chunks(document: str, pages: Sequence[int], chunk_pages: int) -> tuple[PageMap, ...]:
    """``pages`` (ascending) split into consecutive chunks of at most ``chunk_pages``.

    Raises:
        DocumentError: ``chunk_pages`` is below 1, or no pages.
    """
    if isinstance(chunk_pages, bool) or not isinstance(chunk_pages, int) or chunk_pages < 1:
        raise DocumentError(
            f"document {document!r}: chunk_pages must be a positive int, got {chunk_pages!r}",
            document=document,
        )
    ordered = tuple(pages)
    if not ordered:
        raise DocumentError(f"document {document!r}: no pages to send", document=document)
    return tuple(
        PageMap(document, ordered[start : start + chunk_pages])
        for start in range(0, len(ordered), chunk_pages)
    )
