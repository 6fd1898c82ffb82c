"""Resuming a waiting turn from outside a session: `Agent.resume` (`resume_session`) and the
envelope of a plain run or fleet job that ended ``awaiting_approval`` (`waiting_envelope`).
The resume itself is `AgentSession.resume` (``approvals.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.application.run.run_input import RunInput
from doc_processing_toolkit.application.session.native import copy_tree
from doc_processing_toolkit.application.session.session import AgentSession
from doc_processing_toolkit.application.session.state import SessionAgent
from doc_processing_toolkit.domain.approvals import Approval

__all__ = ["resume_session", "waiting_envelope"]


def waiting_envelope(
    agent: SessionAgent, result: AgentResult, run_input: RunInput | None = None
) -> dict[str, Any]:
    """The envelope of a one-turn session holding ``result``'s waiting turn (a run that
    ended ``awaiting_approval`` outside a session, e.g. a fleet job): resumable anywhere
    (``run_input``: the run's, so a structured turn resumes with its schema)."""
    session = AgentSession(agent)
    session._turns.commit(copy_tree(list(result.messages)), result, run_input)
    return session.to_dict()


async def resume_session(
    agent: SessionAgent, source: Any, approvals: Mapping[str, Approval]
) -> AgentResult:
    """`Agent.resume`: ``source`` is an AgentSession (resumed in place), its envelope (a
    dict, JSON text or bytes, or a file path) restored on ``agent``, or the AgentResult of
    a run that ended ``awaiting_approval`` outside a session."""
    if isinstance(source, AgentSession):
        return await source.resume(approvals)
    if isinstance(source, AgentResult):
        session = AgentSession.from_dict(waiting_envelope(agent, source), agent)
    elif isinstance(source, dict):
        session = AgentSession.from_dict(source, agent)
    else:
        session = AgentSession.from_json(source, agent=agent)
    return await session.resume(approvals)
