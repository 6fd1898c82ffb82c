"""What a fleet worker does per job and per poll at scale (issue 41): it reads every job's
record only when asked to, and an Agent its factory shares between jobs stays open while
jobs run on it (SQLite, the ProviderEmulator)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.durable.dbos import DbosEngine
from doc_processing_toolkit.application.container import fleet_deps
from doc_processing_toolkit.domain.fleet import JobRecord
from doc_processing_toolkit.fleet import Fleet, FleetDeps
from doc_processing_toolkit.testing import ProviderEmulator

sys.path.insert(0, str(Path(__file__).parent))
import fleet_support as fs


class CountingEngine(DbosEngine):
    """The real engine, counting the reads of the queue's records (not of named jobs)."""

    reads = 0

    def jobs(
        self, job_ids: Sequence[str] | None = None, *, offset: int = 0, limit: int | None = None
    ) -> list[JobRecord]:
        if job_ids is None:
            CountingEngine.reads += 1
        return super().jobs(job_ids, offset=offset, limit=limit)


def _counting_deps() -> FleetDeps:
    base = fleet_deps()
    return FleetDeps(
        engine=lambda url, name: CountingEngine(url, name),
        batch_clients=base.batch_clients,
        registry=base.registry,
    )


def test_a_worker_without_progress_callback_reads_the_job_records_once(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    CountingEngine.reads = 0
    fleet = Fleet(fs.make_agent, str(tmp_path / "f.sqlite"), concurrency=2, deps=_counting_deps())
    for i in range(6):
        fleet.submit(f"job-{i}", f"Process job job-{i}.")
    results = fleet.run()
    assert sorted(results) == [f"job-{i}" for i in range(6)]
    assert all(r.success for r in results.values())
    # Once, for the index of the results run() returns (a page of 500 records): not at
    # every tick of the drain (at 50,000 jobs each such read is seconds of the worker's CPU).
    assert CountingEngine.reads == 1
    fleet.close()


def test_a_progress_callback_still_sees_every_tick(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    fleet = Fleet(fs.make_agent, str(tmp_path / "p.sqlite"), concurrency=2)
    for i in range(4):
        fleet.submit(f"job-{i}", f"Process job job-{i}.")
    seen: list[Any] = []
    fleet.run(on_progress=seen.append)
    assert seen and seen[-1].done == 4
    fleet.close()


class CountedAgent(Agent):
    closes = 0

    async def close(self) -> None:
        CountedAgent.closes += 1
        await super().close()


def test_an_agent_the_factory_shares_is_not_closed_under_running_jobs(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    shared = CountedAgent(
        fs.MODEL,
        "Extract invoice totals.",
        tools=[fs.lookup],
        base_url=emulator.anthropic_base_url,
        log_to_file=False,
    )
    fleet = Fleet(lambda: shared, str(tmp_path / "s.sqlite"), concurrency=4)
    CountedAgent.closes = 0  # the probe's close in Fleet() is not a job's
    for i in range(12):
        fleet.submit(f"job-{i:02d}", f"Process job job-{i:02d}.")
    results = fleet.run()
    assert len(results) == 12
    assert all(r.success for r in results.values()), [r.error for r in results.values()]
    assert sorted(job for job, _ in fs.tool_log(tmp_path / "tools.log")) == sorted(results)
    # Closed at most once (before the fleet knew it was shared), never under a running job.
    assert CountedAgent.closes <= 1
    fleet.close()


def test_an_agent_per_job_is_still_closed_after_its_job(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    def factory() -> CountedAgent:
        return CountedAgent(
            fs.MODEL,
            "Extract invoice totals.",
            tools=[fs.lookup],
            base_url=emulator.anthropic_base_url,
            log_to_file=False,
        )

    fleet = Fleet(factory, str(tmp_path / "a.sqlite"), concurrency=3)
    CountedAgent.closes = 0
    for i in range(5):
        fleet.submit(f"job-{i}", f"Process job job-{i}.")
    assert all(r.success for r in fleet.run().values())
    assert CountedAgent.closes == 5
    fleet.close()


def test_a_worker_claims_its_next_jobs_early_but_runs_no_more_than_its_concurrency(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """The queue lets a worker claim twice its concurrency, so its next job is already
    there when a running one ends; the jobs beyond the concurrency wait in the worker
    before their first request, so no more than ``concurrency`` jobs run at once."""
    import threading
    import time

    from doc_processing_toolkit import tool

    lock = threading.Lock()
    running, most = [0], [0]

    @tool
    def lookup(job: str) -> str:
        """Look up an invoice's total."""
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return f"total for {job}"

    def agent() -> Agent:
        return Agent(
            fs.MODEL, tools=[lookup], base_url=emulator.anthropic_base_url, log_to_file=False
        )

    fleet = Fleet(agent, str(tmp_path / "claims.sqlite"), concurrency=2)
    for i in range(8):
        fleet.submit(f"job-{i}", f"Process job job-{i}.")
    states: list[int] = []
    results = fleet.run(on_progress=lambda status: states.append(status.running))
    fleet.close()
    assert len(results) == 8 and all(r.success for r in results.values())
    assert most[0] == 2  # the tool calls of two jobs at once, never three
    assert max(states) <= 4  # claimed: at most twice the concurrency


def test_results_are_read_on_demand_also_after_the_fleet_closes(
    emulator: ProviderEmulator, tmp_path: Path
) -> None:
    """``run()``'s FleetResults reads each result when asked: before and after
    ``Fleet.close()`` (as the dict it replaced could be read), equal to the finished jobs."""
    fleet = Fleet(fs.make_agent, str(tmp_path / "r.sqlite"), concurrency=2)
    for i in range(3):
        fleet.submit(f"job-{i}", f"Process job job-{i}.")
    results = fleet.run()
    assert type(results).__name__ == "FleetResults" and len(results) == 3
    before = dict(results.items())
    fleet.close()
    assert dict(results.items()) == before
    assert results["job-1"].success and "job-1" in results["job-1"].output
