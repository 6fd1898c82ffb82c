"""detect_document: a document's kind and media type from its bytes, the name only as the
fallback."""

from __future__ import annotations

import io
import zipfile

import pytest
from document_samples import docx_bytes, pptx_bytes, text_pdf, xlsx_bytes

from doc_processing_toolkit.adapters.documents.detect import OLE_MIME, DetectedType, detect_document
from doc_processing_toolkit.domain.documents.kinds import DOCX_MIME as DOCX
from doc_processing_toolkit.domain.documents.kinds import PPTX_MIME as PPTX
from doc_processing_toolkit.domain.documents.kinds import XLSX_MIME as XLSX

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


@pytest.mark.parametrize(
    ("data", "name", "kind", "mime"),
    [
        (text_pdf(["x"]), "renamed.txt", "pdf", "application/pdf"),
        (docx_bytes(["x"]), "no-extension", "office", DOCX),
        (xlsx_bytes([["a"]]), "sheet.bin", "office", XLSX),
        (PNG, "picture", "image", "image/png"),
        (b"<!DOCTYPE html><html><body>x</body></html>", "page", "html", "text/html"),
        (b"\xef\xbb\xbf  <html lang=en>", "", "html", "text/html"),
        (b"# Title\n\nSome notes.", "notes.md", "text", "text/markdown"),
        (b"a,b\n1,2\n", "table.csv", "text", "text/csv"),
        (b"plain words", "", "text", "text/plain"),
        (b"\x00\x01\x02binary", "", "other", "application/octet-stream"),
        (b"", "empty.docx", "office", DOCX),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "old.doc", "other", OLE_MIME),
    ],
)
def test_detects_kind_and_type(data: bytes, name: str, kind: str, mime: str) -> None:
    detected = detect_document(data, name)
    assert (detected.kind, detected.mime_type) == (kind, mime)


def test_a_pptx_is_told_by_its_main_part() -> None:
    assert detect_document(pptx_bytes(["Slide"]), "deck").mime_type == PPTX


def test_a_zip_with_a_word_folder_but_no_content_types_is_no_office_file() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/notes.txt", "not a document")
    assert detect_document(out.getvalue(), "x.zip").mime_type == "application/zip"


def test_a_pdf_header_after_leading_bytes_is_a_pdf() -> None:
    assert detect_document(b"\r\n\r\n" + text_pdf(["x"]), "scan").kind == "pdf"


def test_a_json_file_is_text() -> None:
    assert detect_document(b'{"a": 1}', "data.json") == DetectedType("text", "application/json")
