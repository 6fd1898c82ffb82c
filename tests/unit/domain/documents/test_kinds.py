"""document_kind: the one rule of which family a media type belongs to (used by Document.info,
the planner, document detection and the documents MCP server)."""

from __future__ import annotations

import pytest

from doc_processing_toolkit.domain.documents.kinds import (
    DOCX_MIME,
    PPTX_MIME,
    XLSX_MIME,
    document_kind,
    office_key,
)


@pytest.mark.parametrize(
    ("mime", "kind"),
    [
        ("application/pdf", "pdf"),
        ("APPLICATION/PDF", "pdf"),
        (DOCX_MIME, "office"),
        (f"{XLSX_MIME}; charset=binary", "office"),
        ("TEXT/HTML; charset=utf-8", "html"),
        ("application/xhtml+xml", "html"),
        ("text/markdown", "text"),
        ("application/json", "text"),
        ("application/xml", "text"),
        ("image/jpeg", "image"),
        ("audio/wav", "other"),
        ("application/zip", "other"),
    ],
)
def test_document_kind(mime: str, kind: str) -> None:
    assert document_kind(mime) == kind


def test_office_keys() -> None:
    assert [office_key(m) for m in (DOCX_MIME, PPTX_MIME, XLSX_MIME, "text/plain")] == [
        "docx",
        "pptx",
        "xlsx",
        None,
    ]
