"""Issue 38: every kind of provider request is a ``chat`` span with its purpose (a
document's chunks and its reduce request here; compaction summaries are in
test_telemetry.py), and a run aborted through its handle ends its ``invoke_agent``
span as an ERROR with ``error.type`` ``AgentAborted``. The real opentelemetry-sdk
(in-memory exporter), FakeModel through the real container."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from document_samples import numbered_pdf
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from doc_processing_toolkit import Agent, AgentAborted, AgentStreamEvent
from doc_processing_toolkit.telemetry import instrument, uninstrument
from doc_processing_toolkit.testing import FakeModel, reply

MODEL = "claude-haiku-4-5"
PURPOSE = "doc_processing_toolkit.request.purpose"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    found = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(found))
    instrument(provider)
    yield found
    uninstrument()
    provider.shutdown()


def _spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0)


def test_document_chunks_and_the_reduce_are_chat_spans_with_their_purpose(
    exporter: InMemorySpanExporter,
) -> None:
    fake = FakeModel([reply("A", input_tokens=900), reply("B"), reply("C"), reply("ABC")])
    agent = Agent(MODEL, client=fake, log_to_file=False)
    result = agent.run_document_sync(numbered_pdf(300), "Summarise.", concurrency=1)
    assert result.output == "ABC"
    chats = [s for s in _spans(exporter) if s.name == f"chat {MODEL}"]
    purposes = [(s.attributes or {}).get(PURPOSE) for s in chats]
    assert purposes == ["document_chunk"] * 3 + ["document_reduce"]
    records = result.request_records
    costs = [(s.attributes or {}).get("doc_processing_toolkit.cost.usd") for s in chats]
    assert costs == [r["cost"] for r in records]
    runs = [s for s in _spans(exporter) if s.name == "invoke_agent"]
    assert len(runs) == 4  # each chunk and the reduce is a run
    for chat in chats:
        assert chat.parent is not None
        assert chat.parent.span_id in {r.context.span_id for r in runs}


def test_an_aborted_run_is_an_error_span_naming_agent_aborted(
    exporter: InMemorySpanExporter,
) -> None:
    fake = FakeModel([reply("never sent")])
    holder: list[Agent] = []

    def abort(event: AgentStreamEvent) -> None:
        handle = holder[0].run_handle
        if event.event_type == "iteration_start" and handle is not None:
            handle.abort("host said stop")

    agent = Agent(MODEL, client=fake, hooks=abort, log_to_file=False)
    holder.append(agent)
    with pytest.raises(AgentAborted):
        agent.run_sync("go")
    (run,) = [s for s in _spans(exporter) if s.name == "invoke_agent"]
    assert run.status.status_code is StatusCode.ERROR
    assert (run.attributes or {})["error.type"] == "AgentAborted"
