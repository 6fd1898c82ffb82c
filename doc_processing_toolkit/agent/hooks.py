"""Hooks and real-time steering for Agent runs (documented import path).

A hook is an async (or plain sync) callable handed to ``Agent(hooks=...)`` that the
toolkit awaits at defined points in the tool-calling loop; it receives an
`AgentStreamEvent` and may return a `HookDirective`. Thin re-exports only;
the behaviour lives in ``application/hooks``. See docs/guide/hooks.md.
"""

from doc_processing_toolkit.application.hooks.confirm import ConfirmAfterNToolCalls
from doc_processing_toolkit.application.hooks.handle import RunHandle
from doc_processing_toolkit.application.hooks.messages import (
    build_injected_user_message,
    stream_callback_accepts_metadata,
)
from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter
from doc_processing_toolkit.application.hooks.runner import AgentHooks, HookRunner
from doc_processing_toolkit.domain.errors import AgentAborted
from doc_processing_toolkit.domain.events import (
    HOOK_POINTS,
    OBSERVATION_ONLY_EVENTS,
    REQUEST_PURPOSES,
    AgentStreamEvent,
    HookDirective,
)

__all__ = [
    "HOOK_POINTS",
    "OBSERVATION_ONLY_EVENTS",
    "REQUEST_PURPOSES",
    "AgentAborted",
    "AgentHooks",
    "AgentStreamEvent",
    "ConfirmAfterNToolCalls",
    "HookDirective",
    "HookRunner",
    "RequestStartEmitter",
    "RunHandle",
    "build_injected_user_message",
    "stream_callback_accepts_metadata",
]
