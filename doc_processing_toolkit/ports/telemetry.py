"""Telemetry: the run / request / tool spans and the metric records of a run.

The application opens a run span per run, a request span per provider attempt (a retried
attempt is its own span) and a tool span per tool call, and hands them plain values:
names, token counts, costs, error type names, already-redacted content. An adapter
(``adapters/telemetry/otel.py``) turns them into OpenTelemetry GenAI spans and metrics;
`NO_TELEMETRY` is what runs when telemetry is off: every call does nothing, and nothing
imports opentelemetry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "NO_SPAN",
    "NO_TELEMETRY",
    "NoTelemetry",
    "RequestSpan",
    "RequestUsage",
    "RunSpan",
    "Telemetry",
    "ToolSpan",
    "requests_spanned",
    "spanning_requests",
]


@dataclass(frozen=True, slots=True)
class RequestUsage:
    """What one provider request (or failed attempt) used and cost: its cost record's
    values."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0


class RequestSpan(Protocol):
    """One provider request attempt (``chat {model}``); ended exactly once."""

    def response(
        self,
        *,
        model: str | None,
        response_id: str | None,
        finish_reason: str | None,
        output: str | None = None,
    ) -> None:
        """The response's facts (``output``: redacted content, only when captured)."""
        ...

    def usage(self, usage: RequestUsage) -> None:
        """The tokens and cost of the request (from its cost record)."""
        ...

    def fail(self, error_type: str, *, retried: bool = False) -> None:
        """The attempt failed with ``error_type`` (retried: another attempt follows)."""
        ...

    def end(self) -> None:
        """Ends the span and records its metrics (a second call does nothing)."""
        ...


class ToolSpan(Protocol):
    """One tool call (``execute_tool {name}``)."""

    def result(self, text: str | None, *, is_error: bool) -> None:
        """The call's result (``text``: redacted content, only when captured)."""
        ...


class RunSpan(Protocol):
    """One run (``invoke_agent``)."""

    def finish(
        self,
        *,
        cost: float,
        retry_cost: float,
        input_tokens: int,
        output_tokens: int,
        error_type: str | None,
        output: str | None = None,
    ) -> None:
        """The run's totals and outcome (``error_type``: None when it succeeded)."""
        ...


class Telemetry(Protocol):
    """Opens the spans of a run."""

    @property
    def enabled(self) -> bool:
        """False: the no-op (callers may skip building what they would hand over)."""
        ...

    @property
    def capture_content(self) -> bool:
        """Whether prompts, outputs, tool arguments and results are recorded."""
        ...

    def run(
        self,
        *,
        agent_name: str | None,
        provider: str,
        model: str,
        server_address: str | None = None,
    ) -> AbstractContextManager[RunSpan]:
        """The run span, current while the context is open (the others nest under it)."""
        ...

    def request(
        self,
        *,
        provider: str,
        model: str,
        purpose: str | None,
        attempt: int,
        server_address: str | None = None,
        input_messages: str | None = None,
    ) -> RequestSpan:
        """A started request span (a child of the current span); the caller ends it."""
        ...

    def tool(
        self,
        *,
        name: str,
        call_id: str | None,
        server: str | None,
        arguments: str | None = None,
    ) -> AbstractContextManager[ToolSpan]:
        """The tool span, current while the context is open."""
        ...

    def trace_context(self) -> dict[str, str]:
        """The current trace context as carrier headers (``traceparent``, ...)."""
        ...

    def attach(self, carrier: Mapping[str, str]) -> AbstractContextManager[None]:
        """Runs the context's block under the trace context of ``carrier``: a span
        already current in that trace (a durable engine's workflow span) stays the
        parent; a current span of another trace is linked from the run span instead."""
        ...


class _NoSpan:
    """Every span of the no-op telemetry."""

    __slots__ = ()

    def response(self, **_: object) -> None:
        """Nothing."""

    def usage(self, usage: RequestUsage) -> None:
        """Nothing."""

    def fail(self, error_type: str, *, retried: bool = False) -> None:
        """Nothing."""

    def end(self) -> None:
        """Nothing."""

    def result(self, text: str | None, *, is_error: bool) -> None:
        """Nothing."""

    def finish(self, **_: object) -> None:
        """Nothing."""


NO_SPAN = _NoSpan()
"""The span of the no-op telemetry (a request, tool and run span that does nothing)."""


class NoTelemetry:
    """Telemetry off: no span, no metric, no import."""

    enabled = False
    capture_content = False

    @contextmanager
    def run(self, **_: object) -> Iterator[RunSpan]:
        """Nothing."""
        yield NO_SPAN

    def request(self, **_: object) -> RequestSpan:
        """Nothing."""
        return NO_SPAN

    @contextmanager
    def tool(self, **_: object) -> Iterator[ToolSpan]:
        """Nothing."""
        yield NO_SPAN

    def trace_context(self) -> dict[str, str]:
        """No context."""
        return {}

    @contextmanager
    def attach(self, carrier: Mapping[str, str]) -> Iterator[None]:
        """Nothing."""
        yield


NO_TELEMETRY: Telemetry = NoTelemetry()
"""The telemetry of a run when telemetry is off."""


_SPANNED: ContextVar[bool] = ContextVar("dpt_requests_spanned", default=False)


def requests_spanned() -> bool:
    """Whether the model requests sent here get a ``chat`` span of the toolkit's telemetry
    (inside a recorded run). A provider adapter whose SDK makes its own GenAI span of the
    same request (the Anthropic SDK does) sends it without that span, so that one request
    is one ``chat`` operation in the trace, not two."""
    return _SPANNED.get()


@contextmanager
def spanning_requests() -> Iterator[None]:
    """The block of a recorded run: `requests_spanned` is True inside it."""
    token = _SPANNED.set(True)
    try:
        yield
    finally:
        _SPANNED.reset(token)
