"""Which family a media type belongs to, and the registry key of an Office type.

A row's ``input_types`` names Office types by their short key (``docx``, ``pptx``,
``xlsx``) where the provider documents native support; `office_key` maps a media type to
that key.
"""

from __future__ import annotations

from doc_processing_toolkit.domain.documents.info import DocumentKind

__all__ = ["HTML_MIME_TYPES", "OFFICE_MIME_TYPES", "PDF_MIME", "document_kind", "office_key"]

PDF_MIME = "application/pdf"

OFFICE_MIME_TYPES: dict[str, str] = {
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
}
"""Office Open XML media types -> their ``input_types`` key."""

HTML_MIME_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def office_key(mime_type: str) -> str | None:
    """The ``input_types`` key of an Office media type (``docx``...); None for others."""
    return OFFICE_MIME_TYPES.get(mime_type)


def document_kind(mime_type: str) -> DocumentKind:
    """The family of ``mime_type``: pdf, office, html, text, image or other."""
    if mime_type == PDF_MIME:
        return "pdf"
    if mime_type in OFFICE_MIME_TYPES:
        return "office"
    if mime_type in HTML_MIME_TYPES:
        return "html"
    if mime_type.startswith("text/"):
        return "text"
    if mime_type.startswith("image/"):
        return "image"
    return "other"
