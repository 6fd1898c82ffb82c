"""The run-scoped step wrapper: how a durable job makes a run's requests and tool calls steps.

A `RunScope` is installed for the duration of one run with `run_scope` (a
context variable, so concurrent runs on one event loop each see their own). Two places
read it, and nothing else changes in the run loop:

* `client_for_run` hands the loop
  ``scope.model_client(client)`` instead of the Agent's client (the fleet's durable,
  rate-limited or batching client);
* `call` runs each tool
  call through ``scope.call_tool`` (a checkpointed step), MCP tools included.

Without a scope (every ordinary run) both are the identity.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from typing import Any, Protocol

from doc_processing_toolkit.domain.tools.specs import ToolOutcome
from doc_processing_toolkit.ports.model_client import ModelClient

__all__ = ["RunScope", "current_scope", "run_scope"]


class RunScope(Protocol):
    """Wraps one run's model client and tool calls."""

    def model_client(self, client: ModelClient) -> ModelClient:
        """The client the run loop uses instead of ``client``."""
        ...

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        call: Callable[[], Awaitable[ToolOutcome]],
        *,
        call_id: str | None = None,
    ) -> ToolOutcome:
        """Run one tool call (``call`` executes it; ``call_id`` is the model's id for it)."""
        ...


_SCOPE: ContextVar[RunScope | None] = ContextVar("dpt_run_scope", default=None)


def current_scope() -> RunScope | None:
    """The scope installed for the running run, if any."""
    return _SCOPE.get()


@contextlib.contextmanager
def run_scope(scope: RunScope) -> Iterator[None]:
    """Install ``scope`` for the runs started inside the block."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)
