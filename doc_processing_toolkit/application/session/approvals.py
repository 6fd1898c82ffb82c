"""A session's turn that waits for a person, and its resume in any process.

A turn that ends ``awaiting_approval`` is committed like any turn (its messages, with the
open tool round, its spend, its run boundary), and ``metadata["awaiting_approval"]`` records
what waits: the pending calls, where the turn sits in the history, the iteration it stopped
at and the provider/model it ran on. The record travels with the envelope (``to_json``)
and the per-turn store (``SqliteSessionStore``), so any process can resume the turn.

`ApprovalResumer.resume` checks the answers (domain/approvals.py, `check_resume`), runs the
turn on from its deferred round, and replaces the turn's stored messages by the whole turn.
A resume that fails a check changes nothing; a new ``run()`` on a session whose turn waits
is refused (`StateError`) until the turn is resumed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.loop.resumed import ResumeState
from doc_processing_toolkit.application.run.run_input import RunInput
from doc_processing_toolkit.application.session.awaiting import (
    mark_awaiting,
    pending_of,
    resumed_options,
)
from doc_processing_toolkit.application.session.metadata import fold_spend
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.saving import SessionSaver
from doc_processing_toolkit.application.session.state import SessionState
from doc_processing_toolkit.application.session.turns import TurnRunner
from doc_processing_toolkit.domain.approvals import Approval, check_resume
from doc_processing_toolkit.domain.errors import ApprovalError

__all__ = ["RESUME_MESSAGE", "ApprovalResumer"]

RESUME_MESSAGE = "(resumed after approval)"
"""The RunInput message of a resume (never sent: a resume adds no user message)."""


class ApprovalResumer:
    """Resumes a session's waiting turn with a person's answers."""

    def __init__(self, state: SessionState, saver: SessionSaver, turns: TurnRunner) -> None:
        self.state, self.saver, self.turns = state, saver, turns

    async def resume(self, approvals: Mapping[str, Approval]) -> AgentResult:
        """Continue the waiting turn (see `AgentSession.resume`)."""
        state = self.state
        state.check_open()
        state.check_idle()
        awaiting = state.metadata.get("awaiting_approval")
        pending = pending_of(state.metadata)
        history, _scope, turn = await self.turns._turn_history()
        recorded = {c.id: (c.name, dict(c.arguments)) for m in history for c in m.tool_calls}
        saved = ("", "")
        if isinstance(awaiting, dict):
            saved = (str(awaiting.get("provider")), str(awaiting.get("model")))
            if len(state.messages) != int(awaiting.get("end", -1)):
                recorded = {}  # the history no longer ends with the waiting turn
        agent = state.agent
        decisions = check_resume(
            pending,
            approvals,
            recorded_calls=recorded,
            saved_model=saved,
            model=(agent.provider, agent.model),
        )
        assert isinstance(awaiting, dict)
        options = resumed_options(awaiting, state.awaiting_schema)  # the turn's schema
        resume = ResumeState(tuple(decisions), int(awaiting.get("iteration", 1)))
        run_input = RunInput(RESUME_MESSAGE, purpose="tool_followup", **options)
        turn = dataclasses.replace(turn, resume=resume)
        snapshot = copy_tree(state.metadata)
        state.last_turn_results = []
        state.in_flight = True
        guard = self.turns.enter_turn()
        try:
            result, error = await agent.run_turn(run_input, turn)
        finally:
            state.in_flight = False
            self.turns.leave_turn(guard)
        if isinstance(error, ApprovalError):  # refused before anything ran
            state.metadata = snapshot
            raise error
        for record in result.request_cost_records:  # the turn's numbering goes on
            record["request_index"] = int(record.get("request_index", 0)) + int(
                awaiting.get("requests", 0)
            )
        if error is not None:
            self.turns.bank_failure(run_input, result, error)
            raise error
        self._commit(result, awaiting)
        return result

    def _commit(self, result: AgentResult, awaiting: dict[str, Any]) -> None:
        """Replace the waiting turn's stored messages by the whole turn, all at once."""
        state = self.state
        native = state.native()
        start = int(awaiting["start"])
        prefix = state.messages[:start]
        full = list(result.messages)
        if full[:start] == prefix:
            turn_messages = copy_tree(full[start:])
        else:
            turn_messages = native.render(native.parse(full)[len(native.parse(prefix)) :])
        messages = [*prefix, *turn_messages]
        metadata = copy_tree(state.metadata)
        fold_spend(metadata, result)
        end = start + len(turn_messages)
        for boundary in metadata.get("run_boundaries", []):
            if boundary.get("run") == awaiting.get("run"):
                boundary["end"] = end
        mark_awaiting(
            metadata,
            result,
            start=start,
            end=end,
            run=int(awaiting.get("run", 0)),
            agent=state.agent,
        )
        if state.store is not None:
            header = self.saver.store_header(messages, metadata, state.media_table)
            self.saver.store_rewrite(messages, header)
        state.messages, state.metadata = messages, metadata
        state.last_turn_results.append(result)
