"""The one event channel of a run.

Every observation — stream events and hook points — goes through `EventChannel.emit`.
Stream-visible events reach the stream sink (``Agent.stream()`` consumers and the
``stream_callback`` tap); hook points reach the hook runner, whose directive comes back
to the call site. The hooks issue adds directive handling in the runner only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from doc_processing_toolkit.domain.events import (
    HOOK_POINTS,
    STREAM_EVENT_TYPES,
    AgentStreamEvent,
    EventType,
    HookDirective,
)

__all__ = ["EventChannel", "EventSink", "HookDispatcher"]

EventSink = Callable[[AgentStreamEvent], Awaitable[None]]
"""Receives stream-visible events in order."""


class HookDispatcher(Protocol):
    """Awaits the user's hook for one hook point and returns its directive."""

    async def dispatch(self, event: AgentStreamEvent) -> HookDirective | None:
        """Deliver ``event``; return a directive the call site must act on, else None."""
        ...

    @property
    def has_hook(self) -> bool:
        """False when nothing but the run's own checks (pause, abort) listens."""
        ...

    async def checkpoint(self, kind: str, metadata: dict[str, Any] | None) -> HookDirective | None:
        """What `dispatch` does for ``kind`` when there is no hook (no event built)."""
        ...


class EventChannel:
    """Routes each event to the stream sink and/or the hooks."""

    def __init__(
        self,
        sink: EventSink | None = None,
        hooks: HookDispatcher | None = None,
        *,
        emit_request_start: bool = False,
    ) -> None:
        self._sink = sink
        self._hooks = hooks
        self._checkpoint_only = hooks is not None and not hooks.has_hook
        """Only the run handle listens (no hook): hook points build no event."""
        self.emit_request_start = emit_request_start

    @property
    def takes_deltas(self) -> bool:
        """Whether text and thinking deltas go anywhere (only a stream sink takes them;
        a hook never sees a delta): without one the loop does not hand them over."""
        return self._sink is not None

    async def emit(
        self, event_type: EventType, content: Any = None, metadata: dict[str, Any] | None = None
    ) -> HookDirective | None:
        """Emit one event. Returns the hook's directive at hook points, else None."""
        if event_type == "request_start" and not self.emit_request_start:
            return None
        to_sink = self._sink is not None and event_type in STREAM_EVENT_TYPES
        to_hooks = self._hooks is not None and event_type in HOOK_POINTS
        if not to_sink:
            if not to_hooks:
                return None  # run() without hooks: no event object is built for nobody
            assert self._hooks is not None
            if self._checkpoint_only:  # only the run handle: still no event object
                return await self._hooks.checkpoint(event_type, metadata)
        event = AgentStreamEvent(event_type, content, metadata)
        if to_sink:
            assert self._sink is not None
            await self._sink(event)
        if to_hooks:
            assert self._hooks is not None
            return await self._hooks.dispatch(event)
        return None
