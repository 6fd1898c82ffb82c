"""Document adapters: pypdf and pypdfium2 (`PypdfPages`), MarkItDown
(`MarkItDownConverter`) and RapidOCR (`RapidOcrEngine`), behind the ports in
``ports/document_converter.py`` and ``ports/ocr.py``.

The libraries are optional (the ``documents`` and ``ocr`` extras) and imported when first
used. The factories below are what the composition root calls: ``default_converter()`` and
``default_ocr()`` give None when their extra is not installed, so the application can report
the document (or page) as not convertible instead of failing at construction.
"""

from __future__ import annotations

import importlib.util

from doc_processing_toolkit.adapters.documents.pdf import DOCUMENTS_EXTRA_HINT, PypdfPages
from doc_processing_toolkit.ports.document_converter import DocumentConverter, PdfPages
from doc_processing_toolkit.ports.ocr import OcrEngine

__all__ = [
    "DOCUMENTS_EXTRA_HINT",
    "PypdfPages",
    "default_converter",
    "default_ocr",
    "default_pdf_pages",
]


def default_pdf_pages() -> PdfPages:
    """The PDF reader, cutter and renderer (pypdf + pypdfium2). Its methods raise
    `MissingDependencyError` naming the ``documents`` extra when it is not installed."""
    return PypdfPages()


def default_converter() -> DocumentConverter | None:
    """MarkItDown, or None when the ``documents`` extra (markitdown) is not installed."""
    if importlib.util.find_spec("markitdown") is None:
        return None
    from doc_processing_toolkit.adapters.documents.markitdown import MarkItDownConverter

    return MarkItDownConverter()


def default_ocr() -> OcrEngine | None:
    """RapidOCR on onnxruntime, or None when the ``ocr`` extra is not installed."""
    from doc_processing_toolkit.adapters.documents.rapidocr import RapidOcrEngine, ocr_available

    return RapidOcrEngine() if ocr_available() else None
