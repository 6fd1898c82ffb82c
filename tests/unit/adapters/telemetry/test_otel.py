"""The OpenTelemetry adapter on the real SDK (in-memory exporter and metric reader): a
request span's late facts, the cached metric attribute sets, and how a joined job's run
span relates to a span already current (nest in the same trace, link across traces)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from doc_processing_toolkit.adapters.telemetry.otel import OtelTelemetry
from doc_processing_toolkit.ports.telemetry import RequestUsage


class Sdk:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.otel = OtelTelemetry(self.tracer_provider, self.meter_provider, capture_content=False)

    def spans(self) -> dict[str, ReadableSpan]:
        return {s.name: s for s in self.exporter.get_finished_spans()}

    def points(self, name: str) -> list[dict[str, Any]]:
        data = self.reader.get_metrics_data()
        assert data is not None
        return [
            {
                "value": getattr(p, "sum", getattr(p, "value", None)),
                "count": getattr(p, "count", None),
                **(p.attributes or {}),
            }
            for r in data.resource_metrics
            for s in r.scope_metrics
            for m in s.metrics
            if m.name == name
            for p in m.data.data_points
        ]


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    found = Sdk()
    yield found
    found.tracer_provider.shutdown()
    found.meter_provider.shutdown()


def _request(sdk: Sdk, *, response_model: str, error: str | None = None) -> None:
    span = sdk.otel.request(
        provider="google",
        model="gemini-x",
        purpose="output_retry",
        attempt=2,
        server_address="example.test",
    )
    span.response(model=response_model, response_id="r-1", finish_reason="stop")
    span.usage(RequestUsage(input_tokens=10, output_tokens=3, cost=0.5, reasoning_tokens=2))
    if error is not None:
        span.fail(error, retried=True)
    span.end()
    span.end()  # a second end does nothing


def test_a_request_span_gets_its_late_facts_and_metrics_at_its_end(sdk: Sdk) -> None:
    _request(sdk, response_model="gemini-x-001")
    _request(sdk, response_model="gemini-x-001", error="RateLimitError")
    _request(sdk, response_model="gemini-x-002")
    spans = sdk.exporter.get_finished_spans()
    assert len(spans) == 3
    ok, failed = spans[0], spans[1]
    assert ok.name == "chat gemini-x" and ok.status.status_code is StatusCode.UNSET
    assert dict(ok.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "gcp.gemini",
        "gen_ai.request.model": "gemini-x",
        "server.address": "example.test",
        "doc_processing_toolkit.request.attempt": 2,
        "doc_processing_toolkit.request.purpose": "output_retry",
        "gen_ai.response.model": "gemini-x-001",
        "gen_ai.response.id": "r-1",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.usage.cache_read.input_tokens": 0,
        "gen_ai.usage.cache_creation.input_tokens": 0,
        "gen_ai.usage.reasoning.output_tokens": 2,
        "doc_processing_toolkit.cost.usd": 0.5,
    }
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes is not None
    assert failed.attributes["error.type"] == "RateLimitError"
    assert failed.attributes["doc_processing_toolkit.request.retried"] is True
    durations = sdk.points("gen_ai.client.operation.duration")
    by_key = {(p["gen_ai.response.model"], p.get("error.type")): p["count"] for p in durations}
    assert by_key == {
        ("gemini-x-001", None): 1,
        ("gemini-x-001", "RateLimitError"): 1,
        ("gemini-x-002", None): 1,
    }
    tokens = sdk.points("gen_ai.client.token.usage")
    assert {(p["gen_ai.response.model"], p["gen_ai.token.type"], p["value"]) for p in tokens} == {
        ("gemini-x-001", "input", 20),
        ("gemini-x-001", "output", 6),
        ("gemini-x-002", "input", 10),
        ("gemini-x-002", "output", 3),
    }
    assert all("error.type" not in p for p in tokens)
    costs = sdk.points("doc_processing_toolkit.cost.usd")
    assert {p["gen_ai.response.model"]: p["value"] for p in costs} == {
        "gemini-x-001": 1.0,
        "gemini-x-002": 0.5,
    }
    assert all(
        set(p)
        == {
            "value",
            "count",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.model",
        }
        for p in costs
    )


def _carrier(sdk: Sdk) -> tuple[dict[str, str], Any]:
    with sdk.tracer_provider.get_tracer("t").start_as_current_span("submit") as submit:
        carrier = sdk.otel.trace_context()
    return carrier, submit.get_span_context()


def test_a_joined_run_links_to_a_current_span_of_another_trace(sdk: Sdk) -> None:
    carrier, submit = _carrier(sdk)
    tracer = sdk.tracer_provider.get_tracer("engine")
    with tracer.start_as_current_span("workflow") as workflow, sdk.otel.attach(carrier):
        with sdk.otel.run(agent_name=None, provider="openai", model="m"):
            with sdk.otel.run(agent_name="sub", provider="openai", model="m"):
                pass
    spans = sdk.spans()
    run, sub = spans["invoke_agent"], spans["invoke_agent sub"]
    assert run.parent is not None and run.parent.span_id == submit.span_id
    assert run.context.trace_id == submit.trace_id
    assert [link.context.span_id for link in run.links] == [workflow.get_span_context().span_id]
    assert sub.parent is not None and sub.parent.span_id == run.context.span_id
    assert list(sub.links) == []


def test_a_joined_run_nests_under_a_current_span_of_the_same_trace(sdk: Sdk) -> None:
    carrier, submit = _carrier(sdk)
    from opentelemetry import context, propagate

    tracer = sdk.tracer_provider.get_tracer("engine")
    token = context.attach(propagate.extract(carrier))
    try:
        workflow_span = tracer.start_span("workflow")
    finally:
        context.detach(token)
    from opentelemetry.trace import use_span

    with use_span(workflow_span, end_on_exit=True), sdk.otel.attach(carrier):
        with sdk.otel.run(agent_name=None, provider="openai", model="m"):
            pass
    spans = sdk.spans()
    run, workflow = spans["invoke_agent"], spans["workflow"]
    assert workflow.parent is not None and workflow.parent.span_id == submit.span_id
    assert run.parent is not None and run.parent.span_id == workflow.context.span_id
    assert list(run.links) == []


def test_a_run_left_by_an_exception_is_an_error_span(sdk: Sdk) -> None:
    with pytest.raises(KeyError):
        with sdk.otel.run(agent_name=None, provider="openai", model="m"):
            with sdk.otel.tool(name="t", call_id="c", server="srv"):
                raise KeyError("x")
    spans = sdk.spans()
    for name in ("invoke_agent", "execute_tool t"):
        assert spans[name].status.status_code is StatusCode.ERROR
        assert (spans[name].attributes or {})["error.type"] == "KeyError"
    assert spans["execute_tool t"].parent is not None
    assert spans["execute_tool t"].parent.span_id == spans["invoke_agent"].context.span_id


def test_a_requests_metric_exemplars_name_its_chat_span(sdk: Sdk) -> None:
    with sdk.otel.run(agent_name=None, provider="openai", model="m"):
        _request(sdk, response_model="gemini-x-001")
    chat = sdk.spans()["chat gemini-x"]
    data = sdk.reader.get_metrics_data()
    assert data is not None
    exemplars = {
        m.name: [e.span_id for p in m.data.data_points for e in p.exemplars]
        for r in data.resource_metrics
        for s in r.scope_metrics
        for m in s.metrics
    }
    assert set(exemplars) == {
        "gen_ai.client.operation.duration",
        "gen_ai.client.token.usage",
        "doc_processing_toolkit.cost.usd",
    }
    for name, span_ids in exemplars.items():
        assert span_ids and set(span_ids) == {chat.context.span_id}, name
