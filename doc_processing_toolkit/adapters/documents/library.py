"""DocumentLibrary: the documents under one directory, read through the document adapters.

What the documents MCP server (``doc_processing_toolkit.documents.mcp_server``) serves:
listing, facts, page texts, Markdown and search over the files under ``root``. Every path
is resolved (symlinks included) and refused unless it stays inside ``root``; hidden files
and folders (a name starting with ``.``) are neither listed nor served.

Page texts are extracted once per document content (a SHA-256 of the bytes) and kept in a
bounded cache, so a search after an ``extract_text`` reads nothing again. Scanned pages are
read by the OCR engine when one is given, else named as unread, never silently empty.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doc_processing_toolkit.adapters.documents.detect import DetectedType, detect_document
from doc_processing_toolkit.adapters.documents.pdf import PypdfPages
from doc_processing_toolkit.domain.documents import ConvertedDocument
from doc_processing_toolkit.domain.documents.kinds import (
    DOCX_MIME,
    PPTX_MIME,
    XLSX_MIME,
    document_kind,
)
from doc_processing_toolkit.domain.documents.pages import select_pages
from doc_processing_toolkit.domain.errors import DocumentError
from doc_processing_toolkit.ports.document_converter import DocumentConverter, PdfPages
from doc_processing_toolkit.ports.ocr import OcrEngine

__all__ = ["DEFAULT_MAX_BYTES", "DocumentLibrary", "PageText"]

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""The largest file the library reads (a larger one is refused, naming its size)."""
_MAX_LISTED = 10_000
_CACHED_TEXTS = 256
_SNIPPET = 80
_NAME_TYPES = {".docx": DOCX_MIME, ".pptx": PPTX_MIME, ".xlsx": XLSX_MIME}


@dataclass(frozen=True, slots=True)
class PageText:
    """The text of one page (``page`` is None for a document without pages), and who read
    it: ``"pypdf"`` (the text layer), the OCR engine's name, or the converter's."""

    page: int | None
    text: str
    source: str


class DocumentLibrary:
    """The documents under ``root``.

    Args:
        root: The directory served; nothing outside it is ever read.
        pdf_pages: Reads PDFs (default: pypdf, `PypdfPages`).
        converter: Converts Office files and HTML to Markdown (MarkItDown), or None.
        ocr: Reads scanned pages and images, or None (they are then reported unread).
        max_bytes: The largest file read.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        pdf_pages: PdfPages | None = None,
        converter: DocumentConverter | None = None,
        ocr: OcrEngine | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        resolved = Path(root).expanduser().resolve()
        if not resolved.is_dir():
            raise DocumentError(f"{root}: not a directory", document=str(root))
        self.root = resolved
        self.pdf_pages = pdf_pages if pdf_pages is not None else PypdfPages()
        self.converter = converter
        self.ocr = ocr
        self.max_bytes = max_bytes
        self._texts: OrderedDict[str, tuple[PageText, ...]] = OrderedDict()
        self._lock = threading.Lock()

    # --- paths ---

    def resolve(self, path: str) -> Path:
        """The file ``path`` (relative to the root) names, refused unless it, with every
        symlink resolved, is a visible file inside the root."""
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            raise DocumentError(f"{path!r}: not a document path", document=str(path))
        candidate = (self.root / path).resolve()
        if not candidate.is_relative_to(self.root):
            raise DocumentError(
                f"{path}: refused: the path leads outside the served directory "
                "(only files under --root are served; symlinks are followed and checked)",
                document=path,
            )
        relative = candidate.relative_to(self.root)
        if any(part.startswith(".") for part in relative.parts):
            raise DocumentError(f"{path}: refused: hidden files are not served", document=path)
        if not candidate.is_file():
            raise DocumentError(f"{path}: no such document under the root", document=path)
        return candidate

    def relative(self, path: Path) -> str:
        """``path`` as the library names it: relative to the root, with ``/``."""
        return path.relative_to(self.root).as_posix()

    def files(self) -> Iterator[Path]:
        """The visible files under the root, in name order (at most 10,000), each inside
        the root once resolved (a symlink out of it is skipped)."""
        listed = 0
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if name.startswith("."):
                    continue
                path = Path(folder) / name
                resolved = path.resolve()
                if not resolved.is_relative_to(self.root) or not resolved.is_file():
                    continue
                yield path
                listed += 1
                if listed >= _MAX_LISTED:
                    return

    # --- reading ---

    def read(self, path: str) -> tuple[Path, bytes]:
        """The file and its bytes (refused past ``max_bytes``)."""
        file = self.resolve(path)
        size = file.stat().st_size
        if size > self.max_bytes:
            raise DocumentError(
                f"{path}: {size:,} bytes is over the {self.max_bytes:,}-byte limit of this server",
                document=path,
            )
        return file, file.read_bytes()

    def detect(self, data: bytes, name: str) -> DetectedType:
        """The document's type; a zip that does not open as Office is named by its
        extension (a cut-off head, or a damaged file the converter will name)."""
        detected = detect_document(data, name)
        if detected.mime_type == "application/zip":
            by_name = _NAME_TYPES.get(Path(name).suffix.lower())
            if by_name is not None:
                return DetectedType(document_kind(by_name), by_name)
        return detected

    def list_documents(self) -> list[dict[str, Any]]:
        """Every visible file: path, kind, media type and size (the type read from the
        file's first bytes and its name)."""
        listed = []
        for file in self.files():
            with file.open("rb") as handle:
                head = handle.read(8192)
            detected = self.detect(head, file.name)
            listed.append(
                {
                    "path": self.relative(file),
                    "kind": detected.kind,
                    "mime_type": detected.mime_type,
                    "bytes": file.stat().st_size,
                }
            )
        return listed

    def info(self, path: str) -> dict[str, Any]:
        """A document's facts: kind, type, size and, for a PDF, its pages and which of them
        are scanned (no text layer)."""
        file, data = self.read(path)
        detected = self.detect(data, file.name)
        facts: dict[str, Any] = {
            "path": self.relative(file),
            "kind": detected.kind,
            "mime_type": detected.mime_type,
            "bytes": len(data),
            "pages": None,
        }
        if detected.kind == "pdf":
            info = self.pdf_pages.info(data, path)
            facts.update(
                pages=info.pages,
                text_pages=list(info.text_pages),
                image_only_pages=list(info.image_only_pages),
            )
        return facts

    def page_texts(self, path: str) -> tuple[PageText, ...]:
        """The text of every page (one entry for a document without pages), extracted once
        per content."""
        file, data = self.read(path)
        return self._texts_of(data, file.name, path)

    def extract_text(self, path: str, pages: str = "") -> str:
        """The text of the selected pages, each under a ``--- page N ---`` header with its
        original page number (PDFs); a document without pages is one text."""
        texts = self.page_texts(path)
        if texts and texts[0].page is None:
            if pages.strip():
                raise DocumentError(
                    f"{path}: pages={pages!r}: only PDFs have pages; leave pages empty",
                    document=path,
                )
            return texts[0].text
        chosen = (
            select_pages(pages, document=path, page_count=len(texts))
            if pages.strip()
            else range(1, len(texts) + 1)
        )
        return "\n\n".join(_page_block(texts[page - 1]) for page in chosen)

    def convert_to_markdown(self, path: str) -> str:
        """The document as Markdown: a PDF's pages under page headers, an Office file or
        HTML through the converter (what it lost noted at the end), text as it is."""
        file, data = self.read(path)
        detected = self.detect(data, file.name)
        if detected.kind in ("office", "html"):
            converted = self._convert(data, detected, path)
            lost = f"\n\n<!-- not converted: {'; '.join(converted.lost)} -->"
            return converted.markdown + (lost if converted.lost else "")
        texts = self._texts_of(data, file.name, path)
        if texts and texts[0].page is None:
            return texts[0].text
        return "\n\n".join(_page_block(text) for text in texts)

    def search(self, query: str, *, max_results: int = 50) -> dict[str, Any]:
        """Where ``query`` occurs (case-insensitive), document by document and page by
        page: path, page (None for a document without pages) and a snippet around it.
        Documents that cannot be read are listed under ``skipped`` with the reason."""
        needle = " ".join(query.split()).casefold()
        if not needle:
            raise DocumentError("search: the query is empty", document="search")
        results: list[dict[str, Any]] = []
        skipped: list[dict[str, str]] = []
        for file in self.files():
            name = self.relative(file)
            try:
                texts = self.page_texts(name)
            except DocumentError as exc:
                skipped.append({"path": name, "reason": str(exc)})
                continue
            for text in texts:
                flat = " ".join(text.text.split())
                start = flat.casefold().find(needle)
                while start >= 0 and len(results) < max_results:
                    results.append(
                        {
                            "path": name,
                            "page": text.page,
                            "snippet": _snip(flat, start, len(needle)),
                        }
                    )
                    start = flat.casefold().find(needle, start + len(needle))
            if len(results) >= max_results:
                break
        return {"query": query, "results": results, "skipped": skipped}

    # --- text, once per content ---

    def _texts_of(self, data: bytes, filename: str, name: str) -> tuple[PageText, ...]:
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            cached = self._texts.get(digest)
            if cached is not None:
                self._texts.move_to_end(digest)
                return cached
        texts = self._extract(data, self.detect(data, filename), name)
        with self._lock:
            self._texts[digest] = texts
            while len(self._texts) > _CACHED_TEXTS:
                self._texts.popitem(last=False)
        return texts

    def _extract(self, data: bytes, detected: DetectedType, name: str) -> tuple[PageText, ...]:
        if detected.kind == "pdf":
            layers = self.pdf_pages.page_texts(data, name)
            return tuple(
                PageText(number, text, "pypdf")
                if text.strip()
                else self._scanned_page(data, number, name)
                for number, text in enumerate(layers, start=1)
            )
        if detected.kind in ("office", "html"):
            converted = self._convert(data, detected, name)
            return (PageText(None, converted.markdown, converted.converter),)
        if detected.kind == "image":
            if self.ocr is None:
                raise DocumentError(
                    f"{name}: an image; reading its text needs OCR: "
                    "pip install 'doc-processing-toolkit[ocr]'",
                    document=name,
                )
            return (PageText(None, self.ocr.read(data, detected.mime_type, name), self.ocr.name),)
        if detected.kind == "text":
            return (PageText(None, data.decode("utf-8", errors="replace"), "text"),)
        raise DocumentError(
            f"{name}: {detected.mime_type} is not a document this server reads (PDF, Office, "
            "HTML, text, images)",
            document=name,
        )

    def _scanned_page(self, data: bytes, page: int, name: str) -> PageText:
        if self.ocr is None:
            return PageText(
                page,
                f"[page {page} has no text layer (a scanned page) and was not read: OCR "
                "needs pip install 'doc-processing-toolkit[ocr]']",
                "none",
            )
        image = self.pdf_pages.render_page(data, page, name)
        return PageText(
            page, self.ocr.read(image, "image/png", f"{name} page {page}"), self.ocr.name
        )

    def _convert(self, data: bytes, detected: DetectedType, name: str) -> ConvertedDocument:
        if self.converter is None or not self.converter.accepts(detected.mime_type):
            raise DocumentError(
                f"{name}: converting {detected.mime_type} needs MarkItDown: "
                "pip install 'doc-processing-toolkit[documents]'",
                document=name,
            )
        return self.converter.convert(data, detected.mime_type, name)


def _page_block(text: PageText) -> str:
    read_by = f" (read by {text.source})" if text.source not in ("pypdf", "none") else ""
    return f"--- page {text.page} ---{read_by}\n{text.text}"


def _snip(flat: str, start: int, length: int) -> str:
    left = max(0, start - _SNIPPET)
    right = min(len(flat), start + length + _SNIPPET)
    return ("…" if left else "") + flat[left:right] + ("…" if right < len(flat) else "")
