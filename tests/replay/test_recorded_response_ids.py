"""The completion id of every recorded response (Anthropic's ``msg_...``, OpenAI's
``resp_...``, Gemini's ``responseId``, a chat completion's ``id``) reaches the request's
``chat`` span as ``gen_ai.response.id``, through the real SDKs against the recorded bytes;
the HTTP request id is not the completion id (it once stood in for it)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recordings import Exchange, Recording, ReplayServer, expected, sse_events
from test_recorded_traffic import RECORDINGS, _agent_model, _base_url, _iterations

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.telemetry import otel_telemetry
from doc_processing_toolkit.agent.core import container_deps

pytestmark = pytest.mark.anyio


def _documents(exchange: Exchange) -> list[dict[str, Any]]:
    if not exchange.is_stream:
        data = json.loads(exchange.body)
        return data if isinstance(data, list) else [data]  # Gemini's JSON array stream
    found = []
    for _, data in sse_events(exchange.body):
        try:
            found.append(json.loads(data))
        except ValueError:
            continue  # "[DONE]"
    return found


def _completion_id(dialect: str, exchange: Exchange) -> str | None:
    for doc in _documents(exchange):
        if not isinstance(doc, dict):
            continue
        if dialect == "anthropic":
            found = (doc.get("message") or {}).get("id") if "message" in doc else doc.get("id")
        elif dialect == "openai":
            found = (doc.get("response") or {}).get("id") if "response" in doc else doc.get("id")
        elif dialect == "google":
            found = doc.get("responseId")
        else:
            found = doc.get("id")
        if isinstance(found, str) and found:
            return found
    return None


_COMPLETED = [r for r in RECORDINGS if all(e.error is None for e in expected(r))]


def test_most_recordings_carry_a_completion_id() -> None:
    with_ids = [r for r in _COMPLETED if _completion_id(r.dialect, r.exchanges[0])]
    assert {r.dialect for r in with_ids} == {"anthropic", "openai", "google", "fireworks"}


@pytest.mark.parametrize("recording", [pytest.param(r, id=r.name) for r in _COMPLETED])
async def test_the_chat_span_has_the_recorded_completion_id(
    recording: Recording, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    found = expected(recording)
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    otel = otel_telemetry(tracer_provider, meter_provider)
    deps = dataclasses.replace(container_deps(), telemetry=lambda: otel)
    with ReplayServer(recording.exchanges) as server:
        agent = Agent(
            _agent_model(recording, found[0]),
            api_key="test-key-not-real",
            base_url=_base_url(recording.dialect, server.url),
            max_iterations=_iterations(found),
            log_to_file=False,
            telemetry=True,
            deps=deps,
        )
        await agent.run("Replay.")
        await agent.close()
        served = len(server.paths)
    chats = sorted(
        (s for s in exporter.get_finished_spans() if s.name.startswith("chat ")),
        key=lambda s: s.start_time or 0,
    )
    want = [_completion_id(recording.dialect, e) for e in recording.exchanges[:served]]
    got = [(s.attributes or {}).get("gen_ai.response.id") for s in chats]
    assert got == want
    tracer_provider.shutdown()
    meter_provider.shutdown()
