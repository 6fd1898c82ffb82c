"""Issue 39 acceptance: the same 4-step script (text, a tool round, structured output,
streaming) through the SDK's own deployment clients (AsyncAnthropicBedrock with SigV4,
AsyncAnthropicVertex, AsyncAnthropicFoundry, genai.Client(vertexai=True),
AsyncAzureOpenAI) against the loopback emulator, which checks each cloud's
authentication as the service does; wrong credentials raise our AuthenticationError with
the remedy and no credential; costs are the deployment's registry prices."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.agent.cost import DetailedCostReport
from doc_processing_toolkit.application.container import registry
from doc_processing_toolkit.domain.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
)
from doc_processing_toolkit.testing import ProviderEmulator, Reply, ToolCall
from doc_processing_toolkit.testing.emulator import deployments_wire as wire


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


class Answer(BaseModel):
    value: str


def _options(deployment: str, provider: str, emu: ProviderEmulator, bad: bool) -> dict[str, Any]:
    url = emu.deployment_base_url(deployment, provider)
    if deployment == "bedrock":
        secret = "wrong-secret" if bad else wire.AWS_SECRET_KEY
        return {
            "region": wire.AWS_REGION,
            "aws_access_key": wire.AWS_ACCESS_KEY,
            "aws_secret_key": secret,
            "base_url": url,
        }
    if deployment == "vertex":
        token = "ya29.wrong" if bad else wire.VERTEX_TOKEN
        return {"project": "proj-1", "location": "us-east5", "access_token": token, "base_url": url}
    if deployment == "foundry":
        return {"api_key": "wrong" if bad else wire.FOUNDRY_KEY, "base_url": url}
    return {
        "azure_endpoint": url,
        "api_version": "2025-04-01-preview",
        "api_key": "wrong" if bad else wire.AZURE_KEY,
    }


CASES = [
    ("claude-sonnet-4-5", "bedrock"),
    ("claude-sonnet-4-5", "vertex"),
    ("claude-haiku-4-5", "foundry"),
    ("gemini-2.5-flash", "vertex"),
    ("gpt-4o", "azure"),
]
IDS = [f"{model}-on-{deployment}" for model, deployment in CASES]


def _agent(model: str, deployment: str, emu: ProviderEmulator, *, bad: bool = False) -> Agent:
    provider = registry().detect_provider(model)
    return Agent(
        model,
        tools=[lookup],
        deployment=deployment,
        deployment_options=_options(deployment, provider, emu, bad),
        log_to_file=False,
    )


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "ANTHROPIC_FOUNDRY_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("model", "deployment"), CASES, ids=IDS)
def test_four_step_script_on_each_deployment(
    model: str, deployment: str, emu: ProviderEmulator
) -> None:
    emu.reset(
        [
            Reply("hello from the cloud", input_tokens=1_000, output_tokens=100),
            Reply(tool_calls=(ToolCall("lookup", {"key": "a"}),), input_tokens=200),
            Reply("the value is a", input_tokens=300, output_tokens=20),
            Reply('{"value": "a"}', input_tokens=50, output_tokens=10),
            Reply("streamed words", input_tokens=10, output_tokens=5),
        ]
    )
    agent = _agent(model, deployment, emu)
    row = registry().row(model)
    assert row is not None
    info = row.deployments[deployment]

    text = agent.run_sync("say hello")
    assert text.output == "hello from the cloud"
    prices = info.pricing
    assert prices.input_per_mtok is not None and prices.output_per_mtok is not None
    expected = (1_000 * prices.input_per_mtok + 100 * prices.output_per_mtok) / 1e6
    assert text.cost == pytest.approx(expected)

    tooled = agent.run_sync("look a up")
    assert tooled.output == "the value is a"
    structured = agent.run_sync("as json", output_schema=Answer)
    assert structured.output == {"value": "a"}

    async def stream() -> str:
        pieces = []
        async for event in agent.stream("stream it"):
            if event.event_type == "text_delta":
                pieces.append(event.content)
        await agent.close()
        return "".join(pieces)

    assert asyncio.run(stream()) == "streamed words"
    paths = {r.path for r in emu.requests}
    assert all(info.model_id in path or deployment in ("foundry", "azure") for path in paths)
    prefix = {"foundry": "/anthropic/", "azure": "/openai/"}.get(deployment, "/")
    assert all(path.startswith(prefix) for path in paths)
    if deployment == "bedrock":
        assert all(r.headers["authorization"].startswith("AWS4-HMAC-SHA256") for r in emu.requests)


@pytest.mark.parametrize(("model", "deployment"), CASES, ids=IDS)
def test_wrong_credentials_raise_our_authentication_error(
    model: str, deployment: str, emu: ProviderEmulator
) -> None:
    emu.reset([Reply("never")])
    agent = _agent(model, deployment, emu, bad=True)
    with pytest.raises(AuthenticationError) as caught:
        agent.run_sync("hi")
    text = str(caught.value)
    assert deployment.replace("vertex", "Vertex AI").split()[0].lower() in text.lower()
    for secret in ("wrong-secret", "ya29.wrong", wire.AWS_SECRET_KEY):
        assert secret not in text
    assert emu.remaining_steps == 1  # refused at the door: the script was not consumed


def test_an_unsupported_pair_fails_at_construction_naming_the_rows_deployments() -> None:
    with pytest.raises(ConfigurationError, match=r"gpt-4o .*lists api, azure"):
        Agent("gpt-4o", deployment="bedrock", log_to_file=False)


def test_an_unknown_option_names_the_ones_the_deployment_takes() -> None:
    with pytest.raises(ConfigurationError, match="aws_profile"):
        Agent(
            "claude-sonnet-4-5",
            deployment="bedrock",
            deployment_options={"project": "p"},
            log_to_file=False,
        )


def test_the_environment_variable_chooses_the_deployment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DPT_OPENAI_DEPLOYMENT", "bedrock")
    with pytest.raises(ConfigurationError, match="lists api, azure"):
        Agent("gpt-4o", log_to_file=False)
    monkeypatch.setenv("DPT_OPENAI_DEPLOYMENT", "azure")
    assert Agent("gpt-4o", log_to_file=False).provider == "openai"


def _bedrock_agent(emu: ProviderEmulator, **kwargs: Any) -> Agent:
    return Agent(
        "claude-sonnet-4-5",
        tools=[lookup],
        deployment="bedrock",
        deployment_options=_options("bedrock", "anthropic", emu, False),
        log_to_file=False,
        **kwargs,
    )


def test_detailed_report_names_the_deployment_and_its_prices(
    emu: ProviderEmulator, tmp_path: Any
) -> None:
    emu.reset([Reply("priced", input_tokens=2_000, output_tokens=300)])
    agent = _bedrock_agent(emu, detailed_costs=True, cost_output_dir=str(tmp_path))
    result = agent.run_sync("hi")
    assert result.detailed_cost_file is not None
    report = DetailedCostReport.load(result.detailed_cost_file)
    assert report.deployment == "bedrock"
    assert [r["deployment"] for r in result.request_cost_records] == ["bedrock"]
    assert [r["deployment"] for r in report.request_cost_records] == ["bedrock"]
    assert report.total_cost == pytest.approx((2_000 * 3 + 300 * 15) / 1e6)
    assert report.pricing_info["input_per_mtok"] == 3


def test_a_session_from_anthropics_api_continues_on_bedrock_and_on_gemini_on_vertex(
    emu: ProviderEmulator,
) -> None:
    from doc_processing_toolkit import AgentSession

    emu.reset(
        [
            Reply(tool_calls=(ToolCall("lookup", {"key": "a"}),)),
            Reply("the value is a"),
            Reply("still here on bedrock"),
            Reply("still here on vertex"),
        ]
    )
    first = Agent(
        "claude-sonnet-4-5",
        tools=[lookup],
        api_key="offline-test-key",
        base_url=emu.anthropic_base_url,
        log_to_file=False,
    )
    session = first.session()
    session.run_sync("look a up")
    saved = session.to_dict()

    on_bedrock = AgentSession.from_dict(saved, _bedrock_agent(emu))
    assert on_bedrock.converted_from is None and on_bedrock.conversion_report == []
    assert on_bedrock.messages == session.messages  # same dialect: nothing converted
    assert on_bedrock.run_sync("and now?").output == "still here on bedrock"
    sent = emu.requests[-1]
    assert sent.path.startswith("/model/anthropic.claude-sonnet-4-5-20250929-v1:0/")
    assert len(sent.body["messages"]) == len(session.messages) + 1

    vertex = Agent(
        "gemini-2.5-flash",
        tools=[lookup],
        deployment="vertex",
        deployment_options=_options("vertex", "google", emu, False),
        log_to_file=False,
    )
    on_vertex = AgentSession.from_dict(saved, vertex)
    assert on_vertex.converted_from == "anthropic"
    assert isinstance(on_vertex.conversion_report, list)
    assert on_vertex.run_sync("and now?").output == "still here on vertex"
    assert "/publishers/google/models/gemini-2.5-flash:" in emu.requests[-1].path


def test_dpt_run_deployment_uses_the_sdks_variables(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from doc_processing_toolkit.cli.main import main

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", wire.AWS_ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", wire.AWS_SECRET_KEY)
    monkeypatch.setenv("AWS_REGION", wire.AWS_REGION)
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", emu.url)
    emu.reset([Reply("from the cli")])
    code = main(["run", "hi", "--model", "claude-haiku-4-5", "--deployment", "bedrock"])
    assert code == 0
    assert "from the cli" in capsys.readouterr().out
    assert emu.requests[-1].path.startswith("/model/anthropic.claude-haiku-4-5-20251001-v1:0/")


def test_yaml_and_to_config_keep_the_deployment_but_never_its_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_AWS_SECRET", "s3cr3t-value")
    agent = Agent.from_config_string(
        "model: claude-sonnet-4-5\n"
        "deployment: bedrock\n"
        "deployment_options:\n"
        "  region: eu-west-1\n"
        "  aws_access_key: AKIAEXAMPLE\n"
        "  aws_secret_key: ${MY_AWS_SECRET}\n"
        "logging:\n  to_file: false\n"
    )
    assert agent.settings.deployment.deployment == "bedrock"
    assert agent.settings.deployment.deployment_options == {
        "region": "eu-west-1",
        "aws_access_key": "AKIAEXAMPLE",
        "aws_secret_key": "s3cr3t-value",
    }
    config = agent.to_config()
    assert config["deployment"] == "bedrock"
    assert config["deployment_options"] == {"region": "eu-west-1"}
    assert "s3cr3t-value" not in repr(config) and "s3cr3t-value" not in repr(agent.settings)
    assert "aws_secret_key" in str(config["unserialisable"]["deployment_options"])


def test_the_builder_sets_the_deployment_and_checks_its_options() -> None:
    agent = (
        Agent.builder()
        .model("claude-sonnet-4-5")
        .deployment("vertex", project="p", location="us-east5")
        .with_settings(log_to_file=False)
        .build()
    )
    assert agent.settings.deployment.deployment == "vertex"
    assert agent.settings.deployment.deployment_options == {"project": "p", "location": "us-east5"}
    with pytest.raises(ConfigurationError, match="region"):
        Agent.builder().deployment("bedrock", project="p")


def test_a_wrong_azure_deployment_name_is_an_error_with_the_remedy(
    emu: ProviderEmulator,
) -> None:
    emu.reset([Reply("never")])
    options = {**_options("azure", "openai", emu, False), "azure_deployment": "no-such-name"}
    agent = Agent("gpt-4o", deployment="azure", deployment_options=options, log_to_file=False)
    with pytest.raises(BadRequestError, match="azure_deployment names a deployment"):
        agent.run_sync("hi")
    assert emu.requests[-1].body["model"] == "no-such-name"


def test_a_built_in_tool_the_deployment_lacks_is_refused_as_on_a_model_without_it(
    emu: ProviderEmulator,
) -> None:
    from doc_processing_toolkit.domain.errors import CompatibilityError

    on_api = Agent("claude-sonnet-4-5", built_in_tools={"web_search": {}}, log_to_file=False)
    assert on_api.settings.tools.built_in_tools == {"web_search": {}}
    with pytest.raises(CompatibilityError, match=r"web_search.*\['tool_search'\]"):
        _bedrock_agent(emu, built_in_tools={"web_search": {}})


def test_gemini_on_vertex_has_no_files_api_so_large_media_fails_clearly(
    emu: ProviderEmulator, tmp_path: Any
) -> None:
    from doc_processing_toolkit.domain.errors import MediaUploadError

    emu.reset([Reply("never")])
    big = tmp_path / "scan.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b"0" * 64)
    agent = Agent(
        "gemini-2.5-flash",
        deployment="vertex",
        deployment_options=_options("vertex", "google", emu, False),
        log_to_file=False,
        registry=[
            {
                **registry().row("gemini-2.5-flash").model_dump(),  # type: ignore[union-attr]
                "max_inline_bytes": 16,
            }
        ],
    )
    with pytest.raises(MediaUploadError, match="gs://"):
        agent.run_sync("read it", files=[str(big)])
    assert emu.request_count == 0


def test_an_input_type_the_deployment_lacks_follows_on_unsupported_part(
    emu: ProviderEmulator, tmp_path: Any
) -> None:
    from doc_processing_toolkit.domain.errors import UnsupportedPartError

    row = registry().row("claude-haiku-4-5")
    assert row is not None
    rows = row.model_dump()
    rows["deployments"]["bedrock"]["unsupported"] = ["pdf"]  # a deployment without PDFs
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    options = _options("bedrock", "anthropic", emu, False)

    def agent(policy: str) -> Agent:
        return Agent(
            "claude-haiku-4-5",
            deployment="bedrock",
            deployment_options=options,
            registry=[rows],
            on_unsupported_part=policy,
            log_to_file=False,
        )

    emu.reset([Reply("no pdf seen")])
    with pytest.raises(UnsupportedPartError, match="pdf"):
        agent("raise").run_sync("read it", files=[str(pdf)])
    assert emu.request_count == 0
    dropped = agent("drop").run_sync("read it", files=[str(pdf)])
    assert dropped.output == "no pdf seen" and dropped.dropped_parts
    assert "document" not in json.dumps(emu.requests[-1].body)


def test_tool_files_on_a_deployment_without_a_files_api_fail_before_sending(
    emu: ProviderEmulator, tmp_path: Any
) -> None:
    from doc_processing_toolkit.domain.errors import CompatibilityError

    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n")
    emu.reset([Reply("never")])
    with pytest.raises(CompatibilityError, match=r"Files API.*on bedrock"):
        _bedrock_agent(emu).run_sync("analyse", tool_files=[str(data)])
    assert emu.request_count == 0


def test_claude_on_vertex_without_a_project_names_the_remedy(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_VERTEX_PROJECT_ID", raising=False)
    emu.reset([Reply("never")])
    options = _options("vertex", "anthropic", emu, False)
    del options["project"]
    agent = Agent(
        "claude-haiku-4-5", deployment="vertex", deployment_options=options, log_to_file=False
    )
    with pytest.raises(ConfigurationError, match="ANTHROPIC_VERTEX_PROJECT_ID"):
        agent.run_sync("hi")
    assert emu.request_count == 0


@pytest.mark.parametrize(
    ("model", "deployment", "system"),
    [
        ("claude-sonnet-4-5", "bedrock", "aws.bedrock"),
        ("gemini-2.5-flash", "vertex", "gcp.vertex_ai"),
        ("gpt-4o", "azure", "azure.ai.openai"),
    ],
)
def test_telemetry_names_the_cloud_that_serves_the_model(
    model: str, deployment: str, system: str, emu: ProviderEmulator
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from doc_processing_toolkit.telemetry import instrument, uninstrument

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(tracer_provider=provider)
    try:
        emu.reset([Reply(text="hello")])
        _agent(model, deployment, emu).run_sync("Say hello.")
    finally:
        uninstrument()
        provider.shutdown()
    names = {
        span.name: (span.attributes or {}).get("gen_ai.provider.name")
        for span in exporter.get_finished_spans()
    }
    assert names == {"invoke_agent": system, f"chat {model}": system}
