"""DocumentLibrary: page selections, the root's path rules, texts extracted once per
content, scanned pages read by OCR (the real RapidOCR) or named as unread, search."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from document_samples import docx_bytes, numbered_pdf, scanned_pdf

from doc_processing_toolkit import DocumentError
from doc_processing_toolkit.adapters.documents import (
    PypdfPages,
    default_converter,
    default_ocr,
)
from doc_processing_toolkit.adapters.documents.library import DocumentLibrary
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.domain.documents.pages import select_pages


@pytest.fixture
def five_pages(tmp_path: Path) -> DocumentLibrary:
    (tmp_path / "a.pdf").write_bytes(numbered_pdf(5))
    return DocumentLibrary(tmp_path)


def _pages_read(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"^--- page (\d+) ---", text, re.MULTILINE))


@pytest.mark.parametrize(
    ("spec", "pages"),
    [
        ("", (1, 2, 3, 4, 5)),
        ("2", (2,)),
        ("1-3,5", (1, 2, 3, 5)),
        (" 4 - 5 , 1 ", (1, 4, 5)),
        ("3,1-2,2", (1, 2, 3)),
    ],
)
def test_page_selections(five_pages: DocumentLibrary, spec: str, pages: tuple[int, ...]) -> None:
    assert _pages_read(five_pages.extract_text("a.pdf", spec)) == pages
    if spec:  # the same syntax, and the same pages, as Document(pages=...)
        assert select_pages(spec, document="a.pdf", page_count=5) == pages


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("0", "pages are numbered from 1"),
        ("30-10", "the range runs backwards (30 > 10)"),
        ("6", "page 6 is beyond the end: the document has 5 page(s)"),
        ("1-9", "page 6 is beyond the end"),
        ("1,,2", "an empty page selection"),
        ("first", "'first' is not a page or a range"),
        ("-3", "'-3' is not a page or a range"),
    ],
)
def test_bad_page_selections_name_the_document_as_document_pages_does(
    five_pages: DocumentLibrary, spec: str, problem: str
) -> None:
    with pytest.raises(DocumentError) as caught:
        five_pages.extract_text("a.pdf", spec)
    assert "'a.pdf'" in str(caught.value) and f"pages={spec!r}" in str(caught.value)
    assert problem in str(caught.value)
    with pytest.raises(DocumentError) as same:  # Document(pages=spec) on the same PDF
        Document(numbered_pdf(5), pages=spec, name="a.pdf").selection(5)
    assert str(caught.value) == str(same.value)


class CountingPages(PypdfPages):
    """The real adapter, counting how often page texts are extracted."""

    def __init__(self) -> None:
        super().__init__()
        self.extractions = 0

    def page_texts(self, data: bytes, name: str) -> tuple[str, ...]:
        self.extractions += 1
        return super().page_texts(data, name)


def test_texts_are_extracted_once_per_content(tmp_path: Path) -> None:
    pdf = numbered_pdf(4)
    (tmp_path / "a.pdf").write_bytes(pdf)
    (tmp_path / "copy-of-a.pdf").write_bytes(pdf)
    pages = CountingPages()
    library = DocumentLibrary(tmp_path, pdf_pages=pages)
    assert library.extract_text("a.pdf", "2") == "--- page 2 ---\nThis is page 2 of the contract."
    library.extract_text("a.pdf", "1-4")
    library.search("page 3")
    library.convert_to_markdown("copy-of-a.pdf")  # same bytes, another name
    assert pages.extractions == 1


def test_a_scanned_page_without_ocr_is_named_unread(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(scanned_pdf(["Text page", "Scanned page"], scanned=[2]))
    text = DocumentLibrary(tmp_path).extract_text("scan.pdf")
    assert text.startswith("--- page 1 ---\nText page\n\n--- page 2 ---\n[page 2 has no text")
    assert "doc-processing-toolkit[ocr]" in text


def test_a_scanned_page_is_read_by_ocr(tmp_path: Path) -> None:
    (tmp_path / "scan.pdf").write_bytes(
        scanned_pdf(["Typed cover", "Lease ends on 31 May 2027"], scanned=[2])
    )
    library = DocumentLibrary(tmp_path, ocr=default_ocr())
    text = library.extract_text("scan.pdf", "2")
    assert text.startswith("--- page 2 --- (read by rapidocr)\n")
    assert "Lease ends on 31 May 2027" in text
    assert library.search("31 may")["results"][0]["page"] == 2


def test_paths_leaving_the_root_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    (root / "inner.txt").write_text("inside")
    (root / "alias.txt").symlink_to(root / "inner.txt")  # a symlink that stays inside
    library = DocumentLibrary(root)
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt"):
        with pytest.raises(DocumentError, match="leads outside the served directory"):
            library.read(path)
    assert library.read("alias.txt")[1] == b"inside"
    assert [d["path"] for d in library.list_documents()] == ["alias.txt", "inner.txt"]
    for bad in ("", "a\x00b"):
        with pytest.raises(DocumentError, match="not a document path"):
            library.read(bad)


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 2000)
    with pytest.raises(DocumentError, match="2,000 bytes is over the 1,000-byte limit"):
        DocumentLibrary(tmp_path, max_bytes=1000).extract_text("big.txt")


def test_office_files_need_the_converter(tmp_path: Path) -> None:
    (tmp_path / "memo.docx").write_bytes(docx_bytes(["Quarterly memo"]))
    with pytest.raises(DocumentError, match=r"memo\.docx: converting .* needs MarkItDown"):
        DocumentLibrary(tmp_path).convert_to_markdown("memo.docx")
    library = DocumentLibrary(tmp_path, converter=default_converter())
    assert library.convert_to_markdown("memo.docx") == "Quarterly memo"
    with pytest.raises(DocumentError, match="only PDFs have pages"):
        library.extract_text("memo.docx", "1")


def test_search_skips_a_broken_document_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "good.pdf").write_bytes(numbered_pdf(2))
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 and then nothing")
    found = DocumentLibrary(tmp_path).search("PAGE 2")
    assert found["results"] == [
        {"path": "good.pdf", "page": 2, "snippet": "This is page 2 of the contract."}
    ]
    assert [s["path"] for s in found["skipped"]] == ["broken.pdf"]
    assert "corrupt PDF" in found["skipped"][0]["reason"]


def test_search_snippets_are_cut_around_the_match(tmp_path: Path) -> None:
    words = " ".join(f"w{i}" for i in range(100))
    (tmp_path / "long.txt").write_text(words + " NEEDLE " + words)
    [hit] = DocumentLibrary(tmp_path).search("needle")["results"]
    assert hit["snippet"].startswith("…") and hit["snippet"].endswith("…")
    assert "NEEDLE" in hit["snippet"] and len(hit["snippet"]) < 200


def test_the_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="not a directory"):
        DocumentLibrary(tmp_path / "nowhere")
