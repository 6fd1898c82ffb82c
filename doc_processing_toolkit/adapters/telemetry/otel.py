"""The Telemetry port over opentelemetry-api: GenAI semantic-convention spans and metrics.

Follows the GenAI conventions as ``opentelemetry-semantic-conventions`` 0.66b2 names them
(``_incubating/attributes/gen_ai_attributes.py`` and ``metrics/gen_ai_metrics.py``):

* ``invoke_agent`` (INTERNAL) per run, ``chat {model}`` (CLIENT) per provider attempt,
  ``execute_tool {name}`` (INTERNAL) per tool call, each a child of the current span;
* ``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``,
  ``gen_ai.response.model`` / ``.id`` / ``.finish_reasons``, ``gen_ai.usage.*`` (input,
  output, ``cache_read.input_tokens``, ``cache_creation.input_tokens``,
  ``reasoning.output_tokens``), ``server.address``, ``error.type`` with an ERROR status;
* the toolkit's own: ``doc_processing_toolkit.cost.usd`` (each chat span's cost record,
  the run's ``result.cost``), ``doc_processing_toolkit.retry.cost.usd`` (run span),
  ``doc_processing_toolkit.request.purpose``, ``doc_processing_toolkit.request.attempt``,
  ``doc_processing_toolkit.request.retried``, ``doc_processing_toolkit.tool.server``;
* metrics: ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration``
  histograms, the ``doc_processing_toolkit.cost.usd`` counter by provider and model.

Only opentelemetry-api is imported: the SDK and exporters are the application's choice.
Content (``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.tool.call.*``)
arrives here already redacted, and only when the telemetry captures it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from doc_processing_toolkit.ports.telemetry import RequestSpan, RequestUsage, RunSpan, ToolSpan

__all__ = ["SEMCONV_VERSION", "OtelTelemetry"]

SEMCONV_VERSION = "0.66b2"
"""The opentelemetry-semantic-conventions release whose GenAI names these are."""

_SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0"
_OP = "gen_ai.operation.name"
_PROVIDER = "gen_ai.provider.name"
_REQUEST_MODEL = "gen_ai.request.model"
_RESPONSE_MODEL = "gen_ai.response.model"
_ERROR_TYPE = "error.type"
_SERVER = "server.address"
_COST = "doc_processing_toolkit.cost.usd"
_PROVIDER_NAMES = {"google": "gcp.gemini"}
"""Our provider ids whose convention name differs (``gen_ai.provider.name`` values)."""
_TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304]
_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48]


def _provider(name: str) -> str:
    return _PROVIDER_NAMES.get(name, name)


def _fail(span: Span, error_type: str) -> None:
    span.set_attribute(_ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, error_type))


class _Request:
    """One ``chat {model}`` span and its metrics (recorded when it ends)."""

    def __init__(self, owner: OtelTelemetry, span: Span, attributes: dict[str, Any]) -> None:
        self._owner = owner
        self._span = span
        self._metric_attributes = attributes
        self._usage: RequestUsage | None = None
        self._started = time.perf_counter()
        self._ended = False

    def response(
        self,
        *,
        model: str | None,
        response_id: str | None,
        finish_reason: str | None,
        output: str | None = None,
    ) -> None:
        attributes: dict[str, Any] = {}
        if model:
            attributes[_RESPONSE_MODEL] = self._metric_attributes[_RESPONSE_MODEL] = model
        if response_id:
            attributes["gen_ai.response.id"] = response_id
        if finish_reason:
            attributes["gen_ai.response.finish_reasons"] = (finish_reason,)
        if output is not None:
            attributes["gen_ai.output.messages"] = output
        self._span.set_attributes(attributes)

    def usage(self, usage: RequestUsage) -> None:
        self._usage = usage
        attributes: dict[str, Any] = {
            "gen_ai.usage.input_tokens": usage.input_tokens,
            "gen_ai.usage.output_tokens": usage.output_tokens,
            "gen_ai.usage.cache_read.input_tokens": usage.cache_read_tokens,
            "gen_ai.usage.cache_creation.input_tokens": usage.cache_write_tokens,
            _COST: usage.cost,
        }
        if usage.reasoning_tokens:
            attributes["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens
        self._span.set_attributes(attributes)

    def fail(self, error_type: str, *, retried: bool = False) -> None:
        _fail(self._span, error_type)
        self._span.set_attribute("doc_processing_toolkit.request.retried", retried)
        self._metric_attributes[_ERROR_TYPE] = error_type

    def end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._span.end()
        self._owner.record_request(
            self._metric_attributes, time.perf_counter() - self._started, self._usage
        )


class _Tool:
    """One ``execute_tool {name}`` span."""

    def __init__(self, span: Span) -> None:
        self._span = span

    def result(self, text: str | None, *, is_error: bool) -> None:
        if text is not None:
            self._span.set_attribute("gen_ai.tool.call.result", text)
        if is_error:
            _fail(self._span, "tool_error")


class _Run:
    """One ``invoke_agent`` span."""

    def __init__(self, span: Span) -> None:
        self._span = span
        self.finished = False

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
        self.finished = True
        attributes: dict[str, Any] = {
            _COST: cost,
            "doc_processing_toolkit.retry.cost.usd": retry_cost,
            "gen_ai.usage.input_tokens": input_tokens,
            "gen_ai.usage.output_tokens": output_tokens,
        }
        if output is not None:
            attributes["gen_ai.output.messages"] = output
        self._span.set_attributes(attributes)
        if error_type is not None:
            _fail(self._span, error_type)


class OtelTelemetry:
    """The Telemetry port on opentelemetry-api (providers: the API's globals when None)."""

    enabled = True

    def __init__(
        self, tracer_provider: Any = None, meter_provider: Any = None, *, capture_content: bool
    ) -> None:
        self.capture_content = capture_content
        self._tracer = trace.get_tracer(
            "doc_processing_toolkit",
            tracer_provider=tracer_provider,
            schema_url=_SCHEMA_URL,
        )
        meter = metrics.get_meter(
            "doc_processing_toolkit",
            meter_provider=meter_provider,
            schema_url=_SCHEMA_URL,
        )
        self._tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self._duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )
        self._cost = meter.create_counter(
            _COST, unit="USD", description="The cost of provider requests, in US dollars."
        )

    # ------------------------------------------------------------------ spans
    @contextmanager
    def run(
        self,
        *,
        agent_name: str | None,
        provider: str,
        model: str,
        server_address: str | None = None,
    ) -> Iterator[RunSpan]:
        attributes: dict[str, Any] = {
            _OP: "invoke_agent",
            _PROVIDER: _provider(provider),
            _REQUEST_MODEL: model,
        }
        if agent_name:
            attributes["gen_ai.agent.name"] = agent_name
        if server_address:
            attributes[_SERVER] = server_address
        name = f"invoke_agent {agent_name}" if agent_name else "invoke_agent"
        with self._tracer.start_as_current_span(
            name,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            run = _Run(span)
            try:
                yield run
            except BaseException as exc:  # cancelled, or raised before the run had a result
                if not run.finished:
                    _fail(span, type(exc).__name__)
                raise

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
        metric_attributes: dict[str, Any] = {
            _OP: "chat",
            _PROVIDER: _provider(provider),
            _REQUEST_MODEL: model,
        }
        if server_address:
            metric_attributes[_SERVER] = server_address
        attributes = {**metric_attributes, "doc_processing_toolkit.request.attempt": attempt}
        if purpose:
            attributes["doc_processing_toolkit.request.purpose"] = purpose
        if input_messages is not None:
            attributes["gen_ai.input.messages"] = input_messages
        span = self._tracer.start_span(f"chat {model}", kind=SpanKind.CLIENT, attributes=attributes)
        return _Request(self, span, metric_attributes)

    @contextmanager
    def tool(
        self,
        *,
        name: str,
        call_id: str | None,
        server: str | None,
        arguments: str | None = None,
    ) -> Iterator[ToolSpan]:
        attributes: dict[str, Any] = {
            _OP: "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        if server:
            attributes["doc_processing_toolkit.tool.server"] = server
        if arguments is not None:
            attributes["gen_ai.tool.call.arguments"] = arguments
        with self._tracer.start_as_current_span(
            f"execute_tool {name}",
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield _Tool(span)
            except BaseException as exc:
                _fail(span, type(exc).__name__)
                raise

    # ------------------------------------------------------------------ context
    def trace_context(self) -> dict[str, str]:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        return carrier

    @contextmanager
    def attach(self, carrier: Mapping[str, str]) -> Iterator[None]:
        token = otel_context.attach(propagate.extract(dict(carrier)))
        try:
            yield
        finally:
            otel_context.detach(token)

    # ------------------------------------------------------------------ metrics
    def record_request(
        self, attributes: dict[str, Any], seconds: float, usage: RequestUsage | None
    ) -> None:
        """One request's duration, tokens and cost."""
        self._duration.record(seconds, attributes)
        if usage is None:
            return
        self._tokens.record(usage.input_tokens, {**attributes, "gen_ai.token.type": "input"})
        self._tokens.record(usage.output_tokens, {**attributes, "gen_ai.token.type": "output"})
        if usage.cost:
            keys = (_PROVIDER, _REQUEST_MODEL, _RESPONSE_MODEL)
            self._cost.add(usage.cost, {k: attributes[k] for k in keys if k in attributes})
