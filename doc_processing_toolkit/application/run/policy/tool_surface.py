"""A session's frozen tool surface: the "mid-session tool-surface change" rules.

A provider that binds replayed reasoning to the request prefix (the tools array is part
of it) sees every change of the tools between a session's turns as a moved prefix. The
tools are re-derived from the live MCP servers on every run; an `AgentSession`
holds a `ToolSurfaceGuard` around each of its runs (`guarding`), and
`frozen_surface` compares the run's tools with the array the session started with:

* unchanged: sent as they are;
* changed: one record lands on the guard's drift list (``event``, ``failed_servers``,
  ``added``, ``removed``, ``redefined``; `AgentSession.tool_surface_drift`), one
  WARNING is logged, and the frozen array is sent instead (``event: "frozen"``);
* changed under ``strict_prefix_binding``: the run fails with a ``StateError`` naming
  what moved (the record says ``event: "refused"``).

Runs outside a session, and providers that bind nothing, are never touched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit._logging import get_logger
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.domain.errors import StateError
from doc_processing_toolkit.domain.tools.specs import ToolSpec

__all__ = [
    "ToolSurfaceGuard",
    "enter_guard",
    "frozen_surface",
    "guarding",
    "leave_guard",
    "surface_drift",
]

log = get_logger(__name__)

_GUARD: ContextVar[ToolSurfaceGuard | None] = ContextVar("dpt_tool_surface_guard", default=None)


@dataclass
class ToolSurfaceGuard:
    """One session's frozen tools array and where its drift records go."""

    on_drift: Callable[[dict[str, Any]], None]
    """Receives each drift record (the session appends it to its metadata)."""
    snapshot: list[ToolSpec] | None = field(default=None)
    """The tools the session's first run sent (None: no run yet, or reset by a rebind)."""


def enter_guard(guard: ToolSurfaceGuard) -> Token[ToolSurfaceGuard | None]:
    """Make ``guard`` the current one (for the runs this context starts)."""
    return _GUARD.set(guard)


def leave_guard(token: Token[ToolSurfaceGuard | None]) -> None:
    """Undo `enter_guard` (a generator closed from another context cannot: ignored)."""
    with contextlib.suppress(ValueError):
        _GUARD.reset(token)


@contextlib.contextmanager
def guarding(guard: ToolSurfaceGuard) -> Iterator[None]:
    """``guard`` is current for the duration of the block."""
    token = enter_guard(guard)
    try:
        yield
    finally:
        leave_guard(token)


def _spec_key(spec: ToolSpec) -> tuple[Any, ...]:
    return (spec.description, repr(spec.parameters), spec.strict, spec.defer_loading)


def surface_drift(before: list[ToolSpec], after: list[ToolSpec]) -> dict[str, Any] | None:
    """The drift record from ``before`` to ``after`` (None: the same tools, same order)."""
    if [(s.name, _spec_key(s)) for s in before] == [(s.name, _spec_key(s)) for s in after]:
        return None
    old = {s.name: s for s in before}
    new = {s.name: s for s in after}
    removed = sorted(set(old) - set(new))
    redefined = sorted(n for n in set(old) & set(new) if _spec_key(old[n]) != _spec_key(new[n]))
    live_servers = {s.server_name for s in after}
    failed = sorted(
        {name for s in before if (name := s.server_name) is not None and name not in live_servers}
    )
    return {
        "event": "frozen",
        "failed_servers": failed,
        "added": sorted(set(new) - set(old)),
        "removed": removed,
        "redefined": redefined,
    }


def frozen_surface(specs: list[ToolSpec], settings: RunSettings) -> list[ToolSpec]:
    """The tools a run sends: ``specs``, or the session's frozen array when they moved.

    Raises:
        StateError: they moved under ``strict_prefix_binding`` (the record is kept).
    """
    guard = _GUARD.get()
    if guard is None or not settings.bound_reasoning:
        return specs
    if guard.snapshot is None:
        guard.snapshot = list(specs)
        return specs
    record = surface_drift(guard.snapshot, specs)
    if record is None:
        return specs
    what = (
        ", ".join(
            f"{key} {record[key]}" for key in ("added", "removed", "redefined") if record[key]
        )
        or "the order of the tools"
    )
    if settings.strict_prefix_binding:
        record["event"] = "refused"
        guard.on_drift(dict(record))
        raise StateError(
            f"the tool surface changed mid-session ({what}) and strict_prefix_binding=True "
            "makes that fatal: the replayed thinking is bound to the tools the session "
            "started with (the change is on session.tool_surface_drift)"
        )
    guard.on_drift(dict(record))
    log.warning(
        f"the tool surface changed mid-session ({what}); the session's frozen tools are sent "
        "instead, so its replayed thinking stays bound",
        model=settings.model,
        **{k: v for k, v in record.items() if k != "event"},
    )
    return list(guard.snapshot)
