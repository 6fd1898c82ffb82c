"""Reliability through the real SDKs against the loopback emulator: malformed lines,
stalls with and without keep-alives, streams with no terminal event, secrets echoed in
error bodies, MCP servers that cannot be reached, and what a failed run carries."""

from __future__ import annotations

import logging
import sys
import time
import traceback
from typing import Any

import pytest

from doc_processing_toolkit import (
    Agent,
    AuthenticationError,
    DocProcessingToolkitError,
    MCPConnectionError,
    ServerError,
    StreamIdleTimeoutError,
    StreamInterruptedError,
)
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Fault, reply

MODELS = {
    "anthropic": "claude-sonnet-5-5",
    "openai": "gpt-4o",
    "google": "gemini-2.5-flash",
    "fireworks": "kimi-k2p6",
}
PROVIDERS = list(MODELS)
pytestmark = pytest.mark.anyio
REPORTS_USAGE_AT_START = {"anthropic", "google", "fireworks"}
"""Dialects whose stream reports input usage before the first text (OpenAI: only at end)."""


def agent_for(provider: str, emu: ProviderEmulator, **kwargs: Any) -> Agent:
    return Agent(
        MODELS[provider],
        api_key=kwargs.pop("api_key", "offline-test-key"),
        base_url=getattr(emu, f"{provider}_base_url"),
        **kwargs,
    )


def warmed(agent: Agent, emu: ProviderEmulator) -> Agent:
    """``agent`` after one plain run: the SDK's import and first parse (which build its
    models, seconds on a busy machine) are done before a test times or idles a stream."""
    emu.reset([reply("warm")])
    assert agent.run_sync("warm").output == "warm"
    return agent


def chain_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPT_RETRY_AFTER_CAP_S", "0")


# -- malformed lines ---------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_malformed_line_before_any_text_is_retried_and_costed(
    provider: str, emu: ProviderEmulator
) -> None:
    emu.reset([Fault("malformed", input_tokens=400), reply("fine", input_tokens=10)])
    result = agent_for(provider, emu).run_sync("hi")

    assert result.output == "fine"
    assert emu.request_count == 2
    assert result.retry_count == 1
    if provider in REPORTS_USAGE_AT_START:
        assert result.retry_input_tokens == 400
        assert result.retry_cost > 0
    else:
        assert result.retry_cost == 0.0


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_malformed_line_after_text_is_a_typed_error_not_retried(
    provider: str, emu: ProviderEmulator
) -> None:
    emu.reset([Fault("malformed", partial_text="Hello there", input_tokens=50)])
    agent = agent_for(provider, emu)
    events = [event async for event in agent.stream("hi")]

    errors = [e for e in events if e.event_type == "error"]
    assert len(errors) == 1
    assert emu.request_count == 1
    text = "".join(e.content for e in events if e.event_type == "text_delta" and e.content)
    assert text == "Hello there"  # no text duplicated
    with pytest.raises(StreamInterruptedError) as info:
        emu.reset([Fault("malformed", partial_text="Hello there", input_tokens=50)])
        await agent.run("hi")
    assert "could not be parsed" in str(info.value)
    assert info.value.partial_result is not None
    await agent.close()


# -- streams that end without their terminal event ---------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_with_no_terminal_event_is_retried(provider: str, emu: ProviderEmulator) -> None:
    emu.reset([Fault("truncate"), reply("whole")])
    result = agent_for(provider, emu).run_sync("hi")
    assert result.output == "whole"
    assert emu.request_count == 2


# -- stalls ------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("keepalive", [None, 0.2], ids=["silent", "keepalives"])
def test_an_idle_stream_fails_in_time_and_is_retried(
    provider: str, keepalive: float | None, emu: ProviderEmulator
) -> None:
    agent = warmed(agent_for(provider, emu, stream_idle_timeout=1.0), emu)
    emu.reset(
        [Fault("stall", stall_seconds=20, keepalive_interval=keepalive), reply("after the stall")]
    )
    started = time.monotonic()
    result = agent.run_sync("hi")
    elapsed = time.monotonic() - started

    assert result.output == "after the stall"
    assert emu.request_count == 2
    assert elapsed < 15  # bounded well below the 20 s stall (the idle bound is 1 s)


def test_acceptance_a_20_s_stall_with_keepalives_fails_at_about_3_s(
    emu: ProviderEmulator,
) -> None:
    agent = warmed(agent_for("anthropic", emu, stream_idle_timeout=3.0), emu)
    emu.reset([Fault("stall", stall_seconds=20, keepalive_interval=1.0), reply("second attempt")])
    started = time.monotonic()
    result = agent.run_sync("hi")
    elapsed = time.monotonic() - started
    assert result.output == "second attempt"
    assert result.retry_count == 1
    assert 3.0 <= elapsed < 3.0 * 1.1 + 3.0  # the idle bound, plus backoff and the retry


async def test_an_idle_stream_after_text_is_not_retried(emu: ProviderEmulator) -> None:
    agent = agent_for("anthropic", emu, stream_idle_timeout=1.0)
    emu.reset([reply("warm")])  # the SDK's first parse is not this stream's idle time
    assert (await agent.run("warm")).output == "warm"
    emu.reset([Fault("stall", partial_text="partial", stall_seconds=20, keepalive_interval=0.2)])
    with pytest.raises(StreamIdleTimeoutError) as info:
        await agent.run("hi")
    assert emu.request_count == 1
    assert "stream_idle_timeout" in str(info.value)
    await agent.close()


# -- secrets in the exception chain ------------------------------------------------------

CANARY = "sk-canary-ECHOED-0123456789abcdef"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [401, 500])
async def test_a_key_echoed_in_an_error_body_is_in_no_traceback(
    provider: str, status: int, emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPT_MAX_RETRIES", "0")
    emu.reset([Fault("status", status=status, message=f"bad key {CANARY} was sent")])
    agent = agent_for(provider, emu, api_key=CANARY)
    expected = AuthenticationError if status == 401 else ServerError
    with pytest.raises(expected) as info:
        await agent.run("hi")
    text = chain_text(info.value)
    assert CANARY not in text
    assert "RedactedCause" in text or info.value.__cause__ is None
    assert info.value.partial_result is not None
    await agent.close()


def test_sdk_debug_logs_never_show_a_provider_run_mcp_token(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "mcp-canary-token-9f8e7d6c5b4a"
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    root = logging.getLogger()
    handler = Collect(level=logging.DEBUG)
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        emu.reset([reply("done")])
        agent = agent_for(
            "anthropic",
            emu,
            tools=[
                {
                    "type": "mcp",
                    "url": "https://mcp.example.com/sse",
                    "name": "remote",
                    "authorization_token": token,
                }
            ],
        )
        agent.run_sync("hi")
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    sent = str(emu.requests[0].body)
    assert token in sent  # it did travel to the provider
    assert any("Request options" in line for line in records)
    assert not any(token in line for line in records)


# -- MCP connection failures -------------------------------------------------------------


async def test_an_mcp_server_that_exits_at_start_up_is_an_error_of_our_tree(
    emu: ProviderEmulator,
) -> None:
    agent = agent_for(
        "anthropic",
        emu,
        tools=[
            {
                "type": "mcp_command",
                "command": sys.executable,
                "args": ["-c", "import sys; sys.exit(3)"],
                "name": "dies",
            }
        ],
    )
    with pytest.raises(MCPConnectionError) as info:
        await agent.run("hi")
    assert isinstance(info.value, DocProcessingToolkitError)
    assert info.value.server == "dies"
    assert emu.request_count == 0
    await agent.close()


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("nowhere", "http://127.0.0.1:9/mcp"),  # nothing listens: the connection is refused
        ("missing", "{emulator}/no-such-mcp"),  # a server that answers 404
    ],
    ids=["unreachable", "http-404"],
)
async def test_a_remote_mcp_server_that_cannot_be_reached_is_an_error_of_our_tree(
    emu: ProviderEmulator, name: str, where: str
) -> None:
    secret = f"url-secret-{name}-123456789"
    url = where.format(emulator=emu.url)
    agent = agent_for(
        "anthropic",
        emu,
        tools=[
            {
                "type": "mcp_remote_client",
                "url": f"{url}?token={secret}",
                "name": name,
                "timeout": 5,
            }
        ],
    )
    with pytest.raises(MCPConnectionError) as info:
        await agent.run("hi")
    assert name in str(info.value)
    assert secret not in chain_text(info.value)
    assert emu.request_count == 0  # no model request went out with the tool missing
    await agent.close()
