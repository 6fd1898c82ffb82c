"""``on_unsupported_part="convert"``: a file the model cannot take, sent as what it can.

For a prompt part the row's ``input_types`` (or the wire format) does not take:

* an Office file (.docx, .pptx, .xlsx), HTML or another type the `DocumentConverter`
  accepts -> its Markdown, as text;
* a PDF -> its text layer, page by page (``PdfPages.page_texts``), each page headed with
  its ORIGINAL page number (through the part's `PageMap`). A page with no text layer (a
  scanned page) is, by this rule: sent as a rendered page image when the row takes images;
  else read by the `OcrEngine`; else reported lost (``lost``), never sent silently empty.

Each conversion is one ``AgentResult.converted_parts`` entry (name, from type, converter,
characters, lost, and which engine read which page). Conversions are cached by content
hash within the Agent. A conversion that fails is reported on its entry (``error``) and the
part is dropped; the other parts are unaffected.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.documents.kinds import PDF_MIME
from doc_processing_toolkit.domain.documents.page_map import PageMap
from doc_processing_toolkit.domain.errors import DocumentError, MissingDependencyError
from doc_processing_toolkit.domain.media import accepts_input_type
from doc_processing_toolkit.domain.messages import MediaPart, Part, TextPart
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.ports.document_converter import DocumentConverter, PdfPages
from doc_processing_toolkit.ports.ocr import OcrEngine

__all__ = ["ConversionCache", "RunConversions"]

_PNG = "image/png"


@dataclass(frozen=True, slots=True)
class _Converted:
    parts: tuple[Part, ...]
    record: dict[str, Any]


@dataclass(slots=True)
class ConversionCache:
    """The Agent's conversions by content hash (and the page map they were made with)."""

    entries: dict[tuple[str, str, tuple[int, ...]], _Converted] = field(default_factory=dict)


class RunConversions:
    """One run's converter: called by the media room for each part the model cannot take;
    ``records`` are the run's ``converted_parts``."""

    def __init__(
        self,
        *,
        row: ModelInfo | None,
        pdf_pages: PdfPages | None,
        converter: DocumentConverter | None,
        ocr: OcrEngine | None,
        cache: ConversionCache,
        page_maps: Mapping[int, PageMap],
        logger: logging.Logger,
    ) -> None:
        self.row = row
        self.pdf_pages = pdf_pages
        self.converter = converter
        self.ocr = ocr
        self.cache = cache
        self.page_maps = page_maps
        self.logger = logger
        self.records: list[dict[str, Any]] = []

    def __call__(self, index: int, part: MediaPart) -> list[Part] | None:
        """``part`` (at ``index`` in ``files``) as parts the model takes; None when it
        cannot be converted (the media room then drops it)."""
        name = part.filename or f"files[{index}]"
        data = part.data
        if data is None and part.path is not None:
            data = Path(part.path).read_bytes()
        if data is None or not self._converts(part.mime_type):
            return None
        page_map = self.page_maps.get(index)
        key = (hashlib.sha256(data).hexdigest(), part.mime_type, page_map.pages if page_map else ())
        cached = self.cache.entries.get(key)
        if cached is None:
            try:
                cached = self._convert(data, part.mime_type, name, page_map)
            except (DocumentError, MissingDependencyError) as exc:
                self.logger.warning("could not convert prompt part %d (%s): %s", index, name, exc)
                self.records.append(
                    {"index": index, "name": name, "from_type": part.mime_type, "error": str(exc)}
                )
                return None
            self.cache.entries[key] = cached
        else:
            cached = _Converted(cached.parts, {**cached.record, "cached": True})
        self.records.append({"index": index, **cached.record})
        if cached.record["lost"]:
            self.logger.warning(
                "converted prompt part %d (%s) lost: %s",
                index,
                name,
                "; ".join(cached.record["lost"]),
            )
        return list(cached.parts)

    def _converts(self, mime: str) -> bool:
        if mime == PDF_MIME:
            return self.pdf_pages is not None
        return self.converter is not None and self.converter.accepts(mime)

    def _convert(self, data: bytes, mime: str, name: str, page_map: PageMap | None) -> _Converted:
        if mime == PDF_MIME:
            assert self.pdf_pages is not None
            return self._pdf(data, name, page_map)
        assert self.converter is not None
        done = self.converter.convert(data, mime, name)
        text = _wrap(name, mime, done.converter, done.markdown)
        record = _record(name, mime, done.converter, len(done.markdown), done.lost)
        return _Converted((TextPart(text),), record)

    def _pdf(self, data: bytes, name: str, page_map: PageMap | None) -> _Converted:
        assert self.pdf_pages is not None
        texts = self.pdf_pages.page_texts(data, name)
        takes_images = self.row is not None and accepts_input_type(self.row.input_types, _PNG)
        blocks: list[str] = []
        images: list[Part] = []
        lost: list[str] = []
        ocr_pages: list[dict[str, Any]] = []
        image_pages: list[int] = []
        for sent, text in enumerate(texts, start=1):
            page = page_map.original(sent) if page_map is not None else sent
            if not text.strip():
                if takes_images:
                    png = self.pdf_pages.render_page(data, sent, name)
                    images.append(
                        MediaPart(mime_type=_PNG, data=png, filename=f"{name} p{page}.png")
                    )
                    image_pages.append(page)
                    text = f"(page {page} has no text layer: it is sent as the image that follows)"
                elif self.ocr is not None:
                    text = self.ocr.read(self.pdf_pages.render_page(data, sent, name), _PNG, name)
                    ocr_pages.append({"page": page, "engine": self.ocr.name})
                else:
                    lost.append(
                        f"page {page}: no text layer, and no OCR engine is installed (the ocr "
                        "extra)"
                    )
                    text = f"(page {page} has no text layer and could not be read)"
            blocks.append(f"## Page {page}\n\n{text.strip()}")
        markdown = "\n\n".join(blocks)
        converter = self.pdf_pages_name()
        record = _record(name, PDF_MIME, converter, len(markdown), tuple(lost))
        if ocr_pages:
            record["ocr"] = ocr_pages
        if image_pages:
            record["page_images"] = image_pages
        return _Converted((TextPart(_wrap(name, PDF_MIME, converter, markdown)), *images), record)

    def pdf_pages_name(self) -> str:
        """How a PDF's text layer is read, for the record (``"pypdf"`` for the default)."""
        return str(getattr(self.pdf_pages, "name", "pypdf"))


def _wrap(name: str, mime: str, converter: str, markdown: str) -> str:
    head = f'<document name="{name}" converted_from="{mime}" by="{converter}">'
    return f"{head}\n{markdown}\n</document>"


def _record(
    name: str, mime: str, converter: str, characters: int, lost: tuple[str, ...]
) -> dict[str, Any]:
    return {
        "name": name,
        "from_type": mime,
        "converter": converter,
        "characters": characters,
        "lost": list(lost),
    }
