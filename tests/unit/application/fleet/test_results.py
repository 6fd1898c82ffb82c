"""FleetResults: the finished jobs' results read on demand, a page at a time."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from doc_processing_toolkit.application.fleet import results as results_module
from doc_processing_toolkit.application.fleet.results import FleetResults
from doc_processing_toolkit.domain.fleet import JobRecord, JobResult


class Store:
    """An engine's ``jobs`` over a list, counting what each read returned."""

    def __init__(self, records: list[JobRecord]) -> None:
        self.records = records
        self.reads: list[int] = []

    def jobs(
        self, job_ids: Sequence[str] | None = None, *, offset: int = 0, limit: int | None = None
    ) -> list[JobRecord]:
        found = [r for r in self.records if job_ids is None or r.job_id in job_ids]
        page = found[offset : None if limit is None else offset + limit]
        self.reads.append(len(page))
        return page


def _done(job_id: str, output: str) -> JobRecord:
    return JobRecord(job_id, "done", {"output": output, "cost": 0.01})


def test_a_large_queue_is_read_a_page_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results_module, "PAGE", 10)
    records = [_done(f"job-{i:03}", f"out {i}") for i in range(35)]
    records.append(JobRecord("job-queued", "queued"))
    store = Store(records)
    results = FleetResults(store.jobs)
    assert store.reads == [10, 10, 10, 6]  # the index: pages, never the whole queue
    assert len(results) == 35 and "job-queued" not in results and "job-007" in results
    store.reads.clear()
    assert results["job-007"].output == "out 7"
    assert store.reads == [1]
    store.reads.clear()
    assert [r.output for r in results.values()] == [f"out {i}" for i in range(35)]
    assert max(store.reads) <= 10  # iterating reads pages too
    assert list(results) == [f"job-{i:03}" for i in range(35)]


def test_it_equals_the_dict_it_replaced() -> None:
    records = [_done("a", "x"), JobRecord("b", "failed", {"error": "boom", "cost": 0.0})]
    results = FleetResults(Store(records).jobs)
    assert results == {r.job_id: JobResult.of(r) for r in records}
    assert dict(results.items()) == dict(results)
    assert results["b"].error == "boom" and not results["b"].success
    with pytest.raises(KeyError):
        results["missing"]
    assert repr(results) == "FleetResults(2 finished jobs)"


def test_a_parked_job_is_its_latest_continuation() -> None:
    parked = JobRecord("p", "done", {"status": "awaiting_approval", "output": None})
    records = [parked, _done("q", "fine"), _done("p@approval-1", "approved and done")]
    results = FleetResults(Store(records).jobs)
    assert list(results) == ["p", "q"]
    assert results["p"].output == "approved and done" and results["p"].job_id == "p"


def test_a_job_still_awaiting_approval_is_not_finished() -> None:
    parked = JobRecord("p", "done", {"status": "awaiting_approval", "output": None})
    results = FleetResults(Store([parked, _done("q", "fine")]).jobs)
    assert list(results) == ["q"]
