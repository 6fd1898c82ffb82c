"""What kind of document some bytes are: PDF, Office Open XML, HTML, text or an image.

The bytes decide first (a PDF renamed ``.txt`` is a PDF); the name's extension is only the
fallback for bytes nothing recognises. An Office file is recognised by what it is, a zip
whose ``[Content_Types].xml`` names its main part (a Word document, a presentation or a
workbook), not by the first member names; a zip without it is no Office document.

The general rules are the domain's, one copy shared with attachments: the signatures and
the text rule of ``domain/media_types.py`` (`sniff_media_type`, `text_head`,
`guess_from_name`) and the document families of ``domain/documents/kinds.py``
(`document_kind`, the Office media types). What is added here is what documents need
beyond them and what needs the zip opened: a PDF header anywhere in the first KiB, the
Office main part, HTML, legacy or encrypted Office files.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from doc_processing_toolkit.domain.documents import DocumentKind
from doc_processing_toolkit.domain.documents.kinds import (
    DOCX_MIME,
    PDF_MIME,
    PPTX_MIME,
    XLSX_MIME,
    document_kind,
)
from doc_processing_toolkit.domain.media_types import (
    OCTET_STREAM,
    guess_from_name,
    sniff_media_type,
    text_head,
)

__all__ = [
    "OLE_MIME",
    "DetectedType",
    "detect_document",
    "office_type",
]

OLE_MIME = "application/x-ole-storage"
"""A Compound File (OLE2) container: a legacy .doc/.xls/.ppt, or a password-protected
Office file (Office encrypts .docx/.xlsx/.pptx into one)."""

_CONTENT_TYPES = "[Content_Types].xml"
_CONTENT_TYPES_MAX = 1 << 20  # a real one is a few kB; a larger one is not read
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# The main part's content type in [Content_Types].xml -> the document's media type.
_MAIN_PARTS = (
    (b"wordprocessingml.document.main", DOCX_MIME),
    (b"wordprocessingml.template.main", DOCX_MIME),
    (b"ms-word.document.macroenabled.main", DOCX_MIME),
    (b"presentationml.presentation.main", PPTX_MIME),
    (b"presentationml.slideshow.main", PPTX_MIME),
    (b"ms-powerpoint.presentation.macroenabled.main", PPTX_MIME),
    (b"spreadsheetml.sheet.main", XLSX_MIME),
    (b"spreadsheetml.template.main", XLSX_MIME),
    (b"ms-excel.sheet.macroenabled.main", XLSX_MIME),
)


@dataclass(frozen=True, slots=True)
class DetectedType:
    """A document's family and media type."""

    kind: DocumentKind
    mime_type: str


def detect_document(data: bytes, name: str = "") -> DetectedType:
    """The kind and media type of ``data`` (``name`` is only the fallback)."""
    mime = _sniff(data, name) or guess_from_name(name) or OCTET_STREAM
    return DetectedType(document_kind(mime), mime)


def _sniff(data: bytes, name: str) -> str | None:
    if not data:
        return None
    if b"%PDF-" in data[:1024]:  # readers accept bytes before the header
        return PDF_MIME
    if data.startswith(b"PK\x03\x04"):
        return office_type(data) or "application/zip"
    if data.startswith(_OLE_MAGIC):
        return OLE_MIME
    sniffed = sniff_media_type(data)
    text = text_head(data) if sniffed == "text/plain" else None
    if text is None:
        return sniffed
    head = text[:2048].lstrip("\ufeff \t\r\n").lower()
    if head.startswith(("<!doctype html", "<html")) or "<html" in head[:1024]:
        return "text/html"
    named = guess_from_name(name)  # text/markdown, text/csv, application/json, ...
    if named is not None and document_kind(named) in ("text", "html"):
        return named
    return "text/plain"


def office_type(data: bytes) -> str | None:
    """The Office Open XML media type of a zip, read from its ``[Content_Types].xml``
    (falling back on its member folders: ``word/``, ``ppt/``, ``xl/``); None for a zip
    that is no Office document or is not a readable zip."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            if _CONTENT_TYPES not in names:
                return None
            entry = archive.getinfo(_CONTENT_TYPES)
            if entry.file_size > _CONTENT_TYPES_MAX:
                return None
            types = archive.read(entry).lower()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
        return None
    for marker, mime in _MAIN_PARTS:
        if marker in types:
            return mime
    for folder, mime in (("word/", DOCX_MIME), ("ppt/", PPTX_MIME), ("xl/", XLSX_MIME)):
        if any(n.startswith(folder) for n in names):
            return mime
    return None
