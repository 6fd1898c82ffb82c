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

Cost: the attributes that depend only on the provider, model and server (a chat span's
start attributes, each metric's attribute set) are built once per model (`_Model`,
`_MetricSet`) and reused; what a request learns later (response, usage, failure) goes
onto its span in one ``set_attributes`` call when it ends; the run and tool spans are
made current by a small context-manager class rather than generator context managers.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self, cast

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode

from doc_processing_toolkit.ports.telemetry import RequestSpan, RequestUsage

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
_TOKEN_TYPE = "gen_ai.token.type"
_PROVIDER_NAMES = {
    "google": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "vertex": "gcp.vertex_ai",
    "azure": "azure.ai.openai",
    "foundry": "azure.ai.inference",
}
"""Our provider ids whose convention name differs (``gen_ai.provider.name`` values); a
cloud deployment (``Agent(deployment=...)``) names the cloud that serves the model."""
_TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304]
_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48]
_CACHE_LIMIT = 256
"""Most cached models / metric sets (a process rarely has more; past it, the cache restarts)."""
_LINK_KEY = otel_context.create_key("doc_processing_toolkit.link")
"""Context key: the span a joined job's run span links to (see `OtelTelemetry.attach`)."""


def _provider(name: str) -> str:
    return _PROVIDER_NAMES.get(name, name)


def _fail(span: Span, error_type: str) -> None:
    span.set_attribute(_ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, error_type))


def _cached(cache: dict[Any, Any], key: Any, build: Any) -> Any:
    found = cache.get(key)
    if found is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = build()
    return found


class _Model:
    """One (provider, model, server) of chat spans: its span name and start attributes,
    built once."""

    __slots__ = ("attributes", "name", "provider", "request_model", "server")

    def __init__(self, provider: str, model: str, server: str | None) -> None:
        self.provider = _provider(provider)
        self.request_model = model
        self.server = server
        self.name = f"chat {model}"
        attributes: dict[str, Any] = {
            _OP: "chat",
            _PROVIDER: self.provider,
            _REQUEST_MODEL: model,
        }
        if server:
            attributes[_SERVER] = server
        self.attributes: Mapping[str, Any] = attributes


class _MetricSet:
    """The attribute sets of one model's metric records (per response model and error
    type), built once and handed to every record."""

    __slots__ = ("cost", "duration", "input", "output")

    def __init__(self, model: _Model, response_model: str | None, error_type: str | None):
        base = dict(model.attributes)
        if response_model:
            base[_RESPONSE_MODEL] = response_model
        self.duration: Mapping[str, Any] = (
            {**base, _ERROR_TYPE: error_type} if error_type is not None else base
        )
        self.input: Mapping[str, Any] = {**base, _TOKEN_TYPE: "input"}
        self.output: Mapping[str, Any] = {**base, _TOKEN_TYPE: "output"}
        self.cost: Mapping[str, Any] = {
            k: base[k] for k in (_PROVIDER, _REQUEST_MODEL, _RESPONSE_MODEL) if k in base
        }


class _Request:
    """One ``chat {model}`` span: what it learns goes on it at once when it ends, with
    its metrics."""

    __slots__ = (
        "_ended",
        "_error",
        "_late",
        "_model",
        "_owner",
        "_response_model",
        "_span",
        "_started",
        "_usage",
    )

    def __init__(self, owner: OtelTelemetry, span: Span, model: _Model) -> None:
        self._owner = owner
        self._span = span
        self._model = model
        self._late: dict[str, Any] = {}
        self._response_model: str | None = None
        self._error: str | None = None
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
        late = self._late
        if model:
            late[_RESPONSE_MODEL] = self._response_model = model
        if response_id:
            late["gen_ai.response.id"] = response_id
        if finish_reason:
            late["gen_ai.response.finish_reasons"] = (finish_reason,)
        if output is not None:
            late["gen_ai.output.messages"] = output

    def usage(self, usage: RequestUsage) -> None:
        self._usage = usage
        late = self._late
        late["gen_ai.usage.input_tokens"] = usage.input_tokens
        late["gen_ai.usage.output_tokens"] = usage.output_tokens
        late["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_tokens
        late["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens
        late[_COST] = usage.cost
        if usage.reasoning_tokens:
            late["gen_ai.usage.reasoning.output_tokens"] = usage.reasoning_tokens

    def fail(self, error_type: str, *, retried: bool = False) -> None:
        self._error = error_type
        self._late[_ERROR_TYPE] = error_type
        self._late["doc_processing_toolkit.request.retried"] = retried

    def end(self) -> None:
        if self._ended:
            return
        self._ended = True
        span = self._span
        if self._late:
            span.set_attributes(self._late)
        if self._error is not None:
            span.set_status(Status(StatusCode.ERROR, self._error))
        span.end()
        self._owner.record_request(
            self._model,
            self._response_model,
            self._error,
            time.perf_counter() - self._started,
            self._usage,
            trace.set_span_in_context(span),
        )


class _Current:
    """A span made current for a ``with`` block and ended when it closes; an exception
    (a cancellation too) that leaves the block marks it failed unless `finished`."""

    __slots__ = ("_span", "_token", "finished")

    def __init__(self, span: Span) -> None:
        self._span = span
        self._token: object = None
        self.finished = False

    def __enter__(self) -> Self:
        self._token = otel_context.attach(trace.set_span_in_context(self._span))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is not None and not self.finished:
                _fail(self._span, exc_type.__name__)
        finally:
            otel_context.detach(self._token)  # type: ignore[arg-type]
            self._span.end()


class _Tool(_Current):
    """One ``execute_tool {name}`` span."""

    __slots__ = ()

    def result(self, text: str | None, *, is_error: bool) -> None:
        if text is not None:
            self._span.set_attribute("gen_ai.tool.call.result", text)
        if is_error:
            _fail(self._span, "tool_error")


class _Run(_Current):
    """One ``invoke_agent`` span."""

    __slots__ = ()

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
        if error_type is not None:
            attributes[_ERROR_TYPE] = error_type
        if output is not None:
            attributes["gen_ai.output.messages"] = output
        self._span.set_attributes(attributes)
        if error_type is not None:
            self._span.set_status(Status(StatusCode.ERROR, error_type))


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
        self._models: dict[tuple[str, str, str | None], _Model] = {}
        self._metric_sets: dict[tuple[_Model, str | None, str | None], _MetricSet] = {}
        self._runs: dict[tuple[str | None, str, str, str | None], Mapping[str, Any]] = {}

    # ------------------------------------------------------------------ spans
    def run(
        self,
        *,
        agent_name: str | None,
        provider: str,
        model: str,
        server_address: str | None = None,
    ) -> _Run:
        key = (agent_name, provider, model, server_address)
        attributes = _cached(self._runs, key, lambda: _run_attributes(*key))
        name = f"invoke_agent {agent_name}" if agent_name else "invoke_agent"
        link = otel_context.get_value(_LINK_KEY)
        if link is None:
            span = self._tracer.start_span(name, kind=SpanKind.INTERNAL, attributes=attributes)
        else:  # a joined fleet job: link to the span the job ran under, once
            parent = otel_context.set_value(_LINK_KEY, None)
            span = self._tracer.start_span(
                name,
                context=parent,
                kind=SpanKind.INTERNAL,
                attributes=attributes,
                links=[Link(cast(SpanContext, link))],
            )
            return _LinkedRun(span, parent)
        return _Run(span)

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
        profile: _Model = _cached(
            self._models,
            (provider, model, server_address),
            lambda: _Model(provider, model, server_address),
        )
        attributes = dict(profile.attributes)
        attributes["doc_processing_toolkit.request.attempt"] = attempt
        if purpose:
            attributes["doc_processing_toolkit.request.purpose"] = purpose
        if input_messages is not None:
            attributes["gen_ai.input.messages"] = input_messages
        span = self._tracer.start_span(profile.name, kind=SpanKind.CLIENT, attributes=attributes)
        return _Request(self, span, profile)

    def tool(
        self,
        *,
        name: str,
        call_id: str | None,
        server: str | None,
        arguments: str | None = None,
    ) -> _Tool:
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
        span = self._tracer.start_span(
            f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes
        )
        return _Tool(span)

    # ------------------------------------------------------------------ context
    def trace_context(self) -> dict[str, str]:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
        return carrier

    def attach(self, carrier: Mapping[str, str]) -> _Attached:
        return _Attached(carrier)

    # ------------------------------------------------------------------ metrics
    def record_request(
        self,
        model: _Model,
        response_model: str | None,
        error_type: str | None,
        seconds: float,
        usage: RequestUsage | None,
        context: otel_context.Context | None = None,
    ) -> None:
        """One request's duration, tokens and cost, with the model's cached attribute
        sets (``context``: the request span's, which the SDK's exemplars then name)."""
        sets: _MetricSet = _cached(
            self._metric_sets,
            (model, response_model, error_type),
            lambda: _MetricSet(model, response_model, error_type),
        )
        self._duration.record(seconds, sets.duration, context)
        if usage is None:
            return
        self._tokens.record(usage.input_tokens, sets.input, context)
        self._tokens.record(usage.output_tokens, sets.output, context)
        if usage.cost:
            self._cost.add(usage.cost, sets.cost, context)


def _run_attributes(
    agent_name: str | None, provider: str, model: str, server_address: str | None
) -> Mapping[str, Any]:
    attributes: dict[str, Any] = {
        _OP: "invoke_agent",
        _PROVIDER: _provider(provider),
        _REQUEST_MODEL: model,
    }
    if agent_name:
        attributes["gen_ai.agent.name"] = agent_name
    if server_address:
        attributes[_SERVER] = server_address
    return attributes


class _LinkedRun(_Run):
    """The run span of a joined fleet job: current in ``parent`` (the submitter's
    context without the link), so the runs nested in it link to nothing."""

    __slots__ = ("_parent",)

    def __init__(self, span: Span, parent: Any) -> None:
        super().__init__(span)
        self._parent = parent

    def __enter__(self) -> Self:
        self._token = otel_context.attach(trace.set_span_in_context(self._span, self._parent))
        return self


class _Attached:
    """The block of `OtelTelemetry.attach`: runs under the carrier's trace context.

    When a span is current already in the carrier's trace (DBOS's workflow span, when
    DBOS's own tracing is on and the job carried the context to it), nothing changes:
    the run span nests under it. When the current span is in another trace (DBOS traced
    the job, but not in the submitter's trace), the carrier's context is attached and
    the run span links to that span. Otherwise the carrier's context is attached."""

    __slots__ = ("_carrier", "_token")

    def __init__(self, carrier: Mapping[str, str]) -> None:
        self._carrier = carrier
        self._token: object = None

    def __enter__(self) -> None:
        remote = propagate.extract(dict(self._carrier))
        wanted = trace.get_current_span(remote).get_span_context()
        current = trace.get_current_span().get_span_context()
        if not wanted.is_valid or (current.is_valid and current.trace_id == wanted.trace_id):
            return
        if current.is_valid:
            remote = otel_context.set_value(_LINK_KEY, current, remote)
        self._token = otel_context.attach(remote)

    def __exit__(self, *_: object) -> None:
        if self._token is not None:
            otel_context.detach(self._token)  # type: ignore[arg-type]
            self._token = None
