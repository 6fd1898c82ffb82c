"""The built-in hooks: ConfirmAfterNToolCalls ("has been working for a while — continue?")
and RequireApproval (these tools wait for a person)."""

from __future__ import annotations

from collections.abc import Iterable

from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.events import AgentStreamEvent, HookDirective

__all__ = ["ConfirmAfterNToolCalls", "RequireApproval"]


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


class RequireApproval:
    """Built-in hook: defer every call of the named tools to a person.

    At ``before_tool_call`` it returns ``HookDirective(action="defer", reason=...)`` for a
    call of one of ``tools``: the call does not run, the run ends after its tool round with
    ``status == "awaiting_approval"`` and the call in ``result.pending_approvals``, and
    ``session.resume(approvals={call_id: Approval(...)})`` continues the turn (an approved
    call is not deferred again). See docs/guide/approvals.md.

    Example::

        agent = Agent(model="claude-haiku-4-5", tools=[pay], hooks=RequireApproval({"pay"}))
    """

    def __init__(self, tools: Iterable[str], reason: str = "needs a person's approval") -> None:
        """Args:
        tools: The tool names whose calls wait for a person.
        reason: The `PendingApproval.reason` the deferred calls carry.

        Raises:
            ConfigurationError: ``tools`` is a bare string or holds a non-string.
        """
        if isinstance(tools, str) or not all(isinstance(t, str) for t in tools):
            raise ConfigurationError(
                f"RequireApproval(tools) needs a collection of tool names, got {tools!r}"
            )
        self.tools = frozenset(tools)
        self.reason = reason

    def __call__(self, event: AgentStreamEvent) -> HookDirective | None:
        if event.event_type == "before_tool_call":
            if (event.metadata or {}).get("tool_name") in self.tools:
                return HookDirective("defer", reason=self.reason)
        return None

    def __repr__(self) -> str:
        return f"RequireApproval({sorted(self.tools)!r})"
