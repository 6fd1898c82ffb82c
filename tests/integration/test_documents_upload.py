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
from document_samples import text_pdf

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.providers.google.files import clear_upload_cache
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

GEMINI = "gemini-2.5-flash"


def _big_pdf(path: Path, size: int) -> Path:
    """A PDF's bytes followed by zeros up to ``size`` (sparse: written without a buffer)."""
    with open(path, "wb") as handle:
        handle.write(text_pdf(["Master Services Agreement"]))
        handle.truncate(size)
    return path


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
