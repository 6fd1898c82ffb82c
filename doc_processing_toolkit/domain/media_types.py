"""Media type detection: magic numbers first, the file extension only as a fallback.

Pure functions over bytes and names (no I/O). `sniff_media_type` reads the
signature of images, PDFs, audio, video and the Office Open XML containers;
`text_head` is the rule that says bytes are text; `guess_from_name` is the extension
table of `mimetypes` with the few types it lacks; `is_youtube_url` / `is_web_url`
classify string inputs. The one copy of these rules: attachments
(``application/media``) and document detection (``adapters/documents/detect.py``) both
use them.
"""

from __future__ import annotations

import mimetypes
import re
from urllib.parse import urlsplit

from doc_processing_toolkit.domain.documents.kinds import DOCX_MIME, PPTX_MIME, XLSX_MIME
from doc_processing_toolkit.domain.media import sniff_image_type

__all__ = [
    "OCTET_STREAM",
    "YOUTUBE_MIME",
    "guess_from_name",
    "is_web_url",
    "is_youtube_url",
    "sniff_media_type",
    "text_head",
]

OCTET_STREAM = "application/octet-stream"
"""The type of bytes nothing recognises."""

YOUTUBE_MIME = "video/*"
"""The media type a YouTube URL is sent with (the provider fetches the video itself)."""

_EXTRA_EXTENSIONS = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
    ".webp": "image/webp",
    ".heic": "image/heic",
    ".heif": "image/heif",
    ".m4a": "audio/mp4",
    ".flac": "audio/flac",
    ".webm": "video/webm",
    ".docx": DOCX_MIME,
    ".xlsx": XLSX_MIME,
    ".pptx": PPTX_MIME,
}

_YOUTUBE = re.compile(
    r"^https?://(www\.|m\.|music\.)?(youtube\.com/(watch|shorts/|live/|embed/)|youtu\.be/)",
    re.IGNORECASE,
)

_FTYP_BRANDS = {
    b"M4A ": "audio/mp4",
    b"M4B ": "audio/mp4",
    b"qt  ": "video/quicktime",
    b"heic": "image/heic",
    b"heix": "image/heic",
    b"mif1": "image/heif",
    b"3gp4": "video/3gpp",
    b"3gp5": "video/3gpp",
}


def _zip_type(data: bytes) -> str:
    """An Office Open XML type from the member names a zip's first entries show."""
    head = data[:65536]
    for marker, mime in ((b"word/", DOCX_MIME), (b"xl/", XLSX_MIME), (b"ppt/", PPTX_MIME)):
        if marker in head:
            return mime
    return "application/zip"


def text_head(data: bytes) -> str | None:
    """The first 8 KiB of ``data`` decoded, when they are UTF-8 text with no NUL or
    control characters (a multi-byte character cut at the sample's end is still text);
    None for binary data or no data."""
    sample = data[:8192]
    if not sample or b"\x00" in sample:
        return None
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 3:  # not just a character cut at the sample's end
            return None
        text = sample[: exc.start].decode("utf-8")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f")
    return text if controls == 0 else None


def sniff_media_type(data: bytes) -> str | None:
    """The media type the bytes' signature names, else None.

    Images (png, jpeg, gif, webp, tiff, heic), PDF, WAV, MP3, OGG, FLAC, MP4 / MOV /
    3GP (by ``ftyp`` brand), WebM / Matroska, AVI, the Office Open XML containers
    (docx, xlsx, pptx, read from their member names), and UTF-8 text with no control
    characters (``text/plain``).
    """
    image = sniff_image_type(data)
    if image is not None:
        return image
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:4] == b"RIFF" and data[8:12] == b"AVI ":
        return "video/x-msvideo"
    if data[4:8] == b"ftyp":
        return _FTYP_BRANDS.get(data[8:12], "video/mp4")
    if data.startswith(b"\x1a\x45\xdf\xa3"):
        return "video/webm"
    if data.startswith(b"ID3") or data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    if data.startswith(b"OggS"):
        return "audio/ogg"
    if data.startswith(b"fLaC"):
        return "audio/flac"
    if data.startswith(b"PK\x03\x04"):
        return _zip_type(data)
    if text_head(data) is not None:
        return "text/plain"
    return None


def guess_from_name(name: str) -> str | None:
    """The media type a file name's (or URL path's) extension names, else None."""
    path = urlsplit(name).path if is_web_url(name) else name
    dot = path.rfind(".")
    if dot >= 0:
        extra = _EXTRA_EXTENSIONS.get(path[dot:].lower())
        if extra is not None:
            return extra
    guessed, _ = mimetypes.guess_type(path, strict=False)
    return guessed


def is_web_url(value: str) -> bool:
    """An ``http://`` or ``https://`` URL."""
    return value[:8].lower().startswith(("http://", "https://"))


def is_youtube_url(value: str) -> bool:
    """A YouTube watch / shorts / live / embed or youtu.be URL."""
    return bool(_YOUTUBE.match(value))
