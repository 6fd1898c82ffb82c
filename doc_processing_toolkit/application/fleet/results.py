"""FleetResults: the finished jobs' results, read from the fleet's database as they are
asked for.

A worker that drained 50,000 jobs used to return them all from ``Fleet.run()`` as one
dict of `JobResult` (every output and ledger decoded at once: hundreds of MB). The
mapping holds only the finished jobs' ids (and which workflow holds each one's result:
a parked job's latest continuation); a result is read when it is asked for, and
iterating reads them a page at a time, so memory stays flat however large the queue.
It is a read-only ``Mapping[str, JobResult]``: ``results["inv-001"]``, ``len``, ``in``,
``items()``, ``dict(results)`` and ``==`` with a dict all work as with the dict it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from doc_processing_toolkit.application.fleet.approvals import base_job_id, merge_continuations
from doc_processing_toolkit.domain.fleet import JobRecord, JobResult

__all__ = ["FleetResults", "ReadJobs"]

ReadJobs = Callable[..., Sequence[JobRecord]]
"""The engine's ``jobs(job_ids=None, *, offset=0, limit=None)``."""

PAGE = 500
"""Records read per query when indexing and iterating."""

_FINISHED = ("done", "failed")


class FleetResults(Mapping[str, JobResult]):
    """The finished (done and failed) jobs' results by job id, in submission order, read
    on demand (see the module docstring)."""

    __slots__ = ("_holders", "_read")

    def __init__(self, read: ReadJobs) -> None:
        """Index the finished jobs, a page of records at a time (their outputs are decoded
        and dropped page by page).

        Args:
            read: The engine's ``jobs`` reader.
        """
        self._read = read
        self._holders = _index(read)
        """job id -> the ids of the workflows that hold it (the job and its continuations)."""

    def __getitem__(self, job_id: str) -> JobResult:
        holders = self._holders.get(job_id)
        if holders is None:
            raise KeyError(job_id)
        return self._results(holders)[0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._holders)

    def __len__(self) -> int:
        return len(self._holders)

    def __contains__(self, job_id: object) -> bool:
        return job_id in self._holders

    def pages(self, size: int | None = None) -> Iterator[list[JobResult]]:
        """The results, ``size`` jobs per read (default `PAGE`), in submission order."""
        size = size or PAGE
        batch: list[tuple[str, ...]] = []
        for holders in self._holders.values():
            batch.append(holders)
            if len(batch) == size:
                yield self._results(*batch)
                batch = []
        if batch:
            yield self._results(*batch)

    def items(self) -> Iterator[tuple[str, JobResult]]:  # type: ignore[override]
        """(job id, result) pairs, read a page at a time."""
        for page in self.pages():
            for result in page:
                yield result.job_id, result

    def values(self) -> Iterator[JobResult]:  # type: ignore[override]
        """The results, read a page at a time."""
        for page in self.pages():
            yield from page

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FleetResults({len(self)} finished jobs)"

    def _results(self, *jobs: tuple[str, ...]) -> list[JobResult]:
        ids = [workflow for holders in jobs for workflow in holders]
        merged = {r.job_id: r for r in merge_continuations(self._read(ids))}
        return [JobResult.of(merged[holders[0]]) for holders in jobs]


def _index(read: ReadJobs) -> dict[str, tuple[str, ...]]:
    holders: dict[str, list[str]] = {}
    latest: dict[str, JobRecord] = {}
    offset = 0
    while True:
        page = read(offset=offset, limit=PAGE)
        for record in page:
            job = base_job_id(record.job_id)
            holders.setdefault(job, []).append(record.job_id)
            latest[job] = _bare(merge_continuations([record])[0], job)
        if len(page) < PAGE:
            break
        offset += len(page)
    return {job: tuple(ids) for job, ids in holders.items() if latest[job].state in _FINISHED}


def _bare(record: JobRecord, job: str) -> JobRecord:
    """``record`` without its result (the index keeps states, not outputs)."""
    return JobRecord(job_id=job, state=record.state)
