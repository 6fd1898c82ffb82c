"""A Document over Gemini's inline limit goes through the Files API, streamed from disk:
a path with no page selection is never read whole (the planner hands on a path-backed
part), the emulator receives the whole file as a resumable upload, and the request names
the uploaded file instead of carrying it inline. (Peak memory for a 500 MB upload is a
bench row: tests/bench/documents.py.)"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from document_samples import numbered_pdf, text_pdf, write_large_pdf

from doc_processing_toolkit import Agent, DocumentLimitError
from doc_processing_toolkit.adapters.providers.google.files import clear_upload_cache
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.application.documents.planner import DocumentPlanner
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

GEMINI = "gemini-2.5-flash"


def _big_pdf(path: Path, size: int) -> Path:
    """A valid one-page PDF of at least ``size`` bytes, written in 1 MiB blocks."""
    return write_large_pdf(path, size // (1024 * 1024) + 1)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@pytest.fixture
def gemini(emu: ProviderEmulator) -> Iterator[Agent]:
    clear_upload_cache()
    yield Agent(GEMINI, api_key="offline-test-key", base_url=emu.google_base_url, log_to_file=False)
    clear_upload_cache()


@pytest.fixture
def over_inline(tmp_path: Path) -> Path:
    row = registry().row(GEMINI)
    assert row is not None and row.max_inline_bytes is not None
    return _big_pdf(tmp_path / "big contract.pdf", row.max_inline_bytes + 1024 * 1024)


def test_a_document_over_the_inline_limit_is_left_on_disk(gemini: Agent, over_inline: Path) -> None:
    prepared = gemini.document_planner.prepare(Document(over_inline))
    assert prepared.part.data is None
    assert prepared.part.path == str(over_inline.resolve())
    assert prepared.part.size == over_inline.stat().st_size
    assert prepared.part.mime_type == "application/pdf"


def test_it_is_uploaded_through_the_files_api_and_named_in_the_request(
    gemini: Agent, emu: ProviderEmulator, over_inline: Path
) -> None:
    emu.default = Reply("read through the Files API")
    result = gemini.run_sync("Summarise.", files=[Document(over_inline)])
    assert result.output == "read through the Files API"
    uploaded = emu.files.uploaded[-1]
    assert uploaded.size == over_inline.stat().st_size
    assert uploaded.sha256 == _sha256(over_inline)
    assert uploaded.mime_type == "application/pdf"
    [record] = result.media_uploads
    generate = [r for r in emu.requests if r.dialect != "google_files"]
    body = json.dumps(generate[-1].body)
    assert record["uri"] in body and "JVBERi" not in body  # named, not inline


def test_a_page_selection_of_a_document_within_the_limit_is_still_sent_inline(
    gemini: Agent, emu: ProviderEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "small.pdf"
    path.write_bytes(text_pdf(["one", "two", "three"]))
    emu.default = Reply("ok")
    uploads = len(emu.files.uploaded)  # the store outlives the module's tests
    result = gemini.run_sync("Read.", files=[Document(path, pages="2")])
    assert len(emu.files.uploaded) == uploads and result.media_uploads == []


def _planner_over_a_small_inline_limit(agent: Agent, max_pdf_pages: int) -> DocumentPlanner:
    """The Agent's planner on its row with a 1 kB inline limit and a page limit of
    ``max_pdf_pages``: a small generated PDF then takes the streamed path."""
    planner = agent.document_planner
    row = planner.row
    assert row is not None
    planner.row = row.model_copy(update={"max_inline_bytes": 1_000, "max_pdf_pages": max_pdf_pages})
    return planner


def test_a_streamed_pdf_over_the_page_limit_is_refused_before_sending(
    gemini: Agent, tmp_path: Path
) -> None:
    """Counted from the file (never read whole): a streamed PDF over the row's
    max_pdf_pages raises DocumentLimitError naming it, as an inline one does."""
    path = tmp_path / "long.pdf"
    path.write_bytes(numbered_pdf(12))
    planner = _planner_over_a_small_inline_limit(gemini, max_pdf_pages=10)
    with pytest.raises(DocumentLimitError, match=r"long\.pdf.*12 pages") as caught:
        planner.prepare(Document(path))
    assert (caught.value.actual, caught.value.limit) == (12, 10)
    within = _planner_over_a_small_inline_limit(gemini, max_pdf_pages=20).prepare(Document(path))
    assert within.part.data is None and within.part.path == str(path.resolve())
    assert within.page_map is not None and len(within.page_map) == 12


def test_a_plain_streamed_pdf_file_is_counted_too(gemini: Agent, tmp_path: Path) -> None:
    path = tmp_path / "plain.pdf"
    path.write_bytes(numbered_pdf(12))
    planner = _planner_over_a_small_inline_limit(gemini, max_pdf_pages=10)
    with pytest.raises(DocumentLimitError, match=r"plain\.pdf"):
        planner.prepare_files([str(path)])
