"""PypdfPages: page counts and text layers, cuts, page images and bad PDFs, on PDFs made
in the test (tests/document_samples.py) and read back with the real pypdf and pypdfium2."""

from __future__ import annotations

import io
import struct
import sys
import zlib

import pypdf
import pytest
from document_samples import encrypted_pdf, numbered_pdf, scanned_pdf, text_pdf

from doc_processing_toolkit import DocumentError, MissingDependencyError
from doc_processing_toolkit.adapters.documents import PypdfPages, default_pdf_pages
from doc_processing_toolkit.ports.document_converter import PdfPages


def _texts(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def test_it_implements_the_port() -> None:
    assert isinstance(default_pdf_pages(), PdfPages)


def test_info_counts_pages_and_tells_text_pages_from_scanned_ones() -> None:
    pdf = scanned_pdf(["Cover letter", "A scanned invoice", "Terms"], scanned=[2])
    info = PypdfPages().info(pdf, "mixed.pdf")
    assert (info.kind, info.mime_type, info.bytes, info.pages) == (
        "pdf",
        "application/pdf",
        len(pdf),
        3,
    )
    assert info.text_pages == (1, 3)
    assert info.image_only_pages == (2,)


def test_page_texts_in_page_order_with_an_empty_string_for_a_scanned_page() -> None:
    pdf = scanned_pdf(["first page", "second page", "third page"], scanned=[3])
    assert PypdfPages().page_texts(pdf, "a.pdf") == ("first page", "second page", "")


def test_a_whitespace_only_page_has_no_text_layer() -> None:
    info = PypdfPages().info(text_pdf(["words", "   "]), "blank.pdf")
    assert info.image_only_pages == (2,)


def test_cut_keeps_the_pages_asked_for_in_the_order_given() -> None:
    pdf = numbered_pdf(10)
    cut = PypdfPages().cut(pdf, [7, 2, 3], "ten.pdf")
    assert _texts(cut) == [
        "This is page 7 of the contract.",
        "This is page 2 of the contract.",
        "This is page 3 of the contract.",
    ]


def test_chunks_of_one_document_parse_it_once() -> None:
    pdf = numbered_pdf(300)
    pages = PypdfPages()
    pages.info(pdf, "long.pdf")
    parsed = pages._parsed(pdf, "long.pdf")
    chunks = [pages.cut(pdf, range(start, start + 100), "long.pdf") for start in (1, 101, 201)]
    assert pages._parsed(pdf, "long.pdf") is parsed
    assert pages._parsed(bytes(pdf), "long.pdf") is parsed  # same content, another object
    assert [len(pypdf.PdfReader(io.BytesIO(c)).pages) for c in chunks] == [100, 100, 100]
    assert _texts(chunks[2])[0] == "This is page 201 of the contract."
    # A chunk carries only its pages: far smaller than the whole.
    assert all(len(c) < len(pdf) / 2 for c in chunks)


@pytest.mark.parametrize("page", [0, 4, -1])
def test_a_page_outside_the_document_is_refused_naming_it(page: int) -> None:
    with pytest.raises(DocumentError, match=rf"three\.pdf: page {page} is outside") as caught:
        PypdfPages().cut(text_pdf(["a", "b", "c"]), [1, page], "three.pdf")
    assert "it has 3 pages" in str(caught.value)
    assert caught.value.document == "three.pdf"


def test_render_beyond_the_end_is_refused() -> None:
    with pytest.raises(DocumentError, match="page 2 is outside"):
        PypdfPages().render_page(text_pdf(["only"]), 2, "one.pdf")


def test_an_empty_cut_is_refused() -> None:
    with pytest.raises(DocumentError, match="no page to cut"):
        PypdfPages().cut(text_pdf(["a"]), [], "a.pdf")


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(DocumentError, match=r"empty\.pdf: the file is empty \(0 bytes\)"):
        PypdfPages().info(b"", "empty.pdf")


def test_bytes_that_are_not_a_pdf_are_refused() -> None:
    with pytest.raises(DocumentError, match=r"notes\.pdf: not a PDF"):
        PypdfPages().info(b"just some text, renamed to .pdf", "notes.pdf")


def test_a_corrupt_pdf_is_refused_naming_it() -> None:
    pdf = numbered_pdf(5)
    corrupt = pdf[:200] + b"garbage" * 20  # the header survives, the rest is gone
    with pytest.raises(DocumentError, match=r"broken\.pdf: a corrupt PDF") as caught:
        PypdfPages().info(corrupt, "broken.pdf")
    assert caught.value.document == "broken.pdf"


def test_an_encrypted_pdf_is_refused() -> None:
    with pytest.raises(DocumentError, match=r"locked\.pdf: the PDF is encrypted with a password"):
        PypdfPages().info(encrypted_pdf(["secret terms"]), "locked.pdf")


def test_an_encrypted_pdf_with_an_empty_password_opens() -> None:
    pdf = encrypted_pdf(["readable terms"], user_password="")
    pages = PypdfPages()
    assert pages.page_texts(pdf, "restricted.pdf") == ("readable terms",)
    assert _texts(pages.cut(pdf, [1], "restricted.pdf")) == ["readable terms"]


def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_render_page_gives_a_png_at_the_dpi_asked() -> None:
    pdf = text_pdf(["Rendered words"])
    png = PypdfPages().render_page(pdf, 1, "r.pdf", dpi=72)
    assert _png_size(png) == (612, 792)  # US Letter at 72 dpi
    assert _png_size(PypdfPages().render_page(pdf, 1, "r.pdf", dpi=144)) == (1224, 1584)


def test_a_rendered_page_shows_its_text() -> None:
    """Dark pixels where the text is and none on a blank page: the PNG is a real picture."""
    pages = PypdfPages()

    def dark_pixels(pdf: bytes) -> int:
        png = pages.render_page(pdf, 1, "p.pdf", dpi=36)
        width, height = _png_size(png)
        body = png[33:]
        idat = b""
        while body:
            length = struct.unpack(">I", body[:4])[0]
            if body[4:8] == b"IDAT":
                idat += body[8 : 8 + length]
            body = body[12 + length :]
        raw = zlib.decompress(idat)
        stride = 1 + width * 3
        assert len(raw) == stride * height
        return sum(
            1 for row in range(height) for x in range(width) if raw[row * stride + 1 + x * 3] < 128
        )

    assert dark_pixels(text_pdf(["A line of black text on the page"])) > 20
    assert dark_pixels(text_pdf([""])) == 0


def test_a_dpi_out_of_range_is_refused() -> None:
    with pytest.raises(DocumentError, match="dpi=0"):
        PypdfPages().render_page(text_pdf(["x"]), 1, "x.pdf", dpi=0)


def test_without_the_documents_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if pypdf were not installed
    with pytest.raises(MissingDependencyError, match=r"doc-processing-toolkit\[documents\]"):
        PypdfPages().info(text_pdf(["x"]), "x.pdf")


def test_chunks_cut_from_threads_at_once_are_each_right() -> None:
    """run_document cuts chunks concurrently: one adapter, one document, eight threads."""
    from concurrent.futures import ThreadPoolExecutor

    pdf = numbered_pdf(80)
    pages = PypdfPages()
    starts = list(range(1, 81, 10))
    with ThreadPoolExecutor(max_workers=8) as pool:
        cuts = list(pool.map(lambda s: pages.cut(pdf, range(s, s + 10), "t.pdf"), starts))
    for start, cut in zip(starts, cuts, strict=True):
        texts = _texts(cut)
        assert texts[0] == f"This is page {start} of the contract."
        assert texts[-1] == f"This is page {start + 9} of the contract."
