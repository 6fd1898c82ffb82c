"""HookRunner: bridges the run loop to the user's hooks (one instance per run).

The loop emits every hook point through its EventChannel, which hands the event to
`HookRunner.dispatch`. The runner awaits the hook, contains what it raises, and
enforces the directive:

* ``skip_tool`` and ``defer`` come back to the before_tool_call site (the only place a veto
  or a deferral means anything); anywhere else they are ignored with a WARNING;
* ``inject_message`` is queued for the next turn boundary (`drain_injections`);
* ``pause`` / ``abort`` are requests on the run's `RunHandle`, honoured at the
  next safe point. Safe points are run_start, iteration_start, request_start and
  iteration_complete (between tool rounds), and before_tool_call (before that tool runs).
  Nothing pre-empts a tool that is already executing: an abort asked for during a tool
  round declines the calls that have not started and is raised once the round's results
  are in.

A synchronous hook runs on a worker thread (``anyio.to_thread``), as a synchronous tool
does, so a slow one never stalls the event loop (another run's stream, a session's other
agent); ``DPT_SYNC_HOOKS_OFFLOOP=off`` calls it on the loop thread as before. An abort
(`RunHandle.abort`) cancels the hook call the run is waiting on: the run stops
waiting at once (a synchronous hook's thread finishes on its own, its answer dropped) and
the abort is raised at the next safe point. A hook called after an abort was requested
(``run_end``, say) gets `ABORTED_HOOK_GRACE_S` to return, then is cancelled.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.hooks.handle import RunHandle
from doc_processing_toolkit.domain.errors import AgentAborted, InvalidArgumentTypeError
from doc_processing_toolkit.domain.events import (
    OBSERVATION_ONLY_EVENTS,
    AgentStreamEvent,
    EventType,
    HookDirective,
)

__all__ = [
    "ABORTED_HOOK_GRACE_S",
    "ABORTED_TOOL_TEXT",
    "SAFE_POINTS",
    "VETO_POINTS",
    "AgentHooks",
    "HookRunner",
]

log = get_logger(__name__)

SAFE_POINTS: frozenset[str] = frozenset(
    {"run_start", "iteration_start", "request_start", "iteration_complete"}
)
"""Hook points where a requested pause parks the run and a requested abort is raised."""

VETO_POINTS: frozenset[str] = frozenset({"before_tool_call"})
"""The hook points whose skip_tool directive is honoured."""

ABORTED_TOOL_TEXT = "The run was aborted by the host application before this tool ran."
"""The declined result a tool call gets when an abort arrived before it started."""

ABORTED_HOOK_GRACE_S = 5.0
"""Seconds a hook called after an abort was requested may take before it is cancelled."""


_CANCELLED = object()
"""What `HookRunner._wait` gives for a hook call an abort cancelled (or one that
outlasted the grace after an abort)."""


def _is_async(target: Any) -> bool:
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


async def _in_thread(target: HookCallable, event: AgentStreamEvent) -> Any:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(functools.partial(target, event), abandon_on_cancel=True)


@runtime_checkable
class AgentHooks(Protocol):
    """Protocol for hook objects: a single awaited entry point."""

    def __call__(
        self, event: AgentStreamEvent
    ) -> Awaitable[HookDirective | None] | HookDirective | None:
        """Receive one hook point; return a directive (or None for continue)."""
        ...


HookCallable = Callable[[AgentStreamEvent], Any]


def _resolve(hooks: Any, event_type: str) -> HookCallable | None:
    """The callable that receives ``event_type``: an ``on_<event>`` / ``<event>`` method of a
    hook object, else the object itself when it is callable."""
    for name in (f"on_{event_type}", event_type):
        method = getattr(hooks, name, None)
        if callable(method):
            return method  # type: ignore[no-any-return]
    if callable(hooks):
        return hooks  # type: ignore[no-any-return]
    return None


def validate_hooks(hooks: Any) -> None:
    """Refuse a hooks value that can receive no event.

    Raises:
        TypeError: ``hooks`` is neither callable nor an object with per-event methods.
    """
    if hooks is None or callable(hooks):
        return
    from doc_processing_toolkit.domain.events import HOOK_POINTS

    if not any(_resolve(hooks, name) is not None for name in HOOK_POINTS):
        raise InvalidArgumentTypeError(
            "hooks must be a callable (sync or async) taking an AgentStreamEvent, or an "
            "object with per-event methods such as on_before_tool_call(event); got "
            f"{type(hooks).__name__}"
        )


class HookRunner:
    """Bridges the provider loops to the user's hooks. One instance per run."""

    def __init__(
        self,
        hooks: Any | None = None,
        *,
        handle: RunHandle | None = None,
        logger: Any = None,
    ) -> None:
        """Args:
        hooks: A callable (sync or async) or an object with per-event methods; None:
            no hook (the run handle's pause/abort/inject still work).
        handle: The run's handle (a new one when None); bound when the run starts.
        """
        self._hooks = hooks
        self._offloop = environment.sync_hooks_offloop()
        self.handle = handle if handle is not None else RunHandle()
        self._log = logger or log
        self._lock = threading.Lock()
        self._queue: list[str] = []
        self._closed = False
        self.consumed_injections: list[str] = []
        """Every text a turn boundary delivered, in order (AgentResult.injected_messages)."""
        self.undelivered: list[str] = []
        """Every text taken from the queue undelivered (by take_undelivered / close)."""
        self.partial: dict[str, Any] = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cost": 0.0,
            "iterations": 0,
        }
        """Best-effort partial state (what AgentAborted carries)."""

    def bind(self) -> None:
        """Bind the run handle to the running loop and this runner's queue."""
        self.handle.bind(self)

    # ------------------------------------------------------------------ the hook
    async def _call(self, event: AgentStreamEvent) -> HookDirective | None:
        if self._hooks is None:
            return None
        target = _resolve(self._hooks, event.event_type)
        if target is None:
            return None
        try:
            if _is_async(target) or not self._offloop:
                value = target(event)
            else:
                value = await self._wait(_in_thread(target, event), event.event_type)
            if inspect.isawaitable(value):
                value = await self._wait(value, event.event_type)
            if value is _CANCELLED:
                return None  # the abort is raised at the next safe point
        except AgentAborted as exc:  # a hook may raise the abort itself
            return HookDirective("abort", reason=exc.reason)
        except Exception as exc:
            self._log.warning(
                "a hook raised; the run goes on",
                hook_event=event.event_type,
                error=f"{type(exc).__name__}: {exc}",
            )
            return None
        if value is None or isinstance(value, HookDirective):
            return value
        self._log.warning(
            "a hook returned something other than a HookDirective or None; ignored",
            hook_event=event.event_type,
            returned=type(value).__name__,
        )
        return None

    async def _wait(self, awaitable: Awaitable[Any], event_type: str) -> Any:
        """Await a hook call that `RunHandle.abort` can cancel; `_CANCELLED`
        when an abort cancelled it, or it outlasted the grace after one."""
        future = asyncio.ensure_future(awaitable)
        if not self.handle.track_hook(future):  # an abort is already requested
            done, _ = await asyncio.wait({future}, timeout=ABORTED_HOOK_GRACE_S)
            if not done:
                future.cancel()
                self._log.warning(
                    "a hook did not return within the grace after an abort; cancelled",
                    hook_event=event_type,
                    grace_s=ABORTED_HOOK_GRACE_S,
                )
                return _CANCELLED
            return future.result()
        try:
            return await future
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the run itself is cancelled
            self._log.info("a pending hook was cancelled by an abort", hook_event=event_type)
            return _CANCELLED
        finally:
            self.handle.untrack_hook(future)

    async def emit(
        self, event_type: EventType, content: Any = None, metadata: dict[str, Any] | None = None
    ) -> HookDirective | None:
        """Emit one event to the hook and enforce its directive.

        Returns the directive ONLY when the caller must act on it locally (skip_tool at a
        before_tool_call site). pause and abort are handled here; inject_message is
        queued for `drain_injections` at the next turn boundary.

        Raises:
            AgentAborted: When the hook (or the run handle) requested an abort.
        """
        return await self.dispatch(AgentStreamEvent(event_type, content, metadata))

    async def dispatch(self, event: AgentStreamEvent) -> HookDirective | None:
        """`emit` for a built event (the EventChannel's entry point)."""
        kind = event.event_type
        if kind == "iteration_start" and event.metadata:
            self.partial["iterations"] = int(event.metadata.get("iteration", 0))
        directive = await self._call(event)
        if directive is not None and directive.action != "continue":
            if kind in OBSERVATION_ONLY_EVENTS:
                self._log.warning(
                    "hook directive ignored: this event is observation-only",
                    hook_event=kind,
                    action=directive.action,
                )
                directive = None
            elif kind == "run_end" and directive.action in ("pause", "abort", "skip_tool", "defer"):
                self._log.warning(
                    "hook directive ignored: the run has ended",
                    hook_event=kind,
                    action=directive.action,
                )
                directive = None
        local = self._apply(kind, directive)
        vetoed = await self._safe_point(kind)
        return vetoed if vetoed is not None else local

    @property
    def has_hook(self) -> bool:
        """Whether the run has a hook (without one, only the run handle acts)."""
        return self._hooks is not None

    async def checkpoint(self, kind: str, metadata: dict[str, Any] | None) -> HookDirective | None:
        """`dispatch` for a run without a hook, with no event built: the run handle's
        pause, abort and skip at this point, and the partial iteration count."""
        if kind == "iteration_start" and metadata:
            self.partial["iterations"] = int(metadata.get("iteration", 0))
        return await self._safe_point(kind)

    async def _safe_point(self, kind: str) -> HookDirective | None:
        """Park while paused at a safe point; at a veto point, the skip an abort makes.

        Raises:
            AgentAborted: at a safe point, when an abort was requested.
        """
        if kind in SAFE_POINTS:
            await self.handle.wait_while_paused(self.partial)
        elif kind in VETO_POINTS:
            if self.handle.abort_requested:
                return HookDirective("skip_tool", message=ABORTED_TOOL_TEXT, reason="aborted")
            await self._park_before_tool()
            if self.handle.abort_requested:
                return HookDirective("skip_tool", message=ABORTED_TOOL_TEXT, reason="aborted")
        return None

    async def observe(self, event: AgentStreamEvent) -> None:
        """Deliver ``event`` to the hook as observation only (any directive is ignored with
        a WARNING): how a closed stream's spend reaches the hooks."""
        directive = await self._call(event)
        if directive is not None and directive.action != "continue":
            self._log.warning(
                "hook directive ignored: this event is observation-only",
                hook_event=event.event_type,
                action=directive.action,
            )

    async def _park_before_tool(self) -> None:
        try:
            await self.handle.wait_while_paused(self.partial)
        except AgentAborted:
            pass  # raised at the round's end, once every call has its result

    def _apply(self, kind: str, directive: HookDirective | None) -> HookDirective | None:
        if directive is None:
            return None
        action = directive.action
        if directive.reason:
            self._log.info(
                "hook directive", hook_event=kind, action=action, reason=directive.reason
            )
        if action in ("skip_tool", "defer"):
            if kind in VETO_POINTS:
                return directive
            self._log.warning(
                f"{action} is honoured only at before_tool_call; ignored", hook_event=kind
            )
        elif action == "inject_message":
            if not self.queue_injection(directive.message or ""):
                self._log.warning("inject_message after the run ended; dropped", hook_event=kind)
        elif action == "pause":
            self.handle.pause()
        elif action == "abort":
            self.handle.abort(directive.reason)
        return None

    # ------------------------------------------------------------------ injections
    def queue_injection(self, text: str) -> bool:
        """Append a user-role text to the pending queue. Thread-safe.

        Returns:
            True when the text was queued; False when the run's end-of-run capture has
            already taken the queue (nothing would ever read it).
        """
        with self._lock:
            if self._closed:
                return False
            self._queue.append(text)
            return True

    def has_injections(self) -> bool:
        """True when injection texts are queued for the next turn boundary."""
        with self._lock:
            return bool(self._queue)

    def drain_injections(self) -> list[str]:
        """Return and clear the queued texts (recorded on `consumed_injections`)."""
        with self._lock:
            texts, self._queue = self._queue, []
            self.consumed_injections.extend(texts)
        return texts

    def take_undelivered(self) -> list[str]:
        """Return and clear the texts never shown to the model, and close the queue.

        Does not record into `consumed_injections`: these texts were never appended
        to any message list.
        """
        with self._lock:
            texts, self._queue = self._queue, []
            self._closed = True
            self.undelivered.extend(texts)
        return texts

    def close_injections(self) -> list[str]:
        """Close the queue and return anything stranded in it (idempotent)."""
        return self.take_undelivered()

    # ------------------------------------------------------------------ partial state
    def track_usage(self, input_tokens: int = 0, output_tokens: int = 0, cost: float = 0.0) -> None:
        """Accumulate best-effort partial state (used by AgentAborted)."""
        self.partial["input_tokens"] += int(input_tokens)
        self.partial["output_tokens"] += int(output_tokens)
        self.partial["cost"] += float(cost)
