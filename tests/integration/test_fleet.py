"""Fleets in one process on SQLite (the default engine, DBOS): jobs, idempotency, 429
storms, batch rounds and the per-provider rate limit, against the ProviderEmulator."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit.adapters.durable.dbos import PERMIT_WORKFLOW
from doc_processing_toolkit.adapters.providers.anthropic.client import AnthropicModelClient
from doc_processing_toolkit.application.container import fleet_deps, registry
from doc_processing_toolkit.application.fleet.fleet import headroom
from doc_processing_toolkit.fleet import Fleet, FleetDeps, RateLimit
from doc_processing_toolkit.testing import InMemoryBatchClient, ProviderEmulator, StaticRegistry
from doc_processing_toolkit.testing.script import Fault, ScriptStep

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs


def _submit(fleet: Fleet, n: int, prefix: str = "inv") -> list[str]:
    ids = [f"{prefix}-{i:03d}" for i in range(n)]
    for job_id in ids:
        assert fleet.submit(job_id, f"Process job {job_id}.")
    return ids


def test_jobs_run_once_each_with_their_ledgers(emulator: ProviderEmulator, tmp_path: Path) -> None:
    fleet = Fleet(fs.make_agent, str(tmp_path / "fleet.sqlite"), concurrency=4)
    ids = _submit(fleet, 6)
    assert fleet.submit(ids[0], "a second submission of the same id") is False
    assert fleet.status().queued == 6

    seen: list[Any] = []
    results = fleet.run(on_progress=seen.append)

    assert sorted(results) == ids
    assert all(
        r.success and r.requests == 2 and r.tools_used == ("lookup",) for r in results.values()
    )
    assert results["inv-003"].output == "The total of inv-003 is 49 EUR."
    assert emulator.request_count == 12
    assert sorted(job for job, _ in fs.tool_log(tmp_path / "tools.log")) == ids
    status = fleet.status()
    assert (status.done, status.failed, status.queued, status.running) == (6, 0, 0, 0)
    assert status.spend == pytest.approx(sum(r.cost for r in results.values()))
    assert all(
        r.cost == pytest.approx(sum(rec["cost"] for rec in r.records)) for r in results.values()
    )
    assert seen and seen[-1].done == 6

    # The same ids again (another process, another day): nothing runs twice.
    again = Fleet(fs.make_agent, str(tmp_path / "fleet.sqlite"))
    assert [again.submit(i, "again") for i in ids] == [False] * 6
    again.run()
    assert emulator.request_count == 12
    fleet.close()
    again.close()


def test_default_database_is_a_sqlite_file_in_the_working_directory(
    emulator: ProviderEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fleet = Fleet(fs.make_agent, name="nightly")
    assert (tmp_path / "nightly.sqlite").exists()
    assert fleet.submit("one", "Process job one.")
    assert fleet.run()["one"].success
    fleet.close()


def test_a_429_storm_slows_the_fleet_instead_of_failing_jobs(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    lock = threading.Lock()
    storm = {"left": 12, "ok": 0}

    def stormy(body: dict[str, Any]) -> ScriptStep | None:
        with lock:
            if storm["left"] > 0:
                storm["left"] -= 1
                return Fault(status=429, retry_after=0.05, error_type="rate_limit_error")
            storm["ok"] += 1
        return fs.invoice_responder(body)

    emulator.responder = stormy
    fleet = Fleet(fs.make_agent, str(tmp_path / "storm.sqlite"), concurrency=4)
    _submit(fleet, 4)
    results = fleet.run()
    assert all(r.success for r in results.values()), [r.error for r in results.values()]
    assert storm == {"left": 0, "ok": 8}
    assert emulator.request_count == 20  # the 12 refused attempts, then 2 per job
    assert sum(r.requests for r in results.values()) == 8
    assert fleet.runner._gates["anthropic"].throttled == 12
    fleet.close()


def _batch_deps(emulator: ProviderEmulator, clients: dict[str, InMemoryBatchClient]) -> FleetDeps:
    base = fleet_deps()

    def batch_clients(provider: str, **kwargs: Any) -> InMemoryBatchClient | None:
        if provider != "anthropic":
            return None
        if provider not in clients:
            clients[provider] = InMemoryBatchClient(
                AnthropicModelClient(base_url=emulator.anthropic_base_url)
            )
        return clients[provider]

    return FleetDeps(engine=base.engine, batch_clients=batch_clients, registry=base.registry)


def test_batch_mode_sends_one_batch_per_iteration(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    clients: dict[str, InMemoryBatchClient] = {}
    fleet = Fleet(
        fs.make_agent,
        str(tmp_path / "batch.sqlite"),
        mode="batch",
        concurrency=8,
        batch_settle_seconds=0.3,
        deps=_batch_deps(emulator, clients),
    )
    ids = _submit(fleet, 6)
    results = fleet.run()

    assert all(r.success for r in results.values())
    batches = clients["anthropic"].batches
    assert [len(b) for b in batches] == [6, 6]  # one round per iteration, every job in it
    assert {r.purpose for r in batches[0].values()} == {"generation"}
    assert {r.purpose for r in batches[1].values()} == {"tool_followup"}
    assert all(rec["served_tier"] == "batch" for r in results.values() for rec in r.records)
    assert sorted(job for job, _ in fs.tool_log(tmp_path / "tools.log")) == ids
    fleet.close()


def test_batch_mode_without_a_batch_client_runs_interactively(
    emulator: ProviderEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = fleet_deps()
    deps = FleetDeps(engine=base.engine, batch_clients=lambda p, **k: None, registry=base.registry)
    fleet = Fleet(fs.make_agent, str(tmp_path / "b.sqlite"), mode="batch", deps=deps)
    _submit(fleet, 2)
    with caplog.at_level(logging.WARNING):
        results = fleet.run()
    assert all(r.success for r in results.values())
    assert all(rec["served_tier"] != "batch" for r in results.values() for rec in r.records)
    lines = [r for r in caplog.records if "no batch API" in r.getMessage()]
    assert len(lines) == 1
    fleet.close()


def _busiest(times: list[float], window: float) -> int:
    """The most of ``times`` that fall in one half-open window of ``window`` seconds."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + window) for i, start in enumerate(times))


def test_the_registry_rate_limit_holds_in_every_window(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """60 requests per "minute" from the registry row, with the minute scaled to 1 s.

    The limit is checked where it is enforced: the permits' start times in the system
    database, at most 60 in any rolling window of the lane's period (the minute plus its
    headroom). On SQLite under Python < 3.12, DBOS stamps and compares those times with
    whole seconds (``strftime('%s', 'now')``, ``dbos/_sys_db.py:_now_ms_sql``), and a
    request lands at the provider a moment after its permit. On a real minute the lane's
    headroom (3 s) covers both. On a minute scaled to 1 s it cannot: 62-77 requests were
    seen in one second at the emulator. So at the provider the test checks only that the
    90 requests did not fit in one window.
    """
    arrivals: list[float] = []
    lock = threading.Lock()

    def timed(body: dict[str, Any]) -> ScriptStep | None:
        with lock:
            arrivals.append(time.monotonic())
        return fs.invoice_responder(body)

    emulator.responder = timed
    row = registry().row(fs.MODEL)
    assert row is not None and row.requests_per_minute is None  # tier-dependent: unset
    limited = row.model_copy(update={"requests_per_minute": 60})
    base = fleet_deps()
    deps = FleetDeps(
        engine=base.engine, batch_clients=base.batch_clients, registry=StaticRegistry([limited])
    )
    window = 1.0
    fleet = Fleet(
        fs.make_agent,
        str(tmp_path / "rate.sqlite"),
        concurrency=50,
        rate_window_seconds=window,
        deps=deps,
    )
    assert fleet.rate_limit == RateLimit(60, window)
    _submit(fleet, 45)
    results = fleet.run()
    assert all(r.success for r in results.values())
    fleet.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "rate.sqlite")) as db:
        rows = db.execute(
            "SELECT started_at_epoch_ms FROM workflow_status WHERE name = ?", (PERMIT_WORKFLOW,)
        ).fetchall()
    permits = [ms / 1000 for (ms,) in rows]
    assert len(permits) == 90  # one permit per request
    assert _busiest(permits, headroom(window)) <= 60
    assert len(arrivals) == 90
    assert max(arrivals) - min(arrivals) >= window  # 90 requests cannot fit in one window


def test_fleet_arguments_are_checked(emulator: ProviderEmulator, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode"):
        Fleet(fs.make_agent, str(tmp_path / "x.sqlite"), mode="overnight")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="concurrency"):
        Fleet(fs.make_agent, str(tmp_path / "x.sqlite"), concurrency=0)
    fleet = Fleet(fs.make_agent, str(tmp_path / "x.sqlite"))
    with pytest.raises(ValueError, match="job_id"):
        fleet.submit("", "message")
    assert os.path.exists(tmp_path / "x.sqlite")
    fleet.close()


def test_a_failed_job_keeps_its_error_and_spend(emulator: ProviderEmulator, tmp_path: Path) -> None:
    def refuse_bad(body: dict[str, Any]) -> ScriptStep | None:
        job, iteration = fs.job_of(body)
        if job == "inv-001" and iteration == 2:
            return Fault(status=400, error_type="invalid_request_error", message="bad document")
        return fs.invoice_responder(body)

    emulator.responder = refuse_bad
    fleet = Fleet(fs.make_agent, str(tmp_path / "fail.sqlite"))
    _submit(fleet, 3)
    results = fleet.run()
    bad = results["inv-001"]
    assert bad.state == "failed" and bad.error_type == "BadRequestError"
    assert "bad document" in (bad.error or "")
    assert bad.requests == 1 and bad.cost > 0  # the first request was billed
    status = fleet.status()
    assert (status.done, status.failed) == (2, 1)
    assert status.spend == pytest.approx(sum(r.cost for r in results.values()))
    fleet.close()


def test_mcp_tool_calls_are_checkpointed_steps(
    emulator: ProviderEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mcp")
    import sqlite3

    from mcp.server.mcpserver import MCPServer

    from doc_processing_toolkit import Agent

    calls: list[str] = []
    server = MCPServer("books", log_level="WARNING")

    @server.tool()
    def lookup(job: str) -> str:
        """Look up an invoice's total."""
        calls.append(job)
        return f"total for {job}: {len(job) * 7} EUR"

    def agent() -> Agent:
        return Agent(
            fs.MODEL,
            tools=[{"type": "fastmcp", "server": server, "name": "books"}],
            base_url=emulator.anthropic_base_url,
            log_to_file=False,
        )

    database = tmp_path / "mcp.sqlite"
    fleet = Fleet(agent, str(database))
    ids = _submit(fleet, 3)
    results = fleet.run()
    assert all(r.success and r.tools_used == ("lookup",) for r in results.values())
    assert sorted(calls) == ids
    with sqlite3.connect(database) as db:
        steps = db.execute(
            "SELECT job_id, name FROM dpt_fleet_steps WHERE outcome IS NOT NULL ORDER BY step"
        ).fetchall()
    for job_id in ids:
        names = [name for wf, name in steps if wf == job_id]
        assert names[0] == "model:generation" and names[-1] == "model:tool_followup"
        assert names[1].startswith("tool:lookup#")
    fleet.close()


def test_every_tool_call_has_a_stable_idempotency_key(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """31.11: inside a fleet job a tool sees ToolContext.current() with the job, the call
    and ``<job id>/<round>/<call id>``; outside a fleet job it is None."""
    from doc_processing_toolkit import Agent, tool
    from doc_processing_toolkit.fleet import ToolContext

    seen: list[ToolContext | None] = []

    @tool
    def lookup(job: str) -> str:
        """Look up an invoice's total."""
        seen.append(ToolContext.current())
        return f"total for {job}"

    def agent() -> Agent:
        return Agent(
            fs.MODEL, tools=[lookup], base_url=emulator.anthropic_base_url, log_to_file=False
        )

    fleet = Fleet(agent, str(tmp_path / "keys.sqlite"), concurrency=2)
    ids = _submit(fleet, 2)
    assert all(r.success for r in fleet.run().values())
    fleet.close()
    contexts = sorted((c for c in seen if c is not None), key=lambda c: c.job_id)
    assert [c.job_id for c in contexts] == ids and len(seen) == 2
    assert [c.idempotency_key for c in contexts] == [f"{i}/1/toolu_{i}" for i in ids]
    assert all(c.tool_name == "lookup" for c in contexts)
    assert [c.tool_call_id for c in contexts] == [f"toolu_{i}" for i in ids]
    assert ToolContext.current() is None


def test_batch_mode_on_a_deployment_without_a_batch_api_runs_interactively(
    emulator: ProviderEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clients: dict[str, InMemoryBatchClient] = {}
    fleet = Fleet(
        fs.make_bedrock_agent,
        str(tmp_path / "bedrock.sqlite"),
        mode="batch",
        deps=_batch_deps(emulator, clients),  # Anthropic's batch API is there, Bedrock's not
    )
    _submit(fleet, 2)
    with caplog.at_level(logging.WARNING):
        results = fleet.run()
    assert all(r.success for r in results.values())
    assert clients == {}  # the Message Batches API was never asked
    assert all(rec["served_tier"] != "batch" for r in results.values() for rec in r.records)
    assert len([r for r in caplog.records if "no batch API" in r.getMessage()]) == 1
    assert all(r.path.startswith("/model/") for r in emulator.requests)
    fleet.close()
