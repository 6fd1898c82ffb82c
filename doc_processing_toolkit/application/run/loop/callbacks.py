"""The run loop's callbacks, as Protocols: what the loop calls at its hook points.

The rooms above the run room implement them (``hooks/``: `HookRunner`,
`RequestStartEmitter`; ``compaction/``: `RunCompactor`) and the Agent hands them to
`RunLoop`, so the loop imports neither room.
"""

from __future__ import annotations

from typing import Protocol

from doc_processing_toolkit.application.run.results.outcome import RunOutcome

__all__ = ["RequestAnnouncer", "RunCompaction", "TurnHooks"]


class TurnHooks(Protocol):
    """The hook runner's side of the loop: injections and the partial spend."""

    def drain_injections(self) -> list[str]:
        """The texts queued by ``RunHandle.inject`` since the last turn boundary."""
        ...

    def track_usage(self, input_tokens: int = 0, output_tokens: int = 0, cost: float = 0.0) -> None:
        """Accumulate one request's tokens and cost (an AgentAborted's partial spend)."""
        ...


class RequestAnnouncer(Protocol):
    """Announces each provider send (the opt-in ``request_start`` event)."""

    async def emit(
        self, *, iteration: int = 1, attempt: int | None = None, purpose: str | None = None
    ) -> None:
        """Announce one send of ``iteration`` (``attempt``: its retry number)."""
        ...


class RunCompaction(Protocol):
    """The Level-1 / Level-2 compaction check before each request."""

    async def before_request(self, outcome: RunOutcome, iteration: int, system: str = "") -> None:
        """Compact ``outcome.messages`` in place when the context is over the threshold."""
        ...
