"""``dpt run --file X.pdf --pages SPEC``: only the selected pages of each PDF are sent (a
Document with pages=), other files go whole, and a bad selection is a usage error (exit 2)
before any request."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pypdf
import pytest
from dependency_injector import providers
from document_samples import numbered_pdf

from doc_processing_toolkit.application.container import default_container
from doc_processing_toolkit.cli.main import main as dpt
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.testing import FakeModel, reply

MODEL = "claude-sonnet-4-5"


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    model = FakeModel(default=reply("read"))
    container = default_container()
    container.model_clients.anthropic.override(providers.Object(model))
    try:
        yield model
    finally:
        container.model_clients.anthropic.reset_override()


@pytest.fixture
def contract(tmp_path: Path) -> Path:
    path = tmp_path / "contract.pdf"
    path.write_bytes(numbered_pdf(30))
    return path


def _media(fake: FakeModel) -> list[MediaPart]:
    return [p for p in fake.requests[0].messages[-1].parts if isinstance(p, MediaPart)]


def test_pages_sends_only_the_selected_pages_of_a_pdf(
    fake: FakeModel, contract: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Remember the renewal clause.")
    argv = ["run", "Summarise.", "--model", MODEL, "--file", str(contract), "--file", str(notes)]
    assert dpt([*argv, "--pages", "11-12,20"]) == 0
    assert "read" in capsys.readouterr().out
    pdf, text = _media(fake)
    assert pdf.data is not None
    reader = pypdf.PdfReader(io.BytesIO(pdf.data))
    assert [p.extract_text().split(" of ")[0] for p in reader.pages] == [
        "This is page 11",
        "This is page 12",
        "This is page 20",
    ]
    assert text.data == b"Remember the renewal clause."  # not a PDF: sent whole


@pytest.mark.parametrize(
    ("pages", "problem"),
    [
        ("0", "numbered from 1"),
        ("30-10", "runs backwards"),
        ("25-31", "page 31 is beyond the end: the document has 30 page(s)"),
        ("one", "'one' is not a page or a range"),
    ],
)
def test_a_bad_selection_is_a_usage_error_before_any_request(
    fake: FakeModel, contract: Path, pages: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = dpt(["run", "Read.", "--model", MODEL, "--file", str(contract), "--pages", pages])
    assert code == 2
    err = capsys.readouterr().err
    assert problem in err and "contract.pdf" in err
    assert fake.requests == []


def test_pages_without_a_pdf_is_a_usage_error(
    fake: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("plain text")
    assert dpt(["run", "Read.", "--model", MODEL, "--file", str(notes), "--pages", "1"]) == 2
    assert "--pages '1' applies to the PDF files given with --file" in capsys.readouterr().err
    assert dpt(["run", "Read.", "--model", MODEL, "--pages", "1"]) == 2
    assert fake.requests == []
