"""Document adapters: pypdf and pypdfium2 (`PypdfPages`), MarkItDown
(`MarkItDownConverter`) and RapidOCR (`RapidOcrEngine`), behind the ports in
``ports/document_converter.py`` and ``ports/ocr.py``.

The libraries are optional (the ``documents`` and ``ocr`` extras) and imported when first
used. The factories below are what the composition root calls: ``default_converter()`` and
``default_ocr()`` give None when their extra is not installed, so the application can report
the document (or page) as not convertible instead of failing at construction.
"""

from __future__ import annotations

from doc_processing_toolkit.adapters.documents.pdf import DOCUMENTS_EXTRA_HINT, PypdfPages
from doc_processing_toolkit.ports.document_converter import PdfPages

__all__ = [
    "DOCUMENTS_EXTRA_HINT",
    "PypdfPages",
    "default_pdf_pages",
]


def default_pdf_pages() -> PdfPages:
    """The PDF reader, cutter and renderer (pypdf + pypdfium2). Its methods raise
    `MissingDependencyError` naming the ``documents`` extra when it is not installed."""
    return PypdfPages()
