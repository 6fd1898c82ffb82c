"""Which family a media type belongs to, and the registry key of an Office type.

A row's ``input_types`` names Office types by their short key (``docx``, ``pptx``,
``xlsx``) where the provider documents native support; `office_key` maps a media type to
that key.
"""

from __future__ import annotations

from doc_processing_toolkit.domain.documents.info import DocumentKind

__all__ = [
    "DOCX_MIME",
    "HTML_MIME_TYPES",
    "OFFICE_MIME_TYPES",
    "PDF_MIME",
    "PPTX_MIME",
    "XLSX_MIME",
    "document_kind",
    "office_key",
]

PDF_MIME = "application/pdf"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

OFFICE_MIME_TYPES: dict[str, str] = {DOCX_MIME: "docx", PPTX_MIME: "pptx", XLSX_MIME: "xlsx"}
"""Office Open XML media types -> their ``input_types`` key."""

HTML_MIME_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_APPLICATION_TYPES = frozenset({"application/json", "application/xml"})


def office_key(mime_type: str) -> str | None:
    """The ``input_types`` key of an Office media type (``docx``...); None for others."""
    return OFFICE_MIME_TYPES.get(mime_type)


def document_kind(mime_type: str) -> DocumentKind:
    """The family of ``mime_type`` (parameters and case ignored): pdf, office, html, text
    (``text/*``, JSON and XML), image or other."""
    mime = mime_type.split(";", 1)[0].strip().lower()
    if mime == PDF_MIME:
        return "pdf"
    if mime in OFFICE_MIME_TYPES:
        return "office"
    if mime in HTML_MIME_TYPES:
        return "html"
    if mime.startswith("text/") or mime in _TEXT_APPLICATION_TYPES:
        return "text"
    if mime.startswith("image/"):
        return "image"
    return "other"
