"""A deferred tool call, as the run loop sees it: recorded, not run, and the run ends
after its tool round (``status == "awaiting_approval"``).

`defers` is asked at every ``before_tool_call``: a hook's ``HookDirective(action="defer")``
records a `PendingApproval` and the call gets no result this round (a resume's approved
calls are exempt). `park` ends the run once the round is recorded.
"""

from __future__ import annotations

from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.approvals import PendingApproval
from doc_processing_toolkit.domain.events import HookDirective
from doc_processing_toolkit.domain.messages import ToolCallPart

__all__ = ["defers", "park"]


def defers(directive: HookDirective | None, call: ToolCallPart, outcome: RunOutcome) -> bool:
    """Record ``call`` as pending when ``directive`` defers it (and it is not approved)."""
    if directive is None or directive.action != "defer" or call.id in outcome.approved_call_ids:
        return False
    outcome.pending_approvals.append(
        PendingApproval(call.id, call.name, dict(call.arguments), directive.reason)
    )
    return True


def park(outcome: RunOutcome) -> None:
    """End the run after a round with deferred calls: the pending calls keep the round's
    order, and a round whose calls were all deferred leaves no empty tool message."""
    last = outcome.messages[-1] if outcome.messages else None
    if last is not None and last.role == "tool" and not last.parts:
        outcome.messages.pop()
    asked = next((m for m in reversed(outcome.messages) if m.role == "assistant"), None)
    calls = [c.id for c in asked.tool_calls] if asked is not None else []
    outcome.pending_approvals.sort(
        key=lambda p: calls.index(p.call_id) if p.call_id in calls else len(calls)
    )
