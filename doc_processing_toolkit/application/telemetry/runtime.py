"""Where the run's seams reach the Telemetry port: the run span (the Agent), the request
spans (the retry layer, one per attempt; the cost record ends the answered one), the tool
spans (``ToolSet.call``).

The run's telemetry travels in a context variable, set for the run span's block: the
retry layer and the tool set read it (`active`) without being handed anything, and with
telemetry off they find `NO_TELEMETRY`, whose calls do nothing. Content (prompts,
outputs, tool arguments and results) is handed to the port only when the telemetry
captures it, and always through the logs' redaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from doc_processing_toolkit._redaction import redact_text
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.domain.costs.ledger import RetryAttemptCost
from doc_processing_toolkit.domain.costs.pricing import CostRecord
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.messages import Message
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse
from doc_processing_toolkit.ports.telemetry import (
    NO_SPAN,
    NO_TELEMETRY,
    RequestSpan,
    RequestUsage,
    RunSpan,
    Telemetry,
    ToolSpan,
    spanning_requests,
)

__all__ = [
    "RunTelemetry",
    "active",
    "agent_telemetry",
    "attempt_failed",
    "attempt_started",
    "content",
    "finish_run",
    "install",
    "installed",
    "joined",
    "request_answered",
    "request_recorded",
    "run_span",
    "tool_done",
    "tool_span",
    "trace_carrier",
]

_process: Telemetry | None = None
"""The process-wide telemetry of ``instrument()`` (None: each Agent's own setting)."""
_built: Telemetry | None = None
"""The last telemetry an ``Agent(telemetry=True)`` of this process built (None: none):
what carries a trace context to a fleet job when the process is not instrumented (the
context is the OpenTelemetry API's, the same through any adapter)."""


def install(telemetry: Telemetry | None) -> None:
    """Sets (None: clears) the process-wide telemetry every Agent's runs use."""
    global _process
    _process = telemetry


def installed() -> Telemetry | None:
    """The process-wide telemetry (None: not instrumented)."""
    return _process


def _propagator() -> Telemetry | None:
    return _process or _built


def trace_carrier() -> dict[str, str]:
    """The caller's trace context as carrier headers, for work that runs elsewhere (a
    fleet job); empty when neither ``instrument()`` nor an ``Agent(telemetry=True)`` of
    this process turned telemetry on, or when no span is current."""
    telemetry = _propagator()
    return telemetry.trace_context() if telemetry is not None else {}


@contextmanager
def joined(carrier: dict[str, str] | None) -> Iterator[None]:
    """Runs the block under the trace context of ``carrier`` (a submitter's), when
    telemetry is on in this process (``instrument()``, or the job's
    ``Agent(telemetry=True)``, built before): the spans opened inside join the
    submitter's trace (see `Telemetry.attach` for a span already current)."""
    telemetry = _propagator()
    if telemetry is None or not carrier:
        yield
        return
    with telemetry.attach(carrier):
        yield


@dataclass(slots=True)
class RunTelemetry:
    """One run's telemetry: the port, the run's server address and the request span
    waiting for its cost record."""

    telemetry: Telemetry
    server_address: str | None = None
    pending: RequestSpan | None = field(default=None)
    deployment: str | None = None
    """The cloud serving the model (``Agent(deployment=...)``): the spans' provider name."""


_NO_RUN = RunTelemetry(NO_TELEMETRY)
_ACTIVE: ContextVar[RunTelemetry] = ContextVar("dpt_telemetry_run", default=_NO_RUN)


def active() -> RunTelemetry:
    """The current run's telemetry (off outside a run span)."""
    return _ACTIVE.get()


@lru_cache(maxsize=64)  # once per base URL, not per run
def _host(base_url: str | None) -> str | None:
    if not base_url:
        return None
    try:
        return urlsplit(base_url).hostname
    except ValueError:
        return None


def agent_telemetry(enabled: bool, build: Callable[[], Telemetry] | None) -> Telemetry | None:
    """The telemetry of ``Agent(telemetry=enabled)`` (None: off).

    Raises:
        MissingDependencyError: without the ``otel`` extra (from ``build``).
        ConfigurationError: on, but the Agent's AgentDeps have no telemetry adapter.
    """
    if not enabled:
        return None
    if build is None:
        raise ConfigurationError(
            "telemetry=True: the Agent's AgentDeps have no telemetry adapter (deps.telemetry)"
        )
    global _built
    _built = build()
    return _built


@contextmanager
def run_span(own: Telemetry | None, settings: AgentSettings, provider: str) -> Iterator[RunSpan]:
    """The run span's block (the process-wide telemetry of ``instrument()``, else the
    Agent's own, else none): the spans opened inside nest under it."""
    telemetry = _process or own
    if telemetry is None or not telemetry.enabled:
        yield NO_SPAN
        return
    deployment = settings.deployment.deployment
    run = RunTelemetry(telemetry, server_address=_host(settings.base_url), deployment=deployment)
    with telemetry.run(
        agent_name=None,
        provider=deployment or provider,
        model=settings.model,
        server_address=run.server_address,
    ) as span:
        token = _ACTIVE.set(run)
        try:
            with spanning_requests():
                yield span
        finally:
            _ACTIVE.reset(token)
            _end_pending(run)


def finish_run(span: RunSpan, result: AgentResult, error: BaseException | None) -> None:
    """The run's totals (``result.cost``, its retry cost) and outcome on its span."""
    if span is NO_SPAN:
        return
    tel = _ACTIVE.get().telemetry
    output = None
    if tel.capture_content and error is None and result.output is not None:
        output = content(result.output if isinstance(result.output, str) else str(result.output))
    span.finish(
        cost=result.cost,
        retry_cost=result.retry_cost,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        error_type=type(error).__name__ if error is not None else None,
        output=output,
    )


def _end_pending(run: RunTelemetry) -> None:
    if run.pending is not None:
        run.pending.end()
        run.pending = None


def content(value: Any) -> str:
    """``value`` as recorded content: JSON (or text), redacted like the logs."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return redact_text(text)


def _messages(messages: Sequence[Message]) -> str:
    return content(
        [
            {"role": m.role, "parts": [{"type": "text", "content": m.text}]}
            for m in messages
            if m.text
        ]
    )


def attempt_started(provider: str, request: ModelRequest, attempt: int) -> RequestSpan:
    """The request span of one attempt (the previous answered one, never costed, ends)."""
    run = _ACTIVE.get()
    if not run.telemetry.enabled:
        return run.telemetry.request(
            provider=provider, model=request.model, purpose=request.purpose, attempt=attempt
        )
    _end_pending(run)
    tel = run.telemetry
    return tel.request(
        provider=run.deployment or provider,
        model=request.model,
        purpose=request.purpose,
        attempt=attempt,
        server_address=run.server_address,
        input_messages=_messages(request.messages) if tel.capture_content else None,
    )


def attempt_failed(
    span: RequestSpan, exc: BaseException, cost: RetryAttemptCost | None, *, retried: bool
) -> None:
    """Ends a failed attempt's span (``cost``: its retried-attempt record, if any)."""
    if cost is not None:
        span.usage(
            RequestUsage(
                input_tokens=cost.input_tokens,
                output_tokens=cost.output_tokens,
                cache_read_tokens=cost.cached_input_tokens,
                reasoning_tokens=cost.reasoning_tokens,
                cost=cost.cost,
            )
        )
    span.fail(type(exc).__name__, retried=retried)
    span.end()


def request_answered(span: RequestSpan, response: ModelResponse) -> None:
    """The answered attempt: its facts now, its tokens and cost from the cost record
    (`request_recorded`), which ends it."""
    run = _ACTIVE.get()
    if not run.telemetry.enabled:
        return
    output = None
    if run.telemetry.capture_content:
        message = response.message
        calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
        output = content({"text": message.text, "tool_calls": calls})
    span.response(
        model=response.model,
        response_id=response.response_id,
        finish_reason=response.stop_reason,
        output=output,
    )
    run.pending = span


def request_recorded(record: CostRecord) -> None:
    """The cost record of the answered request: its tokens and cost end its span."""
    run = _ACTIVE.get()
    span = run.pending
    if span is None:
        return
    run.pending = None
    span.usage(
        RequestUsage(
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            cache_read_tokens=record.cached_input_tokens,
            cache_write_tokens=record.cache_write_tokens,
            reasoning_tokens=record.reasoning_tokens,
            cost=record.cost,
        )
    )
    span.end()


@contextmanager
def tool_span(
    name: str, arguments: dict[str, Any], *, call_id: str | None, server: str | None
) -> Iterator[ToolSpan]:
    """The span of one tool call."""
    tel = _ACTIVE.get().telemetry
    if not tel.enabled:
        yield NO_SPAN
        return
    args = content(arguments) if tel.capture_content else None
    with tel.tool(name=name, call_id=call_id, server=server, arguments=args) as span:
        yield span


def tool_done(span: ToolSpan, text: str, *, is_error: bool) -> None:
    """The tool call's outcome (its text only when content is captured, redacted)."""
    tel = _ACTIVE.get().telemetry
    if tel.enabled:
        span.result(content(text) if tel.capture_content else None, is_error=is_error)
