"""Issue 38 acceptance, through the real Anthropic SDK against the loopback emulator and
the real opentelemetry-sdk (in-memory span exporter and metric reader): one run with a
tool round and a 429 retry is the span tree invoke_agent > (chat, execute_tool,
chat[error, retried], chat), every token attribute equals the cost record it came from,
the run span's cost is ``result.cost``; secrets never reach a span; off imports nothing."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.adapters.telemetry import otel_telemetry
from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.telemetry import instrument, uninstrument
from doc_processing_toolkit.testing import Fault, ProviderEmulator, Reply, ToolCall

KEY_CANARY = "sk-ant-KEYCANARY-7f3a9c1e5b2d"
ARG_CANARY = "ARGCANARY-41d9e2"
MODEL = "claude-sonnet-5-5"


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


@dataclasses.dataclass
class Otel:
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def spans(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    def metrics(self) -> dict[str, list[Any]]:
        data = self.reader.get_metrics_data()
        found: dict[str, list[Any]] = {}
        assert data is not None
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found


@pytest.fixture
def otel() -> Iterator[Otel]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield Otel(exporter, reader, tracer_provider, meter_provider)
    uninstrument()
    tracer_provider.shutdown()
    meter_provider.shutdown()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_BACKOFF_S", "0.01")
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)


def _script(emu: ProviderEmulator) -> None:
    emu.reset(
        [
            Reply(
                tool_calls=(ToolCall("lookup", {"key": ARG_CANARY}),),
                input_tokens=1_200,
                cache_read_tokens=800,
                cache_write_tokens=300,
                output_tokens=90,
            ),
            Fault(status=429, retry_after=0.0),
            Reply(text="done", input_tokens=1_500, cache_read_tokens=1_000, output_tokens=40),
        ]
    )


def _agent(emu: ProviderEmulator, **kwargs: Any) -> Agent:
    return Agent(
        MODEL,
        api_key=KEY_CANARY,
        base_url=emu.anthropic_base_url,
        tools=[lookup],
        log_to_file=False,
        **kwargs,
    )


def _everything(spans: list[ReadableSpan]) -> str:
    """Every name, attribute, event and status text of ``spans``, as one string."""
    parts: list[str] = []
    for span in spans:
        parts.append(span.name)
        parts.append(json.dumps(dict(span.attributes or {}), default=str))
        parts.append(str(span.status.description))
        for event in span.events:
            parts.append(event.name)
            parts.append(json.dumps(dict(event.attributes or {}), default=str))
    return "\n".join(parts)


def test_one_run_is_a_span_tree_with_the_cost_records(otel: Otel, emu: ProviderEmulator) -> None:
    _script(emu)
    instrument(otel.tracer_provider, otel.meter_provider)
    tracer = otel.tracer_provider.get_tracer("caller")
    with tracer.start_as_current_span("caller") as caller:
        result = _agent(emu).run_sync("go")
    assert result.error is None and result.output == "done"

    spans = otel.spans()
    by_name = [s.name for s in spans]
    assert by_name == [
        "caller",
        "invoke_agent",
        f"chat {MODEL}",
        "execute_tool lookup",
        f"chat {MODEL}",
        f"chat {MODEL}",
    ]
    run = spans[1]
    # The run nests under the caller's span; every other span under the run.
    assert run.parent is not None and run.parent.span_id == caller.get_span_context().span_id
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in spans[2:])
    assert {s.context.trace_id for s in spans} == {caller.get_span_context().trace_id}

    chat1, tool_span, failed, chat2 = spans[2:]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes is not None
    assert failed.attributes["error.type"] == "RateLimitError"
    assert failed.attributes["doc_processing_toolkit.request.retried"] is True
    assert failed.attributes["doc_processing_toolkit.cost.usd"] == 0.0
    assert chat2.attributes is not None
    assert chat2.attributes["doc_processing_toolkit.request.attempt"] == 2

    records = result.request_cost_records
    assert [r["purpose"] for r in records] == ["generation", "tool_followup"]
    for span, record in zip((chat1, chat2), records, strict=True):
        attrs = span.attributes
        assert attrs is not None
        assert span.status.status_code is StatusCode.UNSET
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.provider.name"] == "anthropic"
        assert attrs["gen_ai.request.model"] == MODEL
        assert attrs["gen_ai.response.model"] == record["served_model"] or MODEL
        assert attrs["server.address"] == "127.0.0.1"
        assert attrs["doc_processing_toolkit.request.purpose"] == record["purpose"]
        assert attrs["gen_ai.usage.input_tokens"] == record["input_tokens"]
        assert attrs["gen_ai.usage.output_tokens"] == record["output_tokens"]
        assert attrs["gen_ai.usage.cache_read.input_tokens"] == record["cached_input_tokens"]
        assert attrs["gen_ai.usage.cache_creation.input_tokens"] == record["cache_write_tokens"]
        assert attrs["doc_processing_toolkit.cost.usd"] == record["cost"]
        assert record["cost"] > 0
    assert chat1.attributes is not None and chat2.attributes is not None
    assert chat1.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert chat2.attributes["gen_ai.response.finish_reasons"] == ("end_turn",)

    assert tool_span.attributes is not None
    assert tool_span.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool_span.attributes["gen_ai.tool.name"] == "lookup"
    assert tool_span.status.status_code is StatusCode.UNSET

    assert run.attributes is not None
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["doc_processing_toolkit.cost.usd"] == result.cost
    assert run.attributes["doc_processing_toolkit.retry.cost.usd"] == result.retry_cost
    assert run.status.status_code is StatusCode.UNSET

    metrics = otel.metrics()
    durations = metrics["gen_ai.client.operation.duration"]
    assert sum(p.count for p in durations) == 3
    assert any(p.attributes.get("error.type") == "RateLimitError" for p in durations)
    tokens = metrics["gen_ai.client.token.usage"]
    inputs = sum(p.sum for p in tokens if p.attributes["gen_ai.token.type"] == "input")
    assert inputs == sum(r["input_tokens"] for r in records)
    cost = sum(p.value for p in metrics["doc_processing_toolkit.cost.usd"])
    assert cost == pytest.approx(sum(r["cost"] for r in records))


def test_no_secret_and_no_content_with_capture_off(otel: Otel, emu: ProviderEmulator) -> None:
    _script(emu)
    instrument(otel.tracer_provider, otel.meter_provider)
    result = _agent(emu).run_sync(f"go (my key is {KEY_CANARY})")
    assert result.error is None
    everything = _everything(otel.spans())
    assert "execute_tool lookup" in everything
    assert KEY_CANARY not in everything
    assert ARG_CANARY not in everything
    assert "gen_ai.input.messages" not in everything
    assert "gen_ai.tool.call.arguments" not in everything


def test_capture_on_records_content_without_the_key(
    otel: Otel, emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    _script(emu)
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    instrument(otel.tracer_provider, otel.meter_provider)
    result = _agent(emu).run_sync(f"go (my key is {KEY_CANARY})")
    assert result.error is None
    spans = otel.spans()
    everything = _everything(spans)
    assert ARG_CANARY in everything  # the tool argument is content: recorded
    assert KEY_CANARY not in everything
    tool_span = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool_span.attributes is not None
    assert ARG_CANARY in str(tool_span.attributes["gen_ai.tool.call.arguments"])
    assert tool_span.attributes["gen_ai.tool.call.result"] == f"value of {ARG_CANARY}"
    chat = next(s for s in spans if s.name == f"chat {MODEL}")
    assert chat.attributes is not None
    assert "my key is" in str(chat.attributes["gen_ai.input.messages"])


def test_agent_switch_uses_its_deps_telemetry(otel: Otel, emu: ProviderEmulator) -> None:
    emu.reset([Reply(text="hello")])
    deps = dataclasses.replace(
        container_deps(),
        telemetry=lambda: otel_telemetry(otel.tracer_provider, otel.meter_provider),
    )
    result = _agent(emu, telemetry=True, deps=deps).run_sync("hi")
    assert result.error is None
    assert [s.name for s in otel.spans()] == ["invoke_agent", f"chat {MODEL}"]
    assert _agent(emu, deps=deps).settings.logging.telemetry is False


def test_a_failed_run_is_an_error_span(otel: Otel, emu: ProviderEmulator) -> None:
    emu.reset([Fault(status=400, message="bad request")])
    instrument(otel.tracer_provider, otel.meter_provider)
    with pytest.raises(Exception, match="bad request"):
        _agent(emu).run_sync("go")
    run, chat = otel.spans()
    assert chat.status.status_code is StatusCode.ERROR
    assert run.status.status_code is StatusCode.ERROR
    assert chat.attributes is not None and run.attributes is not None
    assert chat.attributes["error.type"] == run.attributes["error.type"]
    assert chat.attributes["doc_processing_toolkit.request.retried"] is False


def test_off_imports_no_opentelemetry() -> None:
    code = """
import sys
from doc_processing_toolkit import Agent
from doc_processing_toolkit.testing import FakeModel, reply
agent = Agent("claude-sonnet-4-5", client=FakeModel([reply("ok")]), log_to_file=False)
assert agent.run_sync("hi").output == "ok"
print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]"


def test_global_tracer_untouched() -> None:
    """The tests never set the API's global provider (each passes its own)."""
    assert not isinstance(trace.get_tracer_provider(), TracerProvider)


def test_a_fleet_job_joins_the_submitters_trace(
    otel: Otel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("dbos")
    from doc_processing_toolkit.fleet import Fleet

    sys.path.insert(0, str(Path(__file__).parent))
    import fleet_support as fs

    instrument(otel.tracer_provider, otel.meter_provider)
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        monkeypatch.setenv("DPT_TEST_EMULATOR_URL", emu.anthropic_base_url)
        monkeypatch.setenv("DPT_TEST_TOOL_LOG", str(tmp_path / "tools.log"))
        fleet = Fleet(fs.make_agent, str(tmp_path / "fleet.sqlite"), concurrency=1)
        tracer = otel.tracer_provider.get_tracer("submitter")
        with tracer.start_as_current_span("submit") as submit:
            assert fleet.submit("inv-001", "Process job inv-001.")
        try:
            results = fleet.run()  # the worker: outside the submitter's span
        finally:
            fleet.close()
    assert results["inv-001"].success
    runs = [s for s in otel.spans() if s.name == "invoke_agent"]
    assert len(runs) == 1
    context = submit.get_span_context()
    assert runs[0].context.trace_id == context.trace_id
    assert runs[0].parent is not None and runs[0].parent.span_id == context.span_id
    chats = [s for s in otel.spans() if s.name.startswith("chat ")]
    assert chats and {s.context.trace_id for s in chats} == {context.trace_id}


def test_without_the_extra_the_switch_names_it() -> None:
    code = """
import sys
sys.modules["opentelemetry"] = None  # as if opentelemetry-api were not installed
from doc_processing_toolkit import Agent, MissingDependencyError
from doc_processing_toolkit.testing import FakeModel, reply
try:
    Agent("claude-sonnet-4-5", client=FakeModel([reply("ok")]), log_to_file=False, telemetry=True)
except MissingDependencyError as exc:
    print("raised:", exc)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.startswith("raised:") and "otel" in out.stdout


def test_spans_export_over_otlp_http_to_a_loopback_receiver(emu: ProviderEmulator) -> None:
    import gzip
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
        ExportTraceServiceResponse,
    )

    received: list[ExportTraceServiceRequest] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            received.append(request)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    provider = TracerProvider()
    exporter = OTLPSpanExporter(
        endpoint=f"http://127.0.0.1:{server.server_address[1]}/v1/traces", timeout=10
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    emu.reset([Reply(text="hello", input_tokens=321, output_tokens=12)])
    try:
        instrument(provider)
        result = _agent(emu).run_sync(f"hi, key {KEY_CANARY}")
    finally:
        uninstrument()
        provider.shutdown()
        server.shutdown()
        thread.join(timeout=10)
    assert result.error is None
    spans = {
        span.name: {a.key: a.value for a in span.attributes}
        for request in received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    assert set(spans) == {"invoke_agent", f"chat {MODEL}"}
    chat = spans[f"chat {MODEL}"]
    assert chat["gen_ai.usage.input_tokens"].int_value == 321
    assert chat["doc_processing_toolkit.cost.usd"].double_value == result.cost
    assert spans["invoke_agent"]["doc_processing_toolkit.cost.usd"].double_value == result.cost
    assert KEY_CANARY not in str(received)


def test_a_stream_closed_early_ends_its_spans_as_cancelled(
    otel: Otel, emu: ProviderEmulator
) -> None:
    import asyncio
    import contextlib

    emu.reset([Reply(text="abcdefghij" * 20, chunk_size=2, delay_between_chunks=0.02)])
    instrument(otel.tracer_provider, otel.meter_provider)
    agent = _agent(emu)

    async def first_delta_then_close() -> None:
        events = agent.stream("go")
        async with contextlib.aclosing(events):
            async for event in events:
                if event.event_type == "text_delta":
                    break
        await agent.close()

    asyncio.run(asyncio.wait_for(first_delta_then_close(), timeout=60))
    spans = {s.name: s for s in otel.spans()}
    assert set(spans) == {"invoke_agent", f"chat {MODEL}"}
    for span in spans.values():
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes is not None
        assert span.attributes["error.type"] == "CancelledError"


@pytest.mark.parametrize("capture", [False, True], ids=["capture-off", "capture-on"])
def test_an_mcp_bearer_token_never_reaches_a_span(
    capture: bool, otel: Otel, emu: ProviderEmulator
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    from http_mcp_server import HttpMCPServer

    token = "mcp-TOKENCANARY-5e8b21"
    server = HttpMCPServer(token).start()
    try:
        emu.reset(
            [
                Reply(tool_calls=(ToolCall("echo", {"text": ARG_CANARY}),)),
                Reply(text="done"),
            ]
        )
        instrument(otel.tracer_provider, otel.meter_provider, capture_content=capture)
        entry = {
            "type": "mcp_remote_client",
            "url": server.url,
            "name": "remote-calc",
            "authorization_token": token,
            "allowed_tools": ["echo"],
        }
        agent = Agent(
            MODEL,
            api_key=KEY_CANARY,
            base_url=emu.anthropic_base_url,
            tools=[entry],
            log_to_file=False,
        )
        result = agent.run_sync(f"go; key {KEY_CANARY}, token {token}")
    finally:
        server.stop()
    assert result.error is None and result.output == "done"
    spans = otel.spans()
    tool_span = next(s for s in spans if s.name == "execute_tool echo")
    assert tool_span.attributes is not None
    assert tool_span.attributes["doc_processing_toolkit.tool.server"] == "remote-calc"
    everything = _everything(spans)
    assert KEY_CANARY not in everything and token not in everything
    assert (ARG_CANARY in everything) is capture


def test_a_compaction_summary_is_a_chat_span_with_its_purpose(otel: Otel) -> None:
    from doc_processing_toolkit.testing import FakeModel, reply, tool_call

    @tool
    def read(page: int) -> str:
        """Read a page."""
        return f"PAGE-{page} " + "text " * 200

    def page_call(page: int, input_tokens: int = 100) -> Reply:
        calls = tool_call("read", {"page": page}).tool_calls
        return Reply(tool_calls=calls, input_tokens=input_tokens)

    fake = FakeModel(
        [
            page_call(1),
            reply("first answer"),
            page_call(2, input_tokens=5000),  # a big context: Level 2 fires
            Fault(status=529),  # the summary's first attempt, retried
            reply("RECAP of page 1", input_tokens=300, output_tokens=40),
            reply("second answer"),
        ]
    )
    agent = Agent(
        MODEL,
        tools=[read],
        client=fake,
        compaction=True,
        compaction_config={
            "trigger_threshold": 1000,
            "min_messages_before_compaction": 2,
            "archive_sink": lambda payload: "memory://archive",  # nothing written to the cwd
        },
        log_to_file=False,
    )
    instrument(otel.tracer_provider, otel.meter_provider)
    session = agent.session(session_id="contract")
    session.run_sync("read page 1")
    otel.exporter.clear()
    second = session.run_sync("read page 2")
    chats = [s for s in otel.spans() if s.name.startswith("chat ")]
    purposes = [(s.attributes or {}).get("doc_processing_toolkit.request.purpose") for s in chats]
    assert purposes == ["generation", "compaction_summary", "compaction_summary", "tool_followup"]
    failed, summary = chats[1], chats[2]
    assert failed.status.status_code is StatusCode.ERROR
    record = next(r for r in second.request_cost_records if r["purpose"] == "compaction_summary")
    assert summary.attributes is not None
    assert summary.attributes["gen_ai.usage.input_tokens"] == record["input_tokens"] == 300
    assert summary.attributes["doc_processing_toolkit.cost.usd"] == record["cost"]
    run = next(s for s in otel.spans() if s.name == "invoke_agent")
    assert run.attributes is not None
    assert run.attributes["doc_processing_toolkit.cost.usd"] == second.cost


_ONE_SDK_SPAN = """
import asyncio, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from doc_processing_toolkit import Agent
from doc_processing_toolkit.telemetry import instrument
from doc_processing_toolkit.testing import ProviderEmulator, Reply

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # the SDK's own spans go to the global provider
if sys.argv[1] == "instrumented":
    instrument()


async def main() -> None:
    with ProviderEmulator() as emu:
        emu.reset([Reply(text="hi"), Reply(text="again")])
        agent = Agent("claude-sonnet-5-5", api_key="sk-ant-x", base_url=emu.anthropic_base_url,
                      log_to_file=False)
        await agent.run("hello")
        await agent.run("hello again")
        await agent.close()
    for span in sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0):
        operation = span.attributes.get("gen_ai.operation.name")
        print(span.instrumentation_scope.name, span.name, operation)

asyncio.run(main())
"""


@pytest.mark.parametrize(
    ("mode", "sdk_env", "sdk_spans"),
    [("instrumented", None, 0), ("instrumented", "true", 2), ("plain", None, 2)],
)
def test_a_request_is_one_chat_operation_not_two(
    tmp_path: Path, mode: str, sdk_env: str | None, sdk_spans: int
) -> None:
    """The Anthropic SDK makes a GenAI ``chat`` span of its own per call, under the
    toolkit's ``chat`` span: a backend would count each request twice. With the toolkit's
    telemetry on, a request goes without the SDK's span; with it off, or with the SDK's
    spans asked for by its own variable, the SDK's span is the user's and stays."""
    script = tmp_path / "one_sdk_span.py"
    script.write_text(_ONE_SDK_SPAN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_OPEN_TELEMETRY")}
    if sdk_env is not None:
        env["ANTHROPIC_OPEN_TELEMETRY"] = sdk_env
    out = subprocess.run(
        [sys.executable, str(script), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    lines = out.stdout.splitlines()
    sdk = [line for line in lines if line.startswith("com.anthropic.sdk.python ")]
    assert len(sdk) == sdk_spans, out.stdout
    ours = [line for line in lines if line.startswith("doc_processing_toolkit chat ")]
    assert len(ours) == (2 if mode == "instrumented" else 0), out.stdout
