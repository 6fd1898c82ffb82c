"""What kind of document some bytes are: PDF, Office Open XML, HTML, text or an image.

The bytes decide first (a PDF renamed ``.txt`` is a PDF); the name's extension is only the
fallback for bytes nothing recognises. An Office file is recognised by what it is, a zip
whose ``[Content_Types].xml`` names its main part (a Word document, a presentation or a
workbook), not by the first member names; a zip without it is no Office document.

Images use the domain's signatures (``domain.media.sniff_image_type``). The general media
sniffing of attachments lives in ``application/media/detect.py``, which adapters may not
import; the rules here are the ones documents need beyond it (the Office main part, HTML,
legacy or encrypted Office files).
"""

from __future__ import annotations

import io
import mimetypes
import zipfile
from dataclasses import dataclass

from doc_processing_toolkit.domain.documents import DocumentKind
from doc_processing_toolkit.domain.media import sniff_image_type

__all__ = [
    "DOCX",
    "OLE_MIME",
    "PPTX",
    "XLSX",
    "DetectedType",
    "detect_document",
    "kind_of",
    "office_type",
]

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
OLE_MIME = "application/x-ole-storage"
"""A Compound File (OLE2) container: a legacy .doc/.xls/.ppt, or a password-protected
Office file (Office encrypts .docx/.xlsx/.pptx into one)."""

_OCTET = "application/octet-stream"
_CONTENT_TYPES = "[Content_Types].xml"
_CONTENT_TYPES_MAX = 1 << 20  # a real one is a few kB; a larger one is not read
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# The main part's content type in [Content_Types].xml -> the document's media type.
_MAIN_PARTS = (
    (b"wordprocessingml.document.main", DOCX),
    (b"wordprocessingml.template.main", DOCX),
    (b"ms-word.document.macroenabled.main", DOCX),
    (b"presentationml.presentation.main", PPTX),
    (b"presentationml.slideshow.main", PPTX),
    (b"ms-powerpoint.presentation.macroenabled.main", PPTX),
    (b"spreadsheetml.sheet.main", XLSX),
    (b"spreadsheetml.template.main", XLSX),
    (b"ms-excel.sheet.macroenabled.main", XLSX),
)

_EXTENSIONS = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
    ".docx": DOCX,
    ".xlsx": XLSX,
    ".pptx": PPTX,
    ".webp": "image/webp",
}

_OFFICE = frozenset({DOCX, XLSX, PPTX})
_HTML = frozenset({"text/html", "application/xhtml+xml"})


@dataclass(frozen=True, slots=True)
class DetectedType:
    """A document's family and media type."""

    kind: DocumentKind
    mime_type: str


def kind_of(mime_type: str) -> DocumentKind:
    """The document family of a media type."""
    mime = mime_type.split(";", 1)[0].strip().lower()
    if mime == "application/pdf":
        return "pdf"
    if mime in _OFFICE:
        return "office"
    if mime in _HTML:
        return "html"
    if mime.startswith("image/"):
        return "image"
    if mime.startswith("text/") or mime in ("application/json", "application/xml"):
        return "text"
    return "other"


def detect_document(data: bytes, name: str = "") -> DetectedType:
    """The kind and media type of ``data`` (``name`` is only the fallback)."""
    mime = _sniff(data, name) or _from_name(name) or _OCTET
    return DetectedType(kind_of(mime), mime)


def _sniff(data: bytes, name: str) -> str | None:
    if not data:
        return None
    if b"%PDF-" in data[:1024]:
        return "application/pdf"
    image = sniff_image_type(data)
    if image is not None:
        return image
    if data.startswith(b"PK\x03\x04"):
        return office_type(data) or "application/zip"
    if data.startswith(_OLE_MAGIC):
        return OLE_MIME
    text = _as_text(data)
    if text is None:
        return None
    head = text[:2048].lstrip("\ufeff \t\r\n").lower()
    if head.startswith(("<!doctype html", "<html")) or "<html" in head[:1024]:
        return "text/html"
    named = _from_name(name)  # text/markdown, text/csv, application/json, ...
    return named if named is not None and kind_of(named) in ("text", "html") else "text/plain"


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
    for folder, mime in (("word/", DOCX), ("ppt/", PPTX), ("xl/", XLSX)):
        if any(n.startswith(folder) for n in names):
            return mime
    return None


def _as_text(data: bytes) -> str | None:
    sample = data[:8192]
    if b"\x00" in sample:
        return None
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 3:  # not just a character cut at the sample's end
            return None
        text = sample[: exc.start].decode("utf-8")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f")
    return text if controls == 0 else None


def _from_name(name: str) -> str | None:
    dot = name.rfind(".")
    if dot >= 0 and "/" not in name[dot:]:
        known = _EXTENSIONS.get(name[dot:].lower())
        if known is not None:
            return known
    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed
