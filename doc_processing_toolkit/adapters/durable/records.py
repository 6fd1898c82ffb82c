"""A DBOS workflow status as the fleet's `JobRecord`."""

from __future__ import annotations

from typing import Any

from doc_processing_toolkit.domain.fleet import JobRecord, JobState

__all__ = ["job_record"]

_STATES: dict[str, JobState] = {
    "ENQUEUED": "queued",
    "DELAYED": "queued",
    "PENDING": "running",
    "SUCCESS": "done",
}
"""DBOS's workflow statuses by job state (any other, ERROR or CANCELLED, is "failed")."""


def job_record(status: Any) -> JobRecord:
    """The `JobRecord` of one DBOS ``WorkflowStatus`` (a done job whose result holds an
    error is "failed"; a failed one without a result gets one naming the status)."""
    state = _STATES.get(str(status.status), "failed")
    result = status.output if isinstance(status.output, dict) else None
    if state == "done" and result is not None and result.get("error"):
        state = "failed"
    if state == "failed" and result is None:
        result = {"error": str(status.error or status.status), "cost": 0.0}
    created = status.created_at / 1000 if status.created_at else None
    return JobRecord(
        job_id=status.workflow_id,
        state=state,
        result=result,
        worker=status.executor_id,
        created_at=created,
    )
