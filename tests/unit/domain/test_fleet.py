"""A fleet's figures as data (issue 31.10): a job's requests that may have been billed
without being recorded travel from its result to `JobResult` and `FleetStatus`."""

from __future__ import annotations

from doc_processing_toolkit.domain.fleet import FleetStatus, JobRecord, JobResult, status_of


def test_unrecorded_requests_are_read_per_job_and_totalled_over_finished_jobs() -> None:
    records = [
        JobRecord("a", "done", {"cost": 0.5, "requests": 2, "unrecorded_requests": 1}),
        JobRecord("b", "failed", {"cost": 0.25, "error": "boom", "unrecorded_requests": 2}),
        JobRecord("c", "done", {"cost": 0.5}),  # a result written before the figure existed
        JobRecord("d", "running"),
    ]
    status = status_of(records)
    assert status == FleetStatus(0, 1, 2, 1, 1.25, unrecorded_requests=3)
    results = [JobResult.of(r) for r in records[:3]]
    assert [r.unrecorded_requests for r in results] == [1, 2, 0]
    assert results[0].to_dict()["unrecorded_requests"] == 1
    assert results[0].requests == 2  # the ledger still counts only the answers it holds
