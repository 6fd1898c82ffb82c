"""The provider batch clients through the real SDKs against the loopback ProviderEmulator:
Anthropic Message Batches, the OpenAI Batch API (/v1/responses) and Gemini batch mode."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from waiting import until

from doc_processing_toolkit.adapters.providers._batch import BatchPolling
from doc_processing_toolkit.adapters.providers.anthropic.batch import AnthropicBatchClient
from doc_processing_toolkit.adapters.providers.google.batch import GoogleBatchClient
from doc_processing_toolkit.adapters.providers.openai.batch import OpenAIBatchClient
from doc_processing_toolkit.application.container import build_batch_client, default_container
from doc_processing_toolkit.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
)
from doc_processing_toolkit.domain.messages import (
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    user_text,
)
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse
from doc_processing_toolkit.domain.tools.specs import ToolSpec
from doc_processing_toolkit.ports.batch import BatchClient
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, Reply, ToolCall

pytestmark = pytest.mark.anyio

FAST = BatchPolling(initial_interval=0.005, max_interval=0.02, timeout=60.0, cancel_grace=2.0)
"""Fast polls; the timeout only ends a batch that really never finishes (not a busy machine)."""

_CASES: dict[str, tuple[type[Any], str, Callable[[ProviderEmulator], str], str]] = {
    "anthropic": (
        AnthropicBatchClient,
        "claude-sonnet-5-5",
        lambda e: e.anthropic_base_url,
        "ANTHROPIC_API_KEY",
    ),
    "openai": (OpenAIBatchClient, "gpt-4o", lambda e: e.openai_base_url, "OPENAI_API_KEY"),
    "google": (
        GoogleBatchClient,
        "gemini-2.5-flash",
        lambda e: e.google_base_url,
        "GOOGLE_GEMINI_API_KEY",
    ),
}
PROVIDERS = list(_CASES)

CALC = ToolSpec(
    name="calculate",
    description="Add two numbers.",
    parameters={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)


def _client(provider: str, emu: ProviderEmulator, polling: BatchPolling = FAST) -> Any:
    cls, _model, base_url, _env = _CASES[provider]
    return cls(base_url=base_url(emu), polling=polling)


def _request(provider: str, text: str, *, tools: bool = False) -> ModelRequest:
    return ModelRequest(
        model=_CASES[provider][1], messages=(user_text(text),), tools=(CALC,) if tools else ()
    )


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_text_and_tool_rounds_through_one_batch_each(provider: str) -> None:
    script = [
        Reply("The answer is ready.", input_tokens=120, output_tokens=8),
        Reply(tool_calls=(ToolCall("calculate", {"a": 2, "b": 3}),), input_tokens=90),
        Reply("2 + 3 = 5", input_tokens=140, output_tokens=6),
    ]
    async with ProviderEmulator(script) as emu:
        emu.batches.script(polls=3)
        client = _client(provider, emu)
        try:
            first = await client.run_batch(
                {
                    "plain": _request(provider, "hello"),
                    "tool": _request(provider, "2+3?", tools=True),
                }
            )
            plain, tool = first["plain"], first["tool"]
            assert isinstance(plain, ModelResponse) and isinstance(tool, ModelResponse)
            assert plain.message.text == "The answer is ready."
            assert plain.usage.input_tokens == 120 and plain.usage.output_tokens == 8
            assert plain.stop_reason == "end_turn"
            for response in (plain, tool):
                assert response.served_tier == "batch"
                assert response.served_tier_source == "batch_api"
                assert response.provider == provider
            (call,) = tool.message.tool_calls
            assert (call.name, call.arguments) == ("calculate", {"a": 2, "b": 3})
            assert tool.stop_reason == "tool_use"
            batch = emu.batches.batches[0]
            assert batch.polls >= 3 and batch.ended
            assert [custom_id for custom_id, _ in batch.requests] == (
                ["plain", "tool"] if provider != "google" else ["0", "1"]
            )

            # The second round carries the tool result; the emulator refuses (as the real
            # API does) a history whose tool call and result do not pair up.
            history = (
                user_text("2+3?"),
                tool.message,
                Message(
                    role="tool",
                    parts=(ToolResultPart(call.id, call.name, (TextPart("5"),)),),
                ),
            )
            second = await client.run_batch(
                {"tool": _request(provider, "2+3?", tools=True).with_messages(history)}
            )
            answer = second["tool"]
            assert isinstance(answer, ModelResponse), answer
            assert answer.message.text == "2 + 3 = 5"
        finally:
            await client.aclose()
        assert len(emu.batches.batches) == 2
        assert emu.batches.request_count == 3
        assert emu.remaining_steps == 0


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_per_request_errors_come_back_in_the_mapping(provider: str) -> None:
    script: list[Reply | Fault] = [
        Reply("fine"),
        Fault("status", status=429, message="slow down"),
        Fault("status", status=500, message="boom"),
    ]
    async with ProviderEmulator(script) as emu:
        client = _client(provider, emu)
        try:
            out = await client.run_batch(
                {name: _request(provider, name) for name in ("ok", "limited", "broken")}
            )
        finally:
            await client.aclose()
    assert isinstance(out["ok"], ModelResponse)
    limited, broken = out["limited"], out["broken"]
    assert isinstance(limited, RateLimitError) and limited.retryable
    assert "slow down" in limited.message
    assert isinstance(broken, ServerError) and broken.status_code == 500


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_batch_that_runs_out_of_time_is_cancelled(provider: str) -> None:
    polling = BatchPolling(initial_interval=0.005, max_interval=0.01, timeout=0.05, cancel_grace=2)
    async with ProviderEmulator([Reply("never sent"), Reply("never sent")]) as emu:
        emu.batches.script(polls=10_000)
        client = _client(provider, emu, polling)
        try:
            out = await client.run_batch(
                {"a": _request(provider, "a"), "b": _request(provider, "b")}
            )
        finally:
            await client.aclose()
        (batch,) = emu.batches.batches
        assert batch.cancelled and batch.ended
        assert emu.remaining_steps == 2  # the cancelled requests consumed no script step
    for outcome in out.values():
        assert isinstance(outcome, ProviderTimeoutError) and outcome.retryable
        assert "was not run" in outcome.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_cancelled_task_cancels_the_provider_batch(provider: str) -> None:
    async with ProviderEmulator([Reply("never sent")]) as emu:
        emu.batches.script(polls=10_000)
        client = _client(provider, emu)
        try:
            task = asyncio.create_task(client.run_batch({"a": _request(provider, "a")}))
            await until(
                lambda: emu.batches.batches and emu.batches.batches[0].polls >= 2,
                "the batch to be created and polled twice",
            )
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            await client.aclose()
        (batch,) = emu.batches.batches
        assert batch.cancelled
        assert emu.remaining_steps == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_missing_key_is_a_configuration_error_before_any_network(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _CASES[provider][3]
    for name in (env, "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    async with ProviderEmulator([Reply("x")]) as emu:
        client = _client(provider, emu)
        with pytest.raises(ConfigurationError, match=env):
            await client.run_batch({"a": _request(provider, "a")})
        await client.aclose()
        assert emu.request_count == 0


async def test_build_batch_client_by_provider() -> None:
    for provider, (cls, *_rest) in _CASES.items():
        client = build_batch_client(
            default_container(), provider, base_url="http://127.0.0.1:9", polling=FAST
        )
        assert isinstance(client, cls) and isinstance(client, BatchClient)
        assert client.provider == provider and getattr(client, "polling", None) is FAST
    assert (
        build_batch_client(default_container(), "fireworks") is None
    )  # no batch adapter: jobs run interactively
    assert build_batch_client(default_container(), "someone-elses-plugin") is None


def test_polling_settings_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="multiplier"):
        BatchPolling(multiplier=0.5)
    with pytest.raises(ConfigurationError, match="timeout"):
        BatchPolling(timeout=0)
    waits = BatchPolling(initial_interval=1, max_interval=5, multiplier=2).intervals()
    assert [next(waits) for _ in range(5)] == [1, 2, 4, 5, 5]


async def test_ids_are_checked_before_any_network() -> None:
    async with ProviderEmulator() as emu:
        client = _client("anthropic", emu)
        with pytest.raises(ConfigurationError, match="at least one"):
            await client.run_batch({})
        with pytest.raises(ConfigurationError, match="custom id"):
            await client.run_batch({"x" * 65: _request("anthropic", "a")})
        assert emu.request_count == 0


async def test_a_request_the_api_refuses_is_an_error_outcome_without_a_step() -> None:
    # A tool result answering no tool call: the Messages API refuses it with a 400.
    orphan = Message(
        role="tool", parts=(ToolResultPart("toolu_nope", "calculate", (TextPart("5"),)),)
    )
    bad = _request("anthropic", "x").with_messages((user_text("x"), orphan))
    async with ProviderEmulator([Reply("ok")]) as emu:
        client = _client("anthropic", emu)
        try:
            out = await client.run_batch({"bad": bad, "good": _request("anthropic", "y")})
        finally:
            await client.aclose()
        assert emu.remaining_steps == 0
    assert isinstance(out["bad"], ProviderError) and out["bad"].status_code == 400
    assert isinstance(out["good"], ModelResponse) and out["good"].message.text == "ok"


async def test_tool_calls_keep_their_ids_across_the_batch() -> None:
    async with ProviderEmulator(
        [Reply(tool_calls=(ToolCall("calculate", {"a": 1, "b": 1}, id="toolu_fixed"),))]
    ) as emu:
        client = _client("anthropic", emu)
        try:
            out = await client.run_batch({"a": _request("anthropic", "1+1", tools=True)})
        finally:
            await client.aclose()
        params = emu.batches.requests[0][1]
    response = out["a"]
    assert isinstance(response, ModelResponse)
    (part,) = [p for p in response.message.parts if isinstance(p, ToolCallPart)]
    assert part.id == "toolu_fixed"
    assert params["tools"][0]["name"] == "calculate" and "stream" not in params


def test_polling_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_BATCH_POLL_INITIAL_S", "0.5")
    monkeypatch.setenv("DPT_BATCH_TIMEOUT_S", "120")
    client = build_batch_client(default_container(), "openai")
    polling = getattr(client, "polling", None)
    assert isinstance(polling, BatchPolling)
    assert (polling.initial_interval, polling.timeout, polling.max_interval) == (0.5, 120, 300)
    monkeypatch.setenv("DPT_BATCH_POLL_MAX_S", "soon")
    with pytest.raises(ConfigurationError, match="DPT_BATCH_POLL_MAX_S"):
        build_batch_client(default_container(), "openai")
