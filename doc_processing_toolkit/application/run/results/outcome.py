"""RunOutcome: the run loop's raw state, which the Agent turns into an AgentResult.

It is live while the run goes (``RunLoop.outcome``), so a cancelled run's spend can still
be read from it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.run.policy.input_estimate import local_estimate
from doc_processing_toolkit.domain.compaction.result import CompactionResult
from doc_processing_toolkit.domain.costs.ledger import Ledger, RetryAccumulator
from doc_processing_toolkit.domain.grounding import Citation
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse, Usage

__all__ = ["InFlightUsage", "RunOutcome", "new_run_id"]

_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)


def new_run_id() -> str:
    """A random version-4 UUID as 32 hex digits, like ``uuid.uuid4().hex``, without
    building the ``UUID`` object (measured: docs/performance.md, "Fast paths contained")."""
    n = int.from_bytes(os.urandom(16), "big") & _UUID4_CLEAR | _UUID4_SET
    return f"{n:032x}"


class InFlightUsage:
    """A request's ``on_usage``: what the provider reported for the request still
    streaming. Its own small object, so a request does not hold its run's outcome (which
    holds the request): a run then leaves no reference cycle for the garbage collector."""

    __slots__ = ("usage",)

    def __init__(self) -> None:
        self.usage: Usage | None = None

    def __call__(self, usage: Usage) -> None:
        self.usage = usage


@dataclass
class RunOutcome:
    """What the loop produced; the Agent turns it into an AgentResult."""

    messages: list[Message]
    """The full conversation after the run (history included)."""
    new_messages_start: int
    """Index in ``messages`` where this run's messages begin."""
    ledger: Ledger
    accumulator: RetryAccumulator
    iterations: int = 0
    tools_used: list[str] = field(default_factory=list)
    """The tools that executed, in call order (not refused, hidden or unknown ones)."""
    output: Any = None
    last_response: ModelResponse | None = None
    pause_turn_iterations: int = 0
    built_in_tools_invoked: list[str] = field(default_factory=list)
    response_metadata: dict[str, Any] = field(default_factory=dict)
    """Provider facts keyed by AgentResult field (lists accumulate, scalars keep the last)."""
    empty_turn_retried: bool = False
    request_count: int = 0
    iteration_records: list[dict[str, Any]] = field(default_factory=list)
    tool_reported_costs: list[dict[str, Any]] = field(default_factory=list)
    """One record per tool call that reported spend (``_dpt_spend``)."""
    deferred_tools: list[str] = field(default_factory=list)
    """Tools stamped defer_loading on this run's wire tools (set by the Agent)."""
    error: BaseException | None = None
    """Set when the run failed; the partial state above is still valid."""
    in_flight: InFlightUsage = field(default_factory=InFlightUsage, repr=False)
    """Usage the provider reported for a request still streaming (cleared when it ends):
    what a run cancelled mid-request had already been billed. Each request's
    ``on_usage``."""
    final_result_tool: str | None = None
    """The name of this run's synthetic structured-output tool (Path B), else None."""
    pending_approvals: list[Any] = field(default_factory=list)
    """The calls a hook deferred (PendingApproval): the run ends after their round."""
    approved_call_ids: frozenset[str] = frozenset()
    """A resume's approved calls: a hook's defer no longer holds them back."""
    current_request: ModelRequest | None = None
    """The latest request sent (its purpose, tier and cache TTL price a failed one)."""
    current_iteration: int = 0
    """The tool-loop iteration of `current_request`."""
    request_facts: list[dict[str, Any]] = field(default_factory=list)
    """Per ledger record: ``retries_before`` (retry attempts recorded before it),
    ``duration_ms`` and ``thinking`` - what the detailed cost report needs."""
    tool_call_facts: list[dict[str, Any]] = field(default_factory=list)
    """Per executed tool call: name, id, iteration, success, duration and sizes."""
    compactions: list[CompactionResult] = field(default_factory=list)
    """The compactions this run made (Level 1 and Level 2), in order."""
    compaction_iterations: list[int] = field(default_factory=list)
    """The iteration each of `compactions` happened at (before its request)."""
    estimated_input_tokens: int = 0
    """The pre-flight input estimate of the latest request (``estimate_input_tokens``):
    a count the provider gave (True) or 0; see `input_estimate`."""
    estimate_source: ModelRequest | None = None
    """Under ``estimate_input_tokens="lazy"``: the latest request, whose local estimate
    `input_estimate` computes only when a failed request's record needs it (a pure
    function of the request, so a request that succeeds costs no estimate)."""
    prefix_binding_retry: bool = False
    """A prefix-binding 400 was re-sent once; every later request carries the same choice."""
    citations: list[Citation] = field(default_factory=list)
    """The run's citations in answer order (original pages), request after request."""

    @property
    def reasoning_content(self) -> str | None:
        texts = []
        for message in self.messages[self.new_messages_start :]:  # a loop: asked every run
            if message.role == "assistant" and (text := message.reasoning):
                texts.append(text)
        return "\n\n".join(texts) or None

    def input_estimate(self) -> int:
        """The latest request's pre-flight input estimate (0: none)."""
        if self.estimate_source is not None:
            return local_estimate(self.estimate_source)
        return self.estimated_input_tokens

    @property
    def in_flight_usage(self) -> Usage | None:
        """What the provider reported for the request still streaming (None: nothing)."""
        return self.in_flight.usage

    def begin_request(self, request: ModelRequest, iteration: int) -> None:
        """``request`` is about to be sent: nothing of it is billed yet."""
        self.in_flight.usage = None
        self.current_request = request
        self.current_iteration = iteration
