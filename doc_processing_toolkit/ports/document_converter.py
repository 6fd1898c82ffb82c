"""DocumentConverter and PdfPages: what the application needs from document libraries.

The application plans which pages go where; these ports do the byte work (adapters in
``adapters/documents/``: MarkItDown for conversion, pypdf for cutting and text layers,
pypdfium2 for page images). Every page number crossing these ports is 1-based and refers
to the document handed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from doc_processing_toolkit.domain.documents import ConvertedDocument, DocumentInfo

__all__ = ["DocumentConverter", "PdfPages"]


@runtime_checkable
class DocumentConverter(Protocol):
    """Converts a document (.docx, .pptx, .xlsx, .html, ...) to Markdown text.

    ``name`` names the converter in reports (``AgentResult.converted_parts``).
    ``convert`` raises ``DocumentError`` (from ``domain.errors``) naming ``name`` and the
    problem when the bytes cannot be converted (corrupt, encrypted, a zip bomb).
    """

    name: str

    def accepts(self, mime_type: str) -> bool:
        """Whether ``convert`` can read documents of ``mime_type``."""
        ...

    def convert(self, data: bytes, mime_type: str, name: str) -> ConvertedDocument:
        """The Markdown of ``data`` and what the conversion lost."""
        ...


@runtime_checkable
class PdfPages(Protocol):
    """Reads and cuts PDFs. Each method raises ``DocumentError`` naming ``name`` and the
    problem for a corrupt, encrypted or empty PDF, and for a page outside the document."""

    def info(self, data: bytes, name: str) -> DocumentInfo:
        """Page count and which pages have a text layer, without rendering anything."""
        ...

    def page_count(self, path: str, name: str) -> int:
        """The page count of the PDF file at ``path``, read through a file stream: a file
        too large to hold (one uploaded through a Files API) is never read whole."""
        ...

    def cut(self, data: bytes, pages: Sequence[int], name: str) -> bytes:
        """A new PDF of ``pages`` (1-based, in the order given) of ``data``."""
        ...

    def page_texts(self, data: bytes, name: str) -> tuple[str, ...]:
        """The text layer of every page, in page order (``""`` for an image-only page)."""
        ...

    def render_page(self, data: bytes, page: int, name: str, *, dpi: int = 150) -> bytes:
        """Page ``page`` (1-based) rendered as a PNG image."""
        ...
