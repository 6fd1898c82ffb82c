"""parameter_mapping through the real anthropic SDK to the loopback ProviderEmulator."""

from __future__ import annotations

import logging

import pytest

from doc_processing_toolkit.adapters.providers.anthropic import AnthropicModelClient
from doc_processing_toolkit.domain.messages import user_text
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest, ModelResponse
from doc_processing_toolkit.testing.emulator import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply

pytestmark = pytest.mark.anyio

MODEL = "claude-mapping-1"
_ROW = ModelInfo(
    model=MODEL,
    provider="anthropic",
    supports_thinking=True,
    thinking_off_type=None,
    built_in_tools=("web_search", "code_execution"),
)


async def _send(emu: ProviderEmulator, request: ModelRequest) -> ModelResponse:
    client = AnthropicModelClient(
        base_url=emu.anthropic_base_url, row_lookup=lambda m: _ROW if m == MODEL else None
    )
    items = [item async for item in client.stream(request)]
    assert isinstance(items[-1], ModelResponse)
    return items[-1]


async def test_mcp_connector_and_built_ins_reach_the_wire(emu: ProviderEmulator) -> None:
    emu.push(Reply("ok"))
    server = {
        "type": "mcp",
        "server_label": "wiki",
        "server_url": "https://mcp.example/mcp",
        "allowed_tools": ["read"],
    }
    await _send(
        emu,
        ModelRequest(
            model=MODEL,
            messages=(user_text("hi"),),
            remote_mcp_servers=(server,),
            built_in_tools={"code_execution": {"config": {"container_id": "container_7"}}},
        ),
    )
    (recorded,) = emu.requests
    assert recorded.headers["anthropic-beta"] == "mcp-client-2025-11-20"
    assert recorded.body["mcp_servers"] == [
        {"type": "url", "url": "https://mcp.example/mcp", "name": "wiki"}
    ]
    assert recorded.body["tools"] == [
        {"type": "code_execution_20250825", "name": "code_execution"},
        {
            "type": "mcp_toolset",
            "mcp_server_name": "wiki",
            "default_config": {"enabled": False},
            "configs": {"read": {"enabled": True}},
        },
    ]
    assert recorded.body["container"] == "container_7"


async def test_thinking_off_on_a_model_that_cannot_warns(
    emu: ProviderEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="doc_processing_toolkit.adapters.providers.anthropic")
    emu.push(Reply("ok"))
    await _send(
        emu, ModelRequest(model=MODEL, messages=(user_text("hi"),), thinking={"type": "disabled"})
    )
    assert emu.requests[0].body["thinking"] == {"type": "adaptive"}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "cannot turn thinking off" in warnings[0]


async def test_interleaved_thinking_sends_the_beta(emu: ProviderEmulator) -> None:
    emu.push(Reply("ok"))
    await _send(
        emu,
        ModelRequest(
            model=MODEL,
            messages=(user_text("hi"),),
            thinking={"budget_tokens": 2048, "interleaved": True},
        ),
    )
    (recorded,) = emu.requests
    assert recorded.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert recorded.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
