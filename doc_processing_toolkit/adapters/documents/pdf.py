"""PypdfPages: the `PdfPages` port on pypdf (page count, text layers, cutting) and pypdfium2
(page images).

Both libraries come with the ``documents`` extra and are imported when first used; without
it every method raises `MissingDependencyError` naming the extra.

A PDF is parsed once and reused: the adapter keeps the parsed reader of the last few
documents (keyed by the bytes object itself, then by a SHA-256 of its content), so
``info`` then ten ``cut`` calls over one 1,000-page document parse it once, and a cut
copies only the pages asked for. Page texts are extracted once per document content and
kept with it. Page images are rendered by pypdfium2 and encoded as PNG with the standard
library (zlib), so rendering needs no imaging library.

Every failure is a `DocumentError` naming the document: an empty file, bytes that are not a
PDF, a corrupt PDF, an encrypted PDF that does not open with an empty password, a page
outside the document.
"""

from __future__ import annotations

import hashlib
import io
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.domain.documents import DocumentInfo
from doc_processing_toolkit.domain.errors import DocumentError, MissingDependencyError

__all__ = ["DOCUMENTS_EXTRA_HINT", "PypdfPages", "encode_png"]

DOCUMENTS_EXTRA_HINT = "pip install 'doc-processing-toolkit[documents]'"
"""How to install what the document adapters need."""

_PDF_MIME = "application/pdf"
_CACHED_DOCUMENTS = 2
_MAX_DPI = 600


@dataclass
class _Parsed:
    """One parsed PDF: its pypdf reader and, once asked for, its page texts."""

    reader: Any
    page_count: int
    texts: tuple[str, ...] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def _import_pypdf() -> Any:
    try:
        import pypdf
    except ImportError as exc:
        raise MissingDependencyError(
            f"reading PDFs needs pypdf, from the documents extra: {DOCUMENTS_EXTRA_HINT}"
        ) from exc
    return pypdf


def _import_pdfium() -> Any:
    try:
        import pypdfium2
    except ImportError as exc:
        raise MissingDependencyError(
            f"rendering PDF pages needs pypdfium2, from the documents extra: {DOCUMENTS_EXTRA_HINT}"
        ) from exc
    return pypdfium2


# pdfium is not thread-safe: one lock for every call into it, process-wide.
_PDFIUM_LOCK = threading.Lock()


class PypdfPages:
    """Reads, cuts and renders PDFs (the `PdfPages` port).

    Thread-safe: the parsed documents are shared between threads under a lock per
    document, and pdfium is called under one process-wide lock.
    """

    name = "pypdf"

    def __init__(self, *, cached_documents: int = _CACHED_DOCUMENTS) -> None:
        self._cached_documents = max(1, cached_documents)
        self._by_digest: OrderedDict[str, _Parsed] = OrderedDict()
        # The bytes objects seen last, by identity: the same object handed in again (one
        # document cut into chunks) is found without hashing it again.
        self._by_object: OrderedDict[int, tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    # --- the port ---

    def info(self, data: bytes, name: str) -> DocumentInfo:
        """Page count and which pages have a text layer (a page has one when pypdf's
        ``extract_text()`` gives any non-whitespace text)."""
        texts = self.page_texts(data, name)
        text_pages = tuple(n for n, text in enumerate(texts, start=1) if text.strip())
        image_only = tuple(n for n, text in enumerate(texts, start=1) if not text.strip())
        return DocumentInfo(
            kind="pdf",
            mime_type=_PDF_MIME,
            bytes=len(data),
            pages=len(texts),
            text_pages=text_pages,
            image_only_pages=image_only,
        )

    def page_count(self, path: str, name: str) -> int:
        """The page count of the PDF at ``path``. pypdf reads a path whole, so it is handed
        an open file instead: only the cross-reference table and the page tree are read."""
        with open(path, "rb") as handle:
            return _open_reader(handle, name)[1]

    def page_texts(self, data: bytes, name: str) -> tuple[str, ...]:
        """The text layer of every page in page order (``""`` for an image-only page),
        extracted once per document content."""
        parsed = self._parsed(data, name)
        with parsed.lock:
            if parsed.texts is None:
                texts: list[str] = []
                for number in range(1, parsed.page_count + 1):
                    try:
                        texts.append(parsed.reader.pages[number - 1].extract_text() or "")
                    except Exception as exc:
                        raise DocumentError(
                            f"{name}: the text of page {number} cannot be read: "
                            f"{type(exc).__name__}: {exc}",
                            document=name,
                        ) from exc
                parsed.texts = tuple(texts)
            return parsed.texts

    def cut(self, data: bytes, pages: Sequence[int], name: str) -> bytes:
        """A new PDF of ``pages`` (1-based, in the order given) of ``data``; only those
        pages (and what they use) are copied."""
        pypdf = _import_pypdf()
        parsed = self._parsed(data, name)
        if not pages:
            raise DocumentError(f"{name}: no page to cut (an empty page list)", document=name)
        for page in pages:
            self._check_page(page, parsed.page_count, name)
        with parsed.lock:
            try:
                writer = pypdf.PdfWriter()
                for page in pages:
                    writer.add_page(parsed.reader.pages[page - 1])
                out = io.BytesIO()
                writer.write(out)
            except Exception as exc:
                raise DocumentError(
                    f"{name}: pages {_pages_text(pages)} cannot be cut: "
                    f"{type(exc).__name__}: {exc}",
                    document=name,
                ) from exc
        return out.getvalue()

    def render_page(self, data: bytes, page: int, name: str, *, dpi: int = 150) -> bytes:
        """Page ``page`` (1-based) rendered by pypdfium2 as an RGB PNG at ``dpi``."""
        if not 1 <= dpi <= _MAX_DPI:
            raise DocumentError(
                f"{name}: dpi={dpi} is outside 1..{_MAX_DPI} for a page image", document=name
            )
        parsed = self._parsed(data, name)
        self._check_page(page, parsed.page_count, name)
        pdfium = _import_pdfium()
        with _PDFIUM_LOCK:
            try:
                document = pdfium.PdfDocument(data, password=None)
            except Exception as exc:
                raise DocumentError(
                    f"{name}: pdfium cannot open the PDF to render page {page}: {exc}",
                    document=name,
                ) from exc
            try:
                bitmap = document[page - 1].render(
                    scale=dpi / 72,
                    force_bitmap_format=pdfium.raw.FPDFBitmap_BGR,
                    rev_byteorder=True,
                )
                width, height, stride = bitmap.width, bitmap.height, bitmap.stride
                raw = bytes(bitmap.buffer)
            except Exception as exc:
                raise DocumentError(
                    f"{name}: page {page} cannot be rendered: {type(exc).__name__}: {exc}",
                    document=name,
                ) from exc
            finally:
                document.close()
        return encode_png(raw, width=width, height=height, stride=stride, channels=3)

    # --- parsing, once ---

    def _parsed(self, data: bytes, name: str) -> _Parsed:
        with self._lock:
            seen = self._by_object.get(id(data))
            if seen is not None and seen[0] is data:
                parsed = self._by_digest.get(seen[1])
                if parsed is not None:
                    self._by_digest.move_to_end(seen[1])
                    return parsed
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            parsed = self._by_digest.get(digest)
        if parsed is None:
            parsed = _parse(data, name)
        with self._lock:
            parsed = self._by_digest.setdefault(digest, parsed)
            self._by_digest.move_to_end(digest)
            while len(self._by_digest) > self._cached_documents:
                self._by_digest.popitem(last=False)
            self._by_object[id(data)] = (data, digest)
            self._by_object.move_to_end(id(data))
            while len(self._by_object) > self._cached_documents:
                self._by_object.popitem(last=False)
        return parsed

    @staticmethod
    def _check_page(page: int, count: int, name: str) -> None:
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= count:
            raise DocumentError(
                f"{name}: page {page!r} is outside the document (it has {count} "
                f"page{'s' if count != 1 else ''}; pages are numbered from 1)",
                document=name,
            )


def _parse(data: bytes, name: str) -> _Parsed:
    if not data:
        raise DocumentError(f"{name}: the file is empty (0 bytes), not a PDF", document=name)
    if b"%PDF-" not in data[:1024]:
        raise DocumentError(
            f"{name}: not a PDF (no %PDF- header in its first bytes)", document=name
        )
    reader, count = _open_reader(io.BytesIO(data), name)
    if count == 0:
        raise DocumentError(f"{name}: the PDF has no pages", document=name)
    return _Parsed(reader=reader, page_count=count)


def _open_reader(stream: Any, name: str) -> tuple[Any, int]:
    """A pypdf reader over ``stream`` (opened when encrypted with an empty password) and
    its page count; anything pypdf cannot read is a DocumentError naming ``name``."""
    pypdf = _import_pypdf()
    try:
        reader = pypdf.PdfReader(stream, strict=False)
        if reader.is_encrypted:
            _open_encrypted(reader, name)
        return reader, len(reader.pages)
    except DocumentError:
        raise
    except Exception as exc:
        raise DocumentError(
            f"{name}: a corrupt PDF that cannot be read: {type(exc).__name__}: {exc}",
            document=name,
        ) from exc


def _open_encrypted(reader: Any, name: str) -> None:
    """Opens a PDF encrypted with an empty user password (many "protected" PDFs are: they
    only restrict printing or copying); any other is refused."""
    try:
        opened = reader.decrypt("")
    except Exception as exc:
        raise DocumentError(
            f"{name}: the PDF is encrypted and cannot be opened without its password "
            f"({type(exc).__name__}: {exc}); decrypt it first",
            document=name,
        ) from exc
    if not opened:
        raise DocumentError(
            f"{name}: the PDF is encrypted with a password; decrypt it first "
            "(the toolkit never asks for or stores document passwords)",
            document=name,
        )


def _pages_text(pages: Sequence[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    return shown + (f", ... ({len(pages)} pages)" if len(pages) > 10 else "")


def encode_png(raw: bytes, *, width: int, height: int, stride: int, channels: int) -> bytes:
    """An 8-bit PNG of a raster: ``channels`` 1 (gray) or 3 (RGB), rows of ``stride`` bytes
    (padding past ``width * channels`` is dropped). Standard library only."""
    color_type = {1: 0, 3: 2}[channels]
    row_bytes = width * channels
    lines = b"".join(
        b"\x00" + raw[row * stride : row * stride + row_bytes] for row in range(height)
    )

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(lines, 6))
        + chunk(b"IEND", b"")
    )
