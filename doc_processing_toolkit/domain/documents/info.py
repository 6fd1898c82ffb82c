"""What a document is before anything is sent, and what a converter made of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["ConvertedDocument", "DocumentInfo", "DocumentKind"]

DocumentKind = Literal["pdf", "office", "html", "text", "image", "other"]
"""The family a document belongs to: it decides how it can be sent (see
docs/guide/documents.md)."""


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A document's facts, read from its bytes without any request.

    Attributes:
        kind: ``"pdf"``, ``"office"`` (.docx/.pptx/.xlsx), ``"html"``, ``"text"``,
            ``"image"`` or ``"other"``.
        mime_type: The media type, e.g. ``"application/pdf"``.
        bytes: The size of the whole document in bytes.
        pages: The page count of a PDF; None for a kind without pages.
        text_pages: The 1-based page numbers that carry a text layer (PDF only).
        image_only_pages: The 1-based page numbers with no text layer: scanned pages,
            which only OCR or a model that reads images can read (PDF only).
    """

    kind: DocumentKind
    mime_type: str
    bytes: int
    pages: int | None = None
    text_pages: tuple[int, ...] = ()
    image_only_pages: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ConvertedDocument:
    """A document turned into Markdown text by a `DocumentConverter` or OCR.

    Attributes:
        markdown: The text, in Markdown.
        converter: Who converted it, e.g. ``"markitdown"`` or ``"pypdf"``.
        lost: What the conversion could not carry, in words (``"3 embedded images"``);
            empty when nothing was lost.
        page_texts: For a paged source, the text of each page in page order (index 0 is
            the first page converted); empty when the converter does not know pages.
    """

    markdown: str
    converter: str
    lost: tuple[str, ...] = ()
    page_texts: tuple[str, ...] = field(default=())
