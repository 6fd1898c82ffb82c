"""Fleet jobs that wait for a person, without holding a worker.

A job whose run defers a tool call (a ``before_tool_call`` hook returning
``HookDirective(action="defer")``) *parks*: its workflow ends, and its stored output says
``status: "awaiting_approval"`` with the pending calls and the waiting turn as a session
envelope. A parked job holds no worker slot and no process; killing every worker loses
nothing (it is a finished workflow in the engine's database).

`Fleet.approve` records each answer in the engine (``record_answer``). Once every pending
call of a job has one, it enqueues the job's *continuation*: the workflow
``<job_id>@approval-<n>``, whose payload carries the envelope, the answers and the parked
run's totals. Any worker (now, or the next one started) runs it: the session is restored,
resumed with the answers (approved calls run as durable steps, once), and the job's result
is the parked run's plus the resume's. `merge_continuations` folds the continuation
workflows into their job, so ``Fleet.jobs()`` shows one record per job id.

``approval_timeout`` (seconds; default None: wait for ever): a call unanswered that long
after it was deferred is refused with `TIMED_OUT_TEXT` (checked by `Fleet.run` when a
worker starts and while it works, and by `Fleet.pending_approvals` / `Fleet.approve`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from doc_processing_toolkit.domain.approvals import TIMED_OUT_TEXT, Approval, PendingApproval
from doc_processing_toolkit.domain.errors import ApprovalError
from doc_processing_toolkit.domain.fleet import JobRecord

__all__ = [
    "CONTINUATION",
    "FleetApprovals",
    "base_job_id",
    "merge_continuations",
    "parked_output",
    "resume_job",
    "waiting_record",
    "with_parked",
]

CONTINUATION = "@approval-"
"""A continuation workflow's id is ``<job_id>@approval-<n>``."""

_SUMMED = ("cost", "input_tokens", "output_tokens", "requests")
_LISTED = ("tools_used", "records")


def base_job_id(workflow_id: str) -> str:
    """The job a workflow belongs to (a continuation's job, or the id itself)."""
    return workflow_id.split(CONTINUATION, 1)[0]


def merge_continuations(records: Sequence[JobRecord]) -> list[JobRecord]:
    """One record per job: a job with continuations takes its latest one's state and
    result (the continuation's result already holds the whole job's totals)."""
    merged: dict[str, JobRecord] = {}
    rank: dict[str, int] = {}
    for record in records:
        job = base_job_id(record.job_id)
        n = int(record.job_id.rsplit(CONTINUATION, 1)[1]) if CONTINUATION in record.job_id else 0
        if job not in merged:
            merged[job], rank[job] = _as_job(record, job), n
        elif n > rank[job]:
            first = merged[job]
            merged[job] = _as_job(record, job, created_at=first.created_at)
            rank[job] = n
    return list(merged.values())


def _as_job(record: JobRecord, job: str, created_at: float | None = None) -> JobRecord:
    state = record.state
    result = record.result
    if state == "done" and result is not None and result.get("status") == "awaiting_approval":
        state = "awaiting_approval"
    return JobRecord(
        job_id=job,
        state=state,
        result=result,
        worker=record.worker,
        created_at=created_at if created_at is not None else record.created_at,
    )


async def resume_job(agent: Any, payload: dict[str, Any]) -> Any:
    """Run a continuation: restore the waiting session on ``agent`` and resume it."""
    from doc_processing_toolkit.application.session.session import AgentSession

    session = AgentSession.from_dict(payload["envelope"], agent)
    approvals = {
        call_id: Approval(bool(a["approved"]), a.get("message"))
        for call_id, a in payload["approvals"].items()
    }
    return await session.resume(approvals)


def waiting_record(payload: dict[str, Any]) -> dict[str, Any]:
    """A continuation's waiting-turn record (its ``output_schema`` and ``evidence`` among
    it); empty for a first run."""
    envelope = payload.get("envelope") if "resume_of" in payload else None
    metadata = envelope.get("metadata") if isinstance(envelope, dict) else None
    record = metadata.get("awaiting_approval") if isinstance(metadata, dict) else None
    return record if isinstance(record, dict) else {}


def parked_output(agent: Any, result: Any, options: dict[str, Any]) -> dict[str, Any]:
    """What a parked job stores beside its result: the pending calls and the waiting turn
    (a session envelope, which keeps the job's ``options``: its ``output_schema`` and
    ``evidence``); empty when the run did not end awaiting approval."""
    if getattr(result, "status", None) != "awaiting_approval":
        return {}
    from doc_processing_toolkit.application.run.run_input import RunInput
    from doc_processing_toolkit.application.session.resuming import waiting_envelope

    return {
        "status": "awaiting_approval",
        "pending_approvals": [p.to_dict() for p in result.pending_approvals],
        "envelope": waiting_envelope(agent, result, RunInput("", **options)),
    }


def with_parked(data: dict[str, Any], payload: dict[str, Any], parked: dict[str, Any]) -> None:
    """Fold a continuation's earlier totals into ``data`` and mark a parked job (the
    resume numbered its requests after the parked run's already)."""
    before = payload.get("parked")
    if isinstance(before, dict):
        for key in _SUMMED:
            data[key] = (before.get(key) or 0) + (data.get(key) or 0)
        for key in _LISTED:
            data[key] = [*(before.get(key) or []), *(data.get(key) or [])]
    data.update(parked)
    if not parked:
        data["status"] = "failed" if data.get("error") else "completed"


class FleetApprovals:
    """The queue side of a fleet's approvals (`Fleet.pending_approvals`, `Fleet.approve`)."""

    def __init__(self, engine: Any, approval_timeout: float | None) -> None:
        self._engine = engine
        self.timeout = approval_timeout

    def parked(self, records: Sequence[JobRecord]) -> dict[str, JobRecord]:
        """The parked jobs of the engine's (unmerged) ``records``, by job id."""
        merged = merge_continuations(records)
        return {r.job_id: r for r in merged if r.state == "awaiting_approval"}

    def pending(self, records: Sequence[JobRecord]) -> dict[str, list[PendingApproval]]:
        """job id -> its calls that have no answer yet."""
        out: dict[str, list[PendingApproval]] = {}
        for job, record in self.parked(records).items():
            answered = self._engine.answers(self._answer_key(record))
            calls = [
                PendingApproval.from_dict(p)
                for p in (record.result or {}).get("pending_approvals", [])
                if p["call_id"] not in answered
            ]
            if calls:
                out[job] = calls
        return out

    @staticmethod
    def _answer_key(record: JobRecord) -> str:
        """Answers are kept per parking (a job may park again after a resume)."""
        requests = int((record.result or {}).get("requests") or 0)
        return f"{record.job_id}#{requests}"

    def approve(
        self,
        records: Sequence[JobRecord],
        job_id: str,
        call_id: str,
        approved: bool,
        message: str | None,
    ) -> bool:
        """Record one answer; True when it completed the job's answers (resume queued)."""
        Approval(approved, message)  # the type checks
        record = self.parked(records).get(job_id)
        if record is None:
            raise ApprovalError(
                f"fleet job {job_id!r} is not awaiting approval", code="nothing_pending"
            )
        ids = [p["call_id"] for p in (record.result or {}).get("pending_approvals", [])]
        if call_id not in ids:
            raise ApprovalError(
                f"call {call_id!r} is not awaiting approval in fleet job {job_id!r} "
                f"(pending: {ids})",
                code="unknown_call",
                call_id=call_id,
            )
        key = self._answer_key(record)
        answers = self._engine.record_answer(
            key, call_id, {"approved": approved, "message": message}
        )
        return self._continue_if_answered(record, ids, answers, records)

    def expire(self, records: Sequence[JobRecord]) -> int:
        """Refuse every call past its approval deadline; the number of jobs resumed."""
        if self.timeout is None:
            return 0
        resumed = 0
        now = time.time()
        for record in self.parked(records).values():
            pending = (record.result or {}).get("pending_approvals", [])
            key = self._answer_key(record)
            answers = dict(self._engine.answers(key))
            for p in pending:
                if p["call_id"] in answers:
                    continue
                if now - _epoch(p.get("requested_at")) >= self.timeout:
                    answers = self._engine.record_answer(
                        key, p["call_id"], {"approved": False, "message": TIMED_OUT_TEXT}
                    )
            ids = [p["call_id"] for p in pending]
            resumed += self._continue_if_answered(record, ids, answers, records)
        return resumed

    def _continue_if_answered(
        self,
        record: JobRecord,
        ids: list[str],
        answers: dict[str, dict[str, Any]],
        records: Sequence[JobRecord],
    ) -> bool:
        if not all(call_id in answers for call_id in ids):
            return False
        result = dict(record.result or {})
        n = sum(1 for r in records if base_job_id(r.job_id) == record.job_id)
        payload = {
            "resume_of": record.job_id,
            "envelope": result.get("envelope"),
            "approvals": {call_id: answers[call_id] for call_id in ids},
            "parked": {k: result.get(k) for k in (*_SUMMED, *_LISTED)},
        }
        self._engine.submit(f"{record.job_id}{CONTINUATION}{n}", payload)
        return True


def _epoch(iso: Any) -> float:
    try:
        return datetime.fromisoformat(str(iso)).timestamp()
    except ValueError:
        return 0.0
