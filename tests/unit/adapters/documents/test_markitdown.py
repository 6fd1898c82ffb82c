"""MarkItDownConverter with the real MarkItDown: Office files and HTML made in the test
become Markdown, losses are reported, and bad files (corrupt, encrypted, zip bombs) are
refused before MarkItDown opens them."""

from __future__ import annotations

import io
import sys
import zipfile

import pytest
from document_samples import docx_bytes, pptx_bytes, xlsx_bytes, zip_bomb_docx

from doc_processing_toolkit import DocumentError, MissingDependencyError
from doc_processing_toolkit.adapters.documents import default_converter
from doc_processing_toolkit.adapters.documents.markitdown import MarkItDownConverter
from doc_processing_toolkit.domain.documents.kinds import DOCX_MIME as DOCX
from doc_processing_toolkit.domain.documents.kinds import PPTX_MIME as PPTX
from doc_processing_toolkit.domain.documents.kinds import XLSX_MIME as XLSX
from doc_processing_toolkit.ports.document_converter import DocumentConverter


@pytest.fixture(scope="module")
def converter() -> MarkItDownConverter:
    return MarkItDownConverter()  # one MarkItDown for the module: it loads a model once


def test_the_default_converter_is_markitdown() -> None:
    found = default_converter()
    assert isinstance(found, DocumentConverter)
    assert found.name == "markitdown"


def test_a_docx_body_reaches_the_markdown(converter: MarkItDownConverter) -> None:
    """Guards the known break: MarkItDown 0.1.9 with lxml 6.2.0 converts no .docx ("Could
    not find the body element"); the documents extra caps lxml below 6.2."""
    data = docx_bytes(["Master services agreement", "The fee is 1,200 EUR per month."])
    converted = converter.convert(data, DOCX, "contract.docx")
    assert "Master services agreement" in converted.markdown
    assert "The fee is 1,200 EUR per month." in converted.markdown
    assert converted.converter == "markitdown"
    assert converted.lost == ()


def test_embedded_images_are_reported_as_lost(converter: MarkItDownConverter) -> None:
    converted = converter.convert(docx_bytes(["Report"], images=3), DOCX, "report.docx")
    assert "Report" in converted.markdown
    assert converted.lost == ("3 embedded images",)


def test_a_pptx_becomes_markdown_with_its_lost_picture(converter: MarkItDownConverter) -> None:
    converted = converter.convert(
        pptx_bytes(["Quarterly results", "Next steps"], images=1), PPTX, "deck.pptx"
    )
    assert "Quarterly results" in converted.markdown
    assert "Next steps" in converted.markdown
    assert converted.lost == ("1 embedded image",)


def test_an_xlsx_becomes_a_markdown_table(converter: MarkItDownConverter) -> None:
    data = xlsx_bytes([["item", "amount"], ["rent", 1200], ["power", 85]], sheet="Costs")
    markdown = converter.convert(data, XLSX, "costs.xlsx").markdown
    assert "Costs" in markdown
    assert "| rent | 1200 |" in markdown


def test_html_becomes_markdown(converter: MarkItDownConverter) -> None:
    html = b"<html><body><h1>Notice</h1><p>Rent is due.</p><img src='logo.png'></body></html>"
    converted = converter.convert(html, "text/html; charset=utf-8", "notice.html")
    assert "# Notice" in converted.markdown
    assert "Rent is due." in converted.markdown
    assert converted.lost == ("1 image (only a reference or alt text is kept)",)


def test_accepts_office_html_and_csv_only(converter: MarkItDownConverter) -> None:
    assert all(converter.accepts(m) for m in (DOCX, PPTX, XLSX, "text/html", "text/csv"))
    assert not converter.accepts("application/pdf")
    with pytest.raises(DocumentError, match=r"scan\.pdf: markitdown does not convert"):
        converter.convert(b"%PDF-1.4", "application/pdf", "scan.pdf")


def test_a_zip_bomb_is_refused_before_converting(converter: MarkItDownConverter) -> None:
    bomb = zip_bomb_docx(uncompressed_mb=300)
    assert len(bomb) < 2 * 1024 * 1024
    with pytest.raises(DocumentError, match=r"bomb\.docx: refused as a possible zip bomb") as e:
        converter.convert(bomb, DOCX, "bomb.docx")
    assert "300.0 MiB" in str(e.value)
    assert e.value.document == "bomb.docx"


def test_a_highly_compressed_entry_is_refused_under_the_size_limit() -> None:
    bomb = zip_bomb_docx(uncompressed_mb=20)  # under 200 MB, but ~1000:1
    with pytest.raises(DocumentError, match=r"word/document\.xml inflates [\d,]+:1"):
        MarkItDownConverter().convert(bomb, DOCX, "small-bomb.docx")


def test_the_limits_are_settable() -> None:
    small = MarkItDownConverter(max_uncompressed_bytes=1000)
    with pytest.raises(DocumentError, match=r"the limit is 0\.0 MiB"):
        small.convert(docx_bytes(["x" * 5000]), DOCX, "big.docx")


def test_too_many_entries_is_refused() -> None:
    with pytest.raises(DocumentError, match="entries"):
        MarkItDownConverter(max_entries=3).convert(docx_bytes(["a"], images=5), DOCX, "m.docx")


def test_a_corrupt_docx_is_refused_naming_it(converter: MarkItDownConverter) -> None:
    with pytest.raises(DocumentError, match=r"broken\.docx: a corrupt Word document"):
        converter.convert(b"PK\x03\x04 not really a zip", DOCX, "broken.docx")


def test_a_zip_that_is_no_office_file_is_refused(converter: MarkItDownConverter) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(DocumentError, match=r"notes\.docx: a zip but not an Office Open XML"):
        converter.convert(out.getvalue(), DOCX, "notes.docx")


def test_an_encrypted_office_file_is_refused(converter: MarkItDownConverter) -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    with pytest.raises(DocumentError, match=r"locked\.docx: .*password-protected"):
        converter.convert(ole, DOCX, "locked.docx")


def test_a_docx_markitdown_cannot_read_is_a_document_error(
    converter: MarkItDownConverter,
) -> None:
    data = docx_bytes(["x"])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            body = source.read(entry)
            if entry.filename == "word/document.xml":
                body = b"<w:document><not closed"
            target.writestr(entry, body)
    with pytest.raises(DocumentError, match=r"garbled\.docx: markitdown could not convert"):
        converter.convert(out.getvalue(), DOCX, "garbled.docx")


def test_an_empty_file_is_refused(converter: MarkItDownConverter) -> None:
    with pytest.raises(DocumentError, match=r"empty\.docx: the file is empty"):
        converter.convert(b"", DOCX, "empty.docx")


def test_without_the_documents_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "markitdown", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r"doc-processing-toolkit\[documents\]"):
        MarkItDownConverter().convert(docx_bytes(["x"]), DOCX, "x.docx")
