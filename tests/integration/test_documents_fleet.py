"""A Document in a fleet job: stored as its path and page selection, rebuilt by the worker,
and only its selected pages are sent (SQLite fleet, the emulator)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pypdf
import pytest
from document_samples import numbered_pdf

from doc_processing_toolkit import Agent, InvalidArgumentTypeError
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

pytest.importorskip("dbos")

from doc_processing_toolkit.fleet import Fleet


def test_a_fleet_job_sends_only_the_selected_pages(emu: ProviderEmulator, tmp_path: Path) -> None:
    path = tmp_path / "contract.pdf"
    path.write_bytes(numbered_pdf(300))
    emu.default = Reply("read")

    def make_agent() -> Agent:
        return Agent(
            "claude-haiku-4-5",
            api_key="offline-test-key",
            base_url=emu.anthropic_base_url,
            log_to_file=False,
        )

    fleet = Fleet(make_agent, str(tmp_path / "fleet.sqlite"))
    try:
        assert fleet.submit("c1", "Summarise.", files=[Document(path, pages="41-60")])
        with pytest.raises(InvalidArgumentTypeError, match="path or a URL"):
            fleet.submit("c2", "Summarise.", files=[Document(numbered_pdf(2))])
        results = fleet.run()
    finally:
        fleet.close()
    assert results["c1"].success, results["c1"].error
    (request,) = [r for r in emu.requests if r.path.endswith("/v1/messages")]
    (data,) = re.findall(r"JVBERi[A-Za-z0-9+/=]+", json.dumps(request.body))
    sent = pypdf.PdfReader(io.BytesIO(base64.b64decode(data)))
    assert len(sent.pages) == 20 and "page 41 " in sent.pages[0].extract_text()
