"""Evidence in a fleet job's result (SQLite fleet, the emulator): a job submitted with
``output_schema`` and ``evidence=True`` runs as an evidence extraction on the worker (the
schema travels as its import path); the job result carries its evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from document_samples import text_pdf
from pydantic import BaseModel

from doc_processing_toolkit import Agent
from doc_processing_toolkit.documents import Document
from doc_processing_toolkit.testing import ProviderEmulator, Reply

pytest.importorskip("dbos")

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.fleet import Fleet


class Total(BaseModel):
    total: float
    currency: str


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

    def make_agent() -> Agent:
        return Agent(
            "claude-haiku-4-5",
            api_key="offline-test-key",
            base_url=emu.anthropic_base_url,
            log_to_file=False,
        )

    fleet = Fleet(make_agent, str(tmp_path / "fleet.sqlite"))
    try:
        assert fleet.submit(
            "inv",
            "Extract.",
            files=[Document(path, pages="2")],
            output_schema=Total,
            evidence=True,
        )
        results = fleet.run()
    finally:
        fleet.close()
    job = results["inv"]
    assert job.success, job.error
    assert job.output == {"total": 12480.5, "currency": "EUR"}
    assert job.evidence["total"].verified and job.evidence["total"].page == 2
    assert job.unverified_fields == ("currency",)
    assert job.to_dict()["evidence"]["total"]["page"] == 2


def test_a_schema_the_workers_could_not_import_is_refused_at_submit(tmp_path: Path) -> None:
    class Local(BaseModel):
        total: float

    fleet = Fleet(lambda: Agent("claude-haiku-4-5", log_to_file=False), str(tmp_path / "f.db"))
    try:
        with pytest.raises(ConfigurationError, match="inside a function"):
            fleet.submit("a", "Extract.", output_schema=Local)
        with pytest.raises(ConfigurationError, match="cannot import module"):
            fleet.submit("b", "Extract.", output_schema="no_such_module_xyz:Model")
        with pytest.raises(ConfigurationError, match="is not a pydantic model"):
            fleet.submit("c", "Extract.", output_schema=f"{__name__}:Path")
        with pytest.raises(ConfigurationError, match="needs an output_schema"):
            fleet.submit("d", "Extract.", evidence=True)
        assert fleet.submit("e", "Extract.", output_schema=f"{__name__}:Total")
        assert [job.job_id for job in fleet.jobs()] == ["e"]
    finally:
        fleet.close()
