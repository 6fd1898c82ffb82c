"""Whether the runs this context starts send the system prompt.

A session configured with ``session_history_config={"include_system_prompt": False}``
sends its turns without the Agent's instructions (and without what the tool planner adds to
them). The session marks its turns here, around each run it starts, the same way it holds
its frozen tool surface (`doc_processing_toolkit.application.run.policy.tool_surface`), so the
Agent's run path needs no extra parameter; `run_system` is read once per run, where
the run's settings are derived.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

__all__ = ["omit_system_prompt", "restore_system_prompt", "run_system"]

_OMIT: ContextVar[bool] = ContextVar("dpt_omit_system_prompt", default=False)


def omit_system_prompt(omit: bool) -> Token[bool]:
    """Mark (``omit=True``) or unmark the runs this context starts; a token to restore."""
    return _OMIT.set(bool(omit))


def restore_system_prompt(token: Token[bool]) -> None:
    """Undo `omit_system_prompt`."""
    _OMIT.reset(token)


def run_system(system: str) -> str:
    """The system prompt a run sends: ``system``, or ``""`` inside a marked context."""
    return "" if _OMIT.get() else system
