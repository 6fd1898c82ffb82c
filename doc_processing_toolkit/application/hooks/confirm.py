"""ConfirmAfterNToolCalls: the built-in "has been working for a while — continue?" hook."""

from __future__ import annotations

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.events import AgentStreamEvent, HookDirective

__all__ = ["ConfirmAfterNToolCalls"]


class ConfirmAfterNToolCalls:
    """Built-in hook: pause the run after every N executed tool calls.

    Counts tool_call_result events (one iteration can execute many tools), pauses at the
    following safe point, and leaves resuming to the host via the run handle
    (``agent.run_handle.resume()``). The count restarts at every run_start, so one
    instance can be shared across an Agent's runs.

    Example::

        confirm = ConfirmAfterNToolCalls(5)
        agent = Agent(model="claude-haiku-4-5", tools=[...], hooks=confirm)
        # elsewhere, when the user answers: agent.run_handle.resume()
    """

    def __init__(self, n: int) -> None:
        """Args:
        n: Pause after every ``n`` tool results (an int >= 1).

        Raises:
            ValueError: ``n`` is not a positive int.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ConfigurationError(f"ConfirmAfterNToolCalls(n) needs an int >= 1, got {n!r}")
        self.n = n
        self.count = 0
        """Tool results seen since the current run started."""

    def __call__(self, event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "run_start":
            self.count = 0
        elif event.event_type == "tool_call_result":
            self.count += 1
            if self.count % self.n == 0:
                return HookDirective(
                    "pause", reason=f"{self.count} tool calls executed: waiting for confirmation"
                )
        return None

    def __repr__(self) -> str:
        return f"ConfirmAfterNToolCalls({self.n})"
