"""Hooks and real-time steering for Agent runs (documented import path).

A hook is an async (or plain sync) callable handed to ``Agent(hooks=...)`` that the
toolkit awaits at defined points in the tool-calling loop; it receives an
`AgentStreamEvent` and may return a `HookDirective`. Thin re-exports only (plus the
composition root's codecs handed to `build_injected_user_message`); the behaviour lives
in ``application/hooks``. See docs/guide/hooks.md.
"""

from typing import Any

from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.application.hooks import messages as _messages
from doc_processing_toolkit.application.hooks.confirm import ConfirmAfterNToolCalls, RequireApproval
from doc_processing_toolkit.application.hooks.handle import RunHandle
from doc_processing_toolkit.application.hooks.messages import stream_callback_accepts_metadata
from doc_processing_toolkit.application.hooks.request_start import RequestStartEmitter
from doc_processing_toolkit.application.hooks.runner import AgentHooks, HookRunner
from doc_processing_toolkit.domain.approvals import Approval, PendingApproval
from doc_processing_toolkit.domain.errors import AgentAborted, ApprovalError
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
    "Approval",
    "ApprovalError",
    "ConfirmAfterNToolCalls",
    "HookDirective",
    "HookRunner",
    "PendingApproval",
    "RequestStartEmitter",
    "RequireApproval",
    "RunHandle",
    "build_injected_user_message",
    "stream_callback_accepts_metadata",
]


def build_injected_user_message(provider: str, text: str) -> Any:
    """Build a provider-native user-role message carrying ``text``.

    The provider's history codec renders it, so a plug-in provider gets its own shape.

    Args:
        provider: A registry provider name (a built-in one or a plug-in's).
        text: The message text to inject.

    Returns:
        A provider-native message dict appendable to the loop's live message list (the
        neutral IR form when the provider has no codec).

    Raises:
        ValueError: ``text`` is not a non-empty string.
    """
    codecs = container_deps().history_codecs
    return _messages.build_injected_user_message(provider, text, history_codecs=codecs)
