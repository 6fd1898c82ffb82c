"""RapidOcrEngine with the real RapidOCR on onnxruntime and its shipped models: a scanned
page (a text page rendered to a picture and wrapped in a PDF, with no text layer) is read
back. No network: the suite refuses any non-loopback connect, and no model is fetched."""

from __future__ import annotations

import sys

import pytest
from document_samples import scanned_pdf

from doc_processing_toolkit import DocumentError, MissingDependencyError
from doc_processing_toolkit.adapters.documents import PypdfPages, default_ocr
from doc_processing_toolkit.adapters.documents.rapidocr import RapidOcrEngine, shipped_models
from doc_processing_toolkit.ports.ocr import OcrEngine


@pytest.fixture(scope="module")
def engine() -> RapidOcrEngine:
    return RapidOcrEngine()  # the models load once, on the first read


def test_the_default_ocr_is_rapidocr() -> None:
    found = default_ocr()
    assert isinstance(found, OcrEngine)
    assert found.name == "rapidocr"


def test_the_models_ship_with_the_package() -> None:
    models = shipped_models()
    assert set(models) == {"Det", "Rec", "Cls"}
    assert all(path.is_file() and path.stat().st_size > 100_000 for path in models.values())


def test_a_scanned_page_is_read(engine: RapidOcrEngine) -> None:
    pdf = scanned_pdf(
        ["Cover page", "Invoice 2041 total 1,250 EUR\nPaid by Acme Corp"], scanned=[2]
    )
    pages = PypdfPages()
    assert pages.info(pdf, "scan.pdf").image_only_pages == (2,)
    image = pages.render_page(pdf, 2, "scan.pdf", dpi=120)
    text = engine.read(image, "image/png", "scan.pdf page 2")
    lines = text.splitlines()
    assert len(lines) == 2
    assert "Invoice 2041" in lines[0]
    assert "1,250 EUR" in lines[0]
    assert "Acme Corp" in lines[1]


@pytest.mark.parametrize("dpi", [100, 150, 200])
def test_a_short_line_on_a_whole_page_is_found_at_any_dpi(engine: RapidOcrEngine, dpi: int) -> None:
    """RapidOCR's shipped detection settings (the image at full size) miss this line at 150
    dpi and above; the adapter detects on the page scaled to 960 px."""
    pdf = scanned_pdf(["Scanned terms"], scanned=[1])
    image = PypdfPages().render_page(pdf, 1, "short.pdf", dpi=dpi)
    assert engine.read(image, "image/png", "short.pdf") == "Scanned terms"


def test_a_page_without_text_reads_as_empty(engine: RapidOcrEngine) -> None:
    blank = PypdfPages().render_page(scanned_pdf([""], scanned=[1]), 1, "blank.pdf", dpi=50)
    assert engine.read(blank, "image/png", "blank.pdf") == ""


def test_bytes_that_are_no_image_are_a_document_error(engine: RapidOcrEngine) -> None:
    with pytest.raises(DocumentError, match=r"junk\.png: rapidocr could not read the image"):
        engine.read(b"not an image at all", "image/png", "junk.png")


def test_an_empty_image_or_a_non_image_type_is_refused(engine: RapidOcrEngine) -> None:
    with pytest.raises(DocumentError, match=r"empty\.png: the image is empty"):
        engine.read(b"", "image/png", "empty.png")
    with pytest.raises(DocumentError, match="not 'application/pdf'"):
        engine.read(b"%PDF-1.4", "application/pdf", "doc.pdf")


def test_without_the_ocr_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if it were not installed
    assert default_ocr() is None
    with pytest.raises(MissingDependencyError, match=r"doc-processing-toolkit\[ocr\]"):
        RapidOcrEngine().read(b"\x89PNG", "image/png", "p.png")
