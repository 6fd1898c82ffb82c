"""The event vocabulary: AgentStreamEvent (what a run reports) and HookDirective (how a
hook steers it).

Every observation of a run — stream events and hook points alike — goes through one
channel as an `AgentStreamEvent`. Hook points are the subset a hook is awaited at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = [
    "HOOK_POINTS",
    "OBSERVATION_ONLY_EVENTS",
    "REQUEST_PURPOSES",
    "STREAM_EVENT_TYPES",
    "AgentStreamEvent",
    "EventType",
    "HookAction",
    "HookDirective",
]

EventType: TypeAlias = Literal[
    "run_start",
    "iteration_start",
    "request_start",
    "text_delta",
    "thinking_delta",
    "tool_call_start",
    "before_tool_call",
    "tool_call_result",
    "iteration_complete",
    "run_end",
    "error",
    "complete",
    "turn_start",
    "turn_complete",
    "citation",
]

STREAM_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "text_delta",
        "thinking_delta",
        "tool_call_start",
        "tool_call_result",
        "iteration_complete",
        "error",
        "complete",
        "request_start",
        "turn_start",
        "turn_complete",
        "citation",
    }
)
"""Events a ``stream()`` consumer can see (``citation`` only under ``Agent(citations=True)``)."""

HOOK_POINTS: frozenset[str] = frozenset(
    {
        "run_start",
        "iteration_start",
        "tool_call_start",
        "before_tool_call",
        "tool_call_result",
        "iteration_complete",
        "run_end",
        "request_start",
    }
)
"""Events a hook is awaited at (deltas never are: a hook per token would stall streaming)."""

OBSERVATION_ONLY_EVENTS: frozenset[str] = frozenset({"request_start"})
"""Hook points where any directive other than continue is ignored with a WARNING."""

REQUEST_PURPOSES: tuple[str, ...] = (
    "generation",
    "tool_followup",
    "max_tokens_continuation",
    "truncation_retry",
    "empty_turn_retry",
    "pause_turn_continuation",
    "compaction_summary",
    "document_chunk",
    "document_reduce",
    "output_retry",
)
"""Why a request was sent (``request_start`` metadata and ``IterationMetrics.purpose``)."""

HookAction: TypeAlias = Literal[
    "continue", "skip_tool", "inject_message", "pause", "abort", "defer"
]


@dataclass(slots=True)
class AgentStreamEvent:
    """A single event emitted during ``Agent.stream()`` (and delivered to hooks)."""

    event_type: EventType
    """One of `EventType`."""
    content: Any = None
    """The text chunk for deltas, the message for ``error``; None otherwise."""
    metadata: dict[str, Any] | None = None
    """Event-specific data (see the event vocabulary in the API reference)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form."""
        return {"event_type": self.event_type, "content": self.content, "metadata": self.metadata}


@dataclass(frozen=True, slots=True)
class HookDirective:
    """Directive returned by a hook to steer the run."""

    action: HookAction = "continue"
    """One of "continue", "skip_tool", "inject_message", "pause", "abort", "defer".

    ``defer`` (honoured at before_tool_call only) leaves the call to a person: it does not
    run, the run ends after its tool round with ``status == "awaiting_approval"`` and the
    call in ``pending_approvals``; ``AgentSession.resume`` continues the turn."""
    message: str | None = None
    """inject_message: the user text; skip_tool: the declined result's text."""
    reason: str | None = None
    """Free-text rationale (logged; carried on AgentAborted and on a PendingApproval)."""

    def __post_init__(self) -> None:
        if self.action not in (
            "continue",
            "skip_tool",
            "inject_message",
            "pause",
            "abort",
            "defer",
        ):
            raise ConfigurationError(
                f"HookDirective action {self.action!r} is not one of "
                "'continue', 'skip_tool', 'inject_message', 'pause', 'abort', 'defer'"
            )
        if self.action == "inject_message" and not self.message:
            raise ConfigurationError("HookDirective(action='inject_message') needs a message")
