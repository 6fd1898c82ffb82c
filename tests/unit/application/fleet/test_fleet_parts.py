"""Fleet parts without an engine: lazy imports, batch rounds, the provider gate, URLs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from doc_processing_toolkit.adapters.durable.dbos import system_database_url
from doc_processing_toolkit.application.fleet.batching import RoundBatcher
from doc_processing_toolkit.application.fleet.jobs import result_of
from doc_processing_toolkit.application.fleet.sending import ProviderGate
from doc_processing_toolkit.domain.errors import ConfigurationError, ServerError
from doc_processing_toolkit.domain.fleet import FleetStatus, JobRecord, RateLimit, status_of
from doc_processing_toolkit.domain.messages import user_text
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.testing import FakeModel, InMemoryBatchClient, reply
from doc_processing_toolkit.testing.script import Fault


def test_importing_the_fleet_module_loads_no_engine() -> None:
    code = (
        "import sys, doc_processing_toolkit.fleet, doc_processing_toolkit.cli.main\n"
        "print(','.join(m for m in ('dbos', 'sqlalchemy', 'dependency_injector', 'anthropic')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _request(text: str) -> ModelRequest:
    return ModelRequest(model="fake", messages=(user_text(text),))


def test_a_batch_round_waits_for_every_running_job() -> None:
    async def scenario() -> tuple[list[int], list[str]]:
        fake = FakeModel([reply("a"), reply("b"), reply("c"), Fault(status=500), reply("e")])
        client = InMemoryBatchClient(fake)
        batcher = RoundBatcher(client, settle_seconds=0.05, window_seconds=10)
        for _ in range(3):
            batcher.join()
        first = [asyncio.create_task(batcher.send(_request(t))) for t in ("1", "2")]
        await asyncio.sleep(0.2)
        assert not any(t.done() for t in first)  # the third job has not asked yet
        third = asyncio.create_task(batcher.send(_request("3")))
        answers = [r.message.text for r in await asyncio.gather(*first, third)]
        batcher.leave()  # one job finished: the next round is the other two
        second = [asyncio.create_task(batcher.send(_request(t))) for t in ("4", "5")]
        outcomes = await asyncio.gather(*second, return_exceptions=True)
        assert isinstance(outcomes[0], ServerError)  # that request's own error
        answers.append(outcomes[1].message.text)  # type: ignore[union-attr]
        return [len(b) for b in client.batches], answers

    sizes, answers = asyncio.run(scenario())
    assert sizes == [3, 2]
    assert answers == ["a", "b", "c", "e"]


def test_a_round_goes_out_after_its_window_when_a_job_never_asks() -> None:
    async def scenario() -> int:
        client = InMemoryBatchClient(FakeModel([reply("only")]))
        batcher = RoundBatcher(client, settle_seconds=0.01, window_seconds=0.2)
        batcher.join()
        batcher.join()
        await batcher.send(_request("1"))
        return len(client.batches)

    assert asyncio.run(scenario()) == 1


def test_the_gate_pauses_after_a_429_and_keeps_the_token_window() -> None:
    now = [100.0]
    gate = ProviderGate("p", RateLimit(10, 60.0, tokens=1000), clock=lambda: now[0])
    assert gate.rate_limited(None) == 0.5
    assert gate.rate_limited(None) == 1.0  # exponential while the storm lasts
    assert gate.rate_limited(2.5) == 2.5  # retry-after wins
    gate.succeeded(600)
    assert gate._over_tokens(now[0]) is False
    gate.succeeded(500)
    assert gate._over_tokens(now[0]) is True
    now[0] += 61
    assert gate._over_tokens(now[0]) is False
    assert gate.throttled == 3


def test_status_and_results_count_failed_spend() -> None:
    records = [
        JobRecord("a", "done", {"cost": 0.5, "error": None}),
        JobRecord("b", "failed", {"cost": 0.25, "error": "boom"}),
        JobRecord("c", "queued"),
        JobRecord("d", "running"),
    ]
    assert status_of(records) == FleetStatus(1, 1, 1, 1, 0.75)
    failed = result_of("b", None, RuntimeError("boom"))
    assert failed["error"] == "boom" and failed["cost"] == 0.0


def test_database_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert system_database_url(None, "nightly") == f"sqlite:///{tmp_path / 'nightly.sqlite'}"
    assert system_database_url("jobs.db", "x") == f"sqlite:///{tmp_path / 'jobs.db'}"
    assert system_database_url("postgres://u@h/db", "x") == "postgresql://u@h/db"
    assert system_database_url("sqlite:////tmp/a.sqlite", "x") == "sqlite:////tmp/a.sqlite"
    with pytest.raises(ConfigurationError, match="mysql"):
        system_database_url("mysql://u:secret@h/db", "x")
    with pytest.raises(ValueError, match="requests"):
        RateLimit(0)


class _WorkflowCalls:
    """Stands in for the DBOS class: records the two workflow operations the drain uses."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def resume_workflow(self, job: str, *, queue_name: str) -> None:
        self.calls.append(("resume", f"{job}@{queue_name}"))

    def cancel_workflow(self, job: str) -> None:
        self.calls.append(("cancel", job))


def test_the_drain_notices_a_job_no_live_workflow_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """32.10: a job this worker holds (PENDING under its id) that no workflow of the
    process runs is re-enqueued once, then cancelled (it fails), so the drain ends; a job
    that is running live is left alone."""
    from doc_processing_toolkit.adapters.durable import dbos as engine

    monkeypatch.setattr(engine, "ORPHAN_GRACE_SECONDS", 0.0)
    monkeypatch.setattr(engine, "_live", {"live-job"})
    dbos = _WorkflowCalls()
    orphans = engine._Orphans(dbos, "fleet")
    orphans.check(["live-job", "dead-job"])
    assert dbos.calls == [("resume", "dead-job@fleet")]
    orphans.check(["live-job"])
    orphans.check(["live-job", "dead-job"])
    assert dbos.calls == [("resume", "dead-job@fleet"), ("cancel", "dead-job")]
