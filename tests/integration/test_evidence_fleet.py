"""Evidence in a fleet job's result (SQLite fleet, the emulator): the factory's agent runs
with ``output_schema`` and ``evidence=True``; the job result carries its evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from document_samples import text_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

pytest.importorskip("dbos")

from doc_processing_toolkit.fleet import Fleet


class Total(BaseModel):
    total: float
    currency: str


class InvoiceExtractor(Agent):
    """A fleet agent whose every run is an evidence extraction."""

    async def run(self, message: str, **kwargs: Any) -> Any:  # type: ignore[override]
        return await super().run(message, output_schema=Total, evidence=True, **kwargs)


def test_a_fleet_job_result_carries_the_evidence(emu: ProviderEmulator, tmp_path: Path) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(text_pdf(["Cover", "Total due: $12,480.50"]))
    emu.default = Reply(
        json.dumps(
            {
                "total": {"value": 12480.5, "quote": "Total due: $12,480.50", "page": 1},
                "currency": {"value": "EUR", "quote": "Amounts in EUR", "page": 1},
            }
        )
    )

    def make_agent() -> InvoiceExtractor:
        return InvoiceExtractor(
            "claude-haiku-4-5",
            api_key="offline-test-key",
            base_url=emu.anthropic_base_url,
            log_to_file=False,
        )

    fleet = Fleet(make_agent, str(tmp_path / "fleet.sqlite"))
    try:
        assert fleet.submit("inv", "Extract.", files=[Document(path, pages="2")])
        results = fleet.run()
    finally:
        fleet.close()
    job = results["inv"]
    assert job.success, job.error
    assert job.output == {"total": 12480.5, "currency": "EUR"}
    assert job.evidence["total"].verified and job.evidence["total"].page == 2
    assert job.unverified_fields == ("currency",)
    assert job.to_dict()["evidence"]["total"]["page"] == 2
