"""MarkItDownConverter: the `DocumentConverter` port on Microsoft's MarkItDown.

Converts .docx, .pptx, .xlsx, HTML and CSV to Markdown. MarkItDown comes with the
``documents`` extra and is imported on the first conversion; without it `convert` raises
`MissingDependencyError` naming the extra (and ``adapters.documents.default_converter()``
gives None). Nothing is fetched over the network: documents are converted from their bytes.

Before MarkItDown opens an Office file (a zip), its entries are checked by the domain's
zip-bomb rule (``domain/documents/archive.py``: the same rule and default limits as an
Office file sent natively), so a zip bomb is refused before anything is inflated:

- ``max_uncompressed_bytes`` (200 MiB): the sum of the entries' uncompressed sizes;
- ``max_compression_ratio`` (100): uncompressed / compressed size of any entry of 1 MiB or
  more (a text-heavy Office part compresses about 5-20:1; a bomb 1000:1);
- ``max_entries`` (10,000): the number of entries.

What a conversion drops is reported in ``ConvertedDocument.lost``: embedded images
(counted from the file's ``media/`` folder), embedded objects and charts.
"""

from __future__ import annotations

import io
import threading
import zipfile
from typing import Any

from doc_processing_toolkit.adapters.documents.detect import OLE_MIME, office_type
from doc_processing_toolkit.adapters.documents.pdf import DOCUMENTS_EXTRA_HINT
from doc_processing_toolkit.domain.documents import ConvertedDocument
from doc_processing_toolkit.domain.documents.archive import (
    MAX_COMPRESSION_RATIO,
    MAX_ENTRIES,
    MAX_UNCOMPRESSED_BYTES,
    ArchiveEntry,
    archive_problem,
)
from doc_processing_toolkit.domain.documents.kinds import (
    DOCX_MIME,
    HTML_MIME_TYPES,
    PPTX_MIME,
    XLSX_MIME,
)
from doc_processing_toolkit.domain.errors import DocumentError, MissingDependencyError

__all__ = ["MarkItDownConverter"]

_EXTENSIONS = {
    DOCX_MIME: ".docx",
    PPTX_MIME: ".pptx",
    XLSX_MIME: ".xlsx",
    **dict.fromkeys(HTML_MIME_TYPES, ".html"),
    "text/csv": ".csv",
}
_OFFICE_NAMES = {DOCX_MIME: "Word document", PPTX_MIME: "presentation", XLSX_MIME: "workbook"}
_MEDIA_FOLDERS = ("word/media/", "ppt/media/", "xl/media/")
_EMBEDDING_FOLDERS = ("word/embeddings/", "ppt/embeddings/", "xl/embeddings/")
_CHART_FOLDERS = ("word/charts/", "ppt/charts/", "xl/charts/")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf")


def _import_markitdown() -> Any:
    try:
        import markitdown
    except ImportError as exc:
        raise MissingDependencyError(
            "converting Office files and HTML to Markdown needs MarkItDown, from the "
            f"documents extra: {DOCUMENTS_EXTRA_HINT}"
        ) from exc
    return markitdown


class MarkItDownConverter:
    """Office files, HTML and CSV to Markdown with MarkItDown (the `DocumentConverter`
    port). One MarkItDown instance is made on the first conversion and reused;
    conversions run one at a time (thread-safe)."""

    name = "markitdown"

    def __init__(
        self,
        *,
        max_uncompressed_bytes: int = MAX_UNCOMPRESSED_BYTES,
        max_compression_ratio: float = MAX_COMPRESSION_RATIO,
        max_entries: int = MAX_ENTRIES,
    ) -> None:
        self.max_uncompressed_bytes = max_uncompressed_bytes
        self.max_compression_ratio = max_compression_ratio
        self.max_entries = max_entries
        self._engine: Any = None
        self._lock = threading.Lock()

    def accepts(self, mime_type: str) -> bool:
        """Word, PowerPoint and Excel (Office Open XML), HTML and CSV."""
        return mime_type.split(";", 1)[0].strip().lower() in _EXTENSIONS

    def convert(self, data: bytes, mime_type: str, name: str) -> ConvertedDocument:
        """The Markdown of ``data`` and what the conversion lost. Raises `DocumentError`
        naming ``name`` for an empty, corrupt, encrypted or oversized (zip bomb) file."""
        mime = mime_type.split(";", 1)[0].strip().lower()
        if not self.accepts(mime):
            raise DocumentError(
                f"{name}: {self.name} does not convert {mime_type!r} "
                f"(it converts {', '.join(sorted(_EXTENSIONS))})",
                document=name,
            )
        if not data:
            raise DocumentError(f"{name}: the file is empty (0 bytes)", document=name)
        lost: tuple[str, ...] = ()
        if mime in _OFFICE_NAMES:
            lost = self._check_office(data, mime, name)
        elif mime in HTML_MIME_TYPES:
            lost = _html_losses(data)
        markdown = self._markdown(data, mime, name)
        return ConvertedDocument(markdown=markdown, converter=self.name, lost=lost)

    # --- before converting: is this a real, reasonably sized Office file? ---

    def _check_office(self, data: bytes, mime: str, name: str) -> tuple[str, ...]:
        what = _OFFICE_NAMES[mime]
        if data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
            raise DocumentError(
                f"{name}: not an Office Open XML {what} but a Compound File ({OLE_MIME}): "
                "a password-protected Office file or a legacy .doc/.xls/.ppt; remove the "
                "password or save it as .docx/.xlsx/.pptx first",
                document=name,
            )
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                entries = archive.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise DocumentError(
                f"{name}: a corrupt {what}: not a readable zip ({exc})", document=name
            ) from exc
        problem = archive_problem(
            [ArchiveEntry(e.filename, e.file_size, e.compress_size) for e in entries],
            max_entries=self.max_entries,
            max_uncompressed_bytes=self.max_uncompressed_bytes,
            max_compression_ratio=self.max_compression_ratio,
        )
        if problem is not None:
            raise DocumentError(f"{name}: refused as a possible zip bomb: {problem}", document=name)
        if office_type(data) is None:
            raise DocumentError(
                f"{name}: a zip but not an Office Open XML {what} (no [Content_Types].xml "
                "naming a main part)",
                document=name,
            )
        return _office_losses([e.filename for e in entries])

    # --- the conversion ---

    def _markdown(self, data: bytes, mime: str, name: str) -> str:
        markitdown = _import_markitdown()
        info = markitdown.StreamInfo(
            mimetype=mime, extension=_EXTENSIONS[mime], filename=name or None
        )
        with self._lock:
            if self._engine is None:
                self._engine = markitdown.MarkItDown(enable_plugins=False)
            try:
                result = self._engine.convert_stream(io.BytesIO(data), stream_info=info)
            except Exception as exc:
                raise DocumentError(
                    f"{name}: {self.name} could not convert it: {_reason(exc)}", document=name
                ) from exc
        return str(result.markdown or "").strip()


def _office_losses(names: list[str]) -> tuple[str, ...]:
    images = sum(
        1 for n in names if n.startswith(_MEDIA_FOLDERS) and n.lower().endswith(_IMAGE_SUFFIXES)
    )
    other_media = sum(1 for n in names if n.startswith(_MEDIA_FOLDERS)) - images
    embedded = sum(1 for n in names if n.startswith(_EMBEDDING_FOLDERS))
    charts = sum(
        1
        for n in names
        if n.startswith(_CHART_FOLDERS) and n.count("/") == 2 and n.endswith(".xml")
    )
    lost = []
    for count, what in (
        (images, "embedded image"),
        (other_media, "embedded media file"),
        (embedded, "embedded object"),
        (charts, "chart"),
    ):
        if count:
            lost.append(f"{count} {what}{'s' if count != 1 else ''}")
    return tuple(lost)


def _html_losses(data: bytes) -> tuple[str, ...]:
    images = data.lower().count(b"<img")
    if not images:
        return ()
    return (f"{images} image{'s' if images != 1 else ''} (only a reference or alt text is kept)",)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    # MarkItDown's FileConversionException lists each converter's traceback: keep the
    # last line of the first (the error itself), not the whole stack.
    cause = exc.__cause__ or exc.__context__
    detail = text[-1] if text else type(exc).__name__
    if cause is not None and str(cause).strip():
        detail = f"{type(cause).__name__}: {str(cause).strip().splitlines()[-1]}"
    return detail.strip().lstrip("- ").strip()[:500]
