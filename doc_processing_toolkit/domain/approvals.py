"""Human approval of deferred tool calls: what waits, what a person answers, and the checks
a resume must pass before anything runs.

A ``before_tool_call`` hook that returns ``HookDirective(action="defer")`` leaves the call
to a person: the run ends after its tool round with ``status == "awaiting_approval"`` and
one `PendingApproval` per deferred call. ``resume(approvals={call_id: Approval(...)})``
continues the same turn. `check_resume` is the whole rule set, pure: it either returns the
decisions to apply or raises `ApprovalError`, so a bad resume changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from doc_processing_toolkit.domain.errors import ApprovalError, InvalidArgumentTypeError

__all__ = [
    "REFUSED_TOOL_TEXT",
    "TIMED_OUT_TEXT",
    "Approval",
    "Decision",
    "PendingApproval",
    "check_resume",
    "refusal_text",
]

REFUSED_TOOL_TEXT = "The tool call was refused by the person who reviewed it and was not executed."
"""The tool result a refused call gets (followed by the reviewer's message, when given)."""

TIMED_OUT_TEXT = "No one approved this tool call before its approval deadline; it was not executed."
"""The refusal message of a call whose approval deadline passed (fleets' approval_timeout)."""


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """One deferred tool call waiting for a person (``AgentResult.pending_approvals``)."""

    call_id: str
    """The provider's id of the tool call: the key of ``resume(approvals=...)``."""
    tool_name: str
    arguments: dict[str, Any]
    """The arguments the model sent; an approved call runs with exactly these."""
    reason: str | None = None
    """The deferring directive's ``reason``."""
    requested_at: str = field(default_factory=_now)
    """When the call was deferred (UTC, ISO 8601)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-clean data."""
        return {
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "arguments": dict(self.arguments),
            "reason": self.reason,
            "requested_at": self.requested_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingApproval:
        """Rebuild from `to_dict` output."""
        return cls(
            call_id=str(data["call_id"]),
            tool_name=str(data["tool_name"]),
            arguments=dict(data.get("arguments") or {}),
            reason=data.get("reason"),
            requested_at=str(data.get("requested_at") or ""),
        )


@dataclass(frozen=True, slots=True)
class Approval:
    """A person's answer to one pending call.

    ``Approval(approved=True)`` runs the call with its recorded arguments;
    ``Approval(approved=False, message="...")`` does not run it, and the model receives
    an error tool result carrying `REFUSED_TOOL_TEXT` and the message.
    """

    approved: bool
    message: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.approved, bool):
            raise InvalidArgumentTypeError(
                f"Approval(approved=...) must be True or False, got {self.approved!r}"
            )
        if self.message is not None and not isinstance(self.message, str):
            raise InvalidArgumentTypeError(
                f"Approval(message=...) must be a str or None, got {type(self.message).__name__}"
            )


@dataclass(frozen=True, slots=True)
class Decision:
    """A checked answer: the pending call and what to do with it."""

    pending: PendingApproval
    approval: Approval


def refusal_text(message: str | None) -> str:
    """The tool result text of a refused call."""
    return f"{REFUSED_TOOL_TEXT} Reviewer's message: {message}" if message else REFUSED_TOOL_TEXT


def _canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


def check_resume(
    pending: list[PendingApproval] | None,
    approvals: Mapping[str, Approval],
    *,
    recorded_calls: Mapping[str, tuple[str, dict[str, Any]]],
    saved_model: tuple[str, str],
    model: tuple[str, str],
) -> list[Decision]:
    """The decisions of a resume, in the pending order, or `ApprovalError` (nothing applied).

    Args:
        pending: What the turn waits for; None or empty when nothing waits.
        approvals: ``{call_id: Approval}``; every pending call needs one.
        recorded_calls: The tool calls the stored history holds, ``{id: (name, arguments)}``.
        saved_model: ``(provider, model)`` the turn ran on.
        model: ``(provider, model)`` the resume would run on.

    Raises:
        ApprovalError: Named by ``code`` (see the class).
        InvalidArgumentTypeError: ``approvals`` is not a mapping of str to `Approval`.
    """
    if not isinstance(approvals, Mapping):
        raise InvalidArgumentTypeError(
            f"approvals must be a dict of call id to Approval, got {type(approvals).__name__}"
        )
    for call_id, approval in approvals.items():
        if not isinstance(call_id, str) or not isinstance(approval, Approval):
            raise InvalidArgumentTypeError(
                f"approvals must map call ids (str) to Approval, got {call_id!r}: "
                f"{type(approval).__name__}"
            )
    if not pending:
        raise ApprovalError(
            "nothing is awaiting approval: the turn was never deferred or was already resumed",
            code="nothing_pending",
        )
    ids = [p.call_id for p in pending]
    for call_id in approvals:
        if call_id not in ids:
            raise ApprovalError(
                f"call id {call_id!r} is not awaiting approval here (pending: {ids})",
                code="unknown_call",
                call_id=call_id,
            )
    for call_id in ids:
        if call_id not in approvals:
            raise ApprovalError(
                f"no answer for pending call {call_id!r}: every pending call needs an Approval",
                code="missing_call",
                call_id=call_id,
            )
    if tuple(saved_model) != tuple(model):
        raise ApprovalError(
            f"the turn waiting for approval ran on {saved_model[0]}/{saved_model[1]}; it "
            f"cannot resume on {model[0]}/{model[1]} (resume it with the same model)",
            code="model_changed",
        )
    for p in pending:
        recorded = recorded_calls.get(p.call_id)
        if recorded is None:
            raise ApprovalError(
                f"call {p.call_id!r} ({p.tool_name}) is no longer in the session's history: "
                "it was truncated past the turn waiting for approval",
                code="truncated",
                call_id=p.call_id,
            )
        name, arguments = recorded
        if name != p.tool_name or _canonical(arguments) != _canonical(p.arguments):
            raise ApprovalError(
                f"call {p.call_id!r} ({p.tool_name}): the recorded arguments do not match the "
                "history's tool call (the saved session was edited); refused",
                code="tampered",
                call_id=p.call_id,
            )
    return [Decision(p, approvals[p.call_id]) for p in pending]
