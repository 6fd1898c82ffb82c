"""Issue 38, fleets: a job's worker spans join the submitter's trace when only the
Agents have ``telemetry=True`` (no ``instrument()``), and with DBOS's own tracing on
(``DPT_DBOS_TRACING=1``) the run span nests under DBOS's workflow span, itself in the
submitter's trace, instead of starting another root. Real DBOS on SQLite, the real
opentelemetry-sdk (in-memory exporter), the loopback emulator."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.telemetry import otel_telemetry
from doc_processing_toolkit.agent.core import container_deps
from doc_processing_toolkit.telemetry import uninstrument
from doc_processing_toolkit.testing import ProviderEmulator

pytest.importorskip("dbos")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fleet_support as fs  # noqa: E402


def test_a_fleet_job_joins_the_trace_with_only_the_agent_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from doc_processing_toolkit.fleet import Fleet

    uninstrument()  # the process is not instrumented: the Agents' switch only
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel = otel_telemetry(tracer_provider)
    deps = dataclasses.replace(container_deps(), telemetry=lambda: otel)

    def make_agent() -> Agent:
        return Agent(
            fs.MODEL,
            "Extract invoice totals.",
            tools=[fs.lookup],
            base_url=os.environ["DPT_TEST_EMULATOR_URL"],
            log_to_file=False,
            telemetry=True,
            deps=deps,
        )

    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        monkeypatch.setenv("DPT_TEST_EMULATOR_URL", emu.anthropic_base_url)
        monkeypatch.setenv("DPT_TEST_TOOL_LOG", str(tmp_path / "tools.log"))
        fleet = Fleet(make_agent, str(tmp_path / "fleet.sqlite"), concurrency=1)
        with tracer_provider.get_tracer("submitter").start_as_current_span("submit") as submit:
            assert fleet.submit("inv-001", "Process job inv-001.")
        try:
            results = fleet.run()  # the worker: outside the submitter's span
        finally:
            fleet.close()
    tracer_provider.shutdown()
    assert results["inv-001"].success
    spans = exporter.get_finished_spans()
    context = submit.get_span_context()
    runs = [s for s in spans if s.name == "invoke_agent"]
    assert len(runs) == 1
    assert runs[0].parent is not None and runs[0].parent.span_id == context.span_id
    worker = [s for s in spans if s.name != "submit"]
    assert {s.name.split()[0] for s in worker} == {"invoke_agent", "chat", "execute_tool"}
    assert {s.context.trace_id for s in worker} == {context.trace_id}


_DBOS_TRACED = """
import json, os, sys
sys.path.insert(0, sys.argv[2])
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)  # DBOS traces to the global provider (a subprocess)

import fleet_support as fs
from doc_processing_toolkit.fleet import Fleet
from doc_processing_toolkit.telemetry import instrument

instrument()
fleet = Fleet(fs.make_agent, sys.argv[1], concurrency=1)
with trace.get_tracer("submitter").start_as_current_span("submit"):
    assert fleet.submit("inv-001", "Process job inv-001.")
try:
    results = fleet.run()
finally:
    fleet.close()
assert results["inv-001"].success, results
print(json.dumps([
    {
        "name": s.name,
        "trace": s.context.trace_id,
        "id": s.context.span_id,
        "parent": s.parent.span_id if s.parent else None,
        "links": [link.context.span_id for link in s.links],
    }
    for s in exporter.get_finished_spans()
]))
"""


def test_with_dbos_tracing_the_run_nests_under_the_workflow_span(tmp_path: Path) -> None:
    with ProviderEmulator() as emu:
        emu.responder = fs.invoice_responder
        env = {
            **os.environ,
            "DPT_TEST_EMULATOR_URL": emu.anthropic_base_url,
            "DPT_TEST_TOOL_LOG": str(tmp_path / "tools.log"),
            "DPT_DBOS_TRACING": "1",
            "DPT_AGENT_LOG_TO_FILE": "0",
        }
        done = subprocess.run(
            [sys.executable, "-c", _DBOS_TRACED, str(tmp_path / "fleet.sqlite"), str(HERE)],
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
            check=False,
            cwd=tmp_path,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    spans = json.loads(done.stdout.strip().splitlines()[-1])
    by_id = {s["id"]: s for s in spans}
    submit = next(s for s in spans if s["name"] == "submit")
    workflow = next(s for s in spans if s["name"] == "dpt_fleet_job")
    run = next(s for s in spans if s["name"] == "invoke_agent")
    assert workflow["trace"] == submit["trace"] and workflow["parent"] == submit["id"]
    assert run["parent"] == workflow["id"] and run["links"] == []
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == 2
    for span in [run, *chats]:
        assert span["trace"] == submit["trace"]
    for chat in chats:  # right under the run: a job's steps are no DBOS steps (no step span)
        assert by_id[chat["parent"]]["id"] == run["id"]
