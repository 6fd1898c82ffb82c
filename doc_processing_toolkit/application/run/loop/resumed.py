"""The run loop of a resumed turn: it first settles the calls a person answered, then goes
on as any run does.

A turn that ended ``awaiting_approval`` is stored with its open tool round: the assistant
message that asked for the calls and the results of the calls that were not deferred.
`ResumedRunLoop` runs the approved calls (with the arguments that were recorded: the
history's own call), gives each refused call an error result carrying the reviewer's
message, merges them into that round's tool message in call order, and continues the
loop from the iteration the turn stopped at, with a ``tool_followup`` request. No request
made before the deferral is sent again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.run.loop.loop import RunLoop
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.approvals import Decision, refusal_text
from doc_processing_toolkit.domain.errors import ApprovalError
from doc_processing_toolkit.domain.messages import Message, ToolCallPart, ToolResultPart
from doc_processing_toolkit.domain.tools.specs import ToolOutcome, ToolSpec

__all__ = ["ResumeState", "ResumedRunLoop", "loop_type", "resumed_messages"]


@dataclass(frozen=True, slots=True)
class ResumeState:
    """What a resume carries into the run: the checked decisions and where the turn stopped."""

    decisions: tuple[Decision, ...]
    iteration: int
    """The iteration whose tool round was deferred."""


def loop_type(history: Any) -> Callable[..., RunLoop]:
    """The loop class for a run after ``history`` (a TurnHistory or None)."""
    resume = getattr(history, "resume", None)
    if resume is None:
        return RunLoop

    def build(*args: Any, **kwargs: Any) -> RunLoop:
        return ResumedRunLoop(*args, resume=resume, **kwargs)

    return build


def resumed_messages(history: Any) -> list[Message] | None:
    """A resumed turn's messages (its history, no new user message); None otherwise."""
    if history is None or getattr(history, "resume", None) is None:
        return None
    return list(history.messages)


class ResumedRunLoop(RunLoop):
    """`RunLoop` that settles a deferred tool round before its first request."""

    def __init__(self, *args: Any, resume: ResumeState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resume = resume
        self._settled = False

    async def _request_tools(self) -> tuple[list[ToolSpec], bool]:
        specs = await super()._request_tools()
        if not self._settled and self.outcome is not None:
            self._settled = True
            await self._settle(self.outcome)
        return specs

    async def _settle(self, outcome: RunOutcome) -> None:
        decisions = self._resume.decisions
        for d in decisions:  # every check before anything runs: never a half-resumed turn
            if d.approval.approved and not self._tools.offers(d.pending.tool_name):
                raise ApprovalError(
                    f"call {d.pending.call_id!r}: tool {d.pending.tool_name!r} is not offered "
                    "by this Agent any more (its tool surface changed); nothing was run",
                    code="tool_missing",
                    call_id=d.pending.call_id,
                )
        index, asked = _asking_message(outcome.messages, [d.pending.call_id for d in decisions])
        outcome.iterations = self._resume.iteration
        outcome.approved_call_ids = frozenset(
            d.pending.call_id for d in decisions if d.approval.approved
        )
        calls = {c.id: c for c in asked.tool_calls}
        settled: dict[str, ToolResultPart] = {}
        for d in decisions:
            call = calls[d.pending.call_id]
            if d.approval.approved:
                part = await self._run_approved(call, outcome)
            else:
                part = await self._refuse(call, d.approval.message)
            if part is not None:
                settled[call.id] = part
        following = index + 1 < len(outcome.messages)
        existing = outcome.messages[index + 1] if following else None
        if existing is not None and existing.role == "tool":
            for kept in existing.parts:
                if isinstance(kept, ToolResultPart):
                    settled.setdefault(kept.call_id, kept)
        parts = tuple(settled[c.id] for c in asked.tool_calls if c.id in settled)
        if existing is not None and existing.role == "tool":
            outcome.messages[index + 1] = Message("tool", parts)
        else:
            outcome.messages.insert(index + 1, Message("tool", parts))

    async def _run_approved(self, call: ToolCallPart, outcome: RunOutcome) -> ToolResultPart | None:
        ran: list[bool] = []
        part = await self._run_tool(call, self._resume.iteration, outcome, lambda: ran.append(True))
        if ran:
            outcome.tools_used.append(call.name)
        return part

    async def _refuse(self, call: ToolCallPart, message: str | None) -> ToolResultPart:
        text = refusal_text(message)
        base = {
            "tool_name": call.name,
            "tool_call_id": call.id,
            "iteration": self._resume.iteration,
        }
        await self._channel.emit(
            "tool_call_result",
            None,
            {**base, "result": text, "result_truncated": False, "success": False, "refused": True},
        )
        return ToolResultPart(call.id, call.name, ToolOutcome.error(text).content, True)


def _asking_message(messages: list[Message], call_ids: list[str]) -> tuple[int, Message]:
    """The index and message of the assistant turn that asked for ``call_ids``."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant" and {c.id for c in message.tool_calls} >= set(call_ids):
            return index, message
    raise ApprovalError(
        f"the history holds no tool round asking for {call_ids}: it was truncated past the "
        "turn waiting for approval",
        code="truncated",
    )
