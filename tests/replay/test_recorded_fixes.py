"""Issue 31 items 1 and 2, through the Agent, on real recorded Anthropic traffic.

Item 1: a text block that carries ``citations`` is text: its sentence reaches
``result.output`` (also after a ``pause_turn`` continuation), and the history keeps the
block, citations included, exactly as the API streamed it.
Item 2: a server-side compaction step (``usage.iterations``) is billed beside the top-level
usage, once, with its own cache reads.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from recordings import ROOT, ReplayServer, load, sse_events

from doc_processing_toolkit import Agent
from doc_processing_toolkit.adapters.registry.json_file import default_registry
from doc_processing_toolkit.domain.costs.pricing import price_request
from doc_processing_toolkit.domain.requests import Usage

pytestmark = pytest.mark.anyio


def _cited_blocks(body: bytes) -> list[dict[str, Any]]:
    """The text blocks of one recorded stream that carry citations, as streamed."""
    blocks: dict[int, dict[str, Any]] = {}
    for _name, data in sse_events(body):
        event = json.loads(data)
        if event.get("type") == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif event.get("type") == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta["type"] == "citations_delta":
                block.setdefault("citations", []).append(delta["citation"])
    return [b for b in blocks.values() if b.get("type") == "text" and b.get("citations")]


async def _run(name: str, *, iterations: int = 1) -> tuple[Any, Any]:
    recording = load(ROOT / "anthropic" / name)
    with ReplayServer(recording.exchanges) as server:
        agent = Agent(
            "claude-opus-4-8",
            api_key="test-key-not-real",
            base_url=server.url,
            max_iterations=iterations,
            log_to_file=False,
        )
        result = await agent.run("Replay.")
    return recording, result


@pytest.mark.parametrize(
    "name",
    [
        "anthropic-web-search-tool.1.chunks.txt",  # vercel/ai: web search with citations
        "test_pause_turn_web_search_streaming_vcr.yaml",  # pydantic-ai: after pause_turn
    ],
)
async def test_cited_text_is_in_the_output_and_the_citations_stay_in_the_history(
    name: str,
) -> None:
    recording, result = await _run(name)
    last = recording.exchanges[-1].body
    cited = _cited_blocks(last)
    assert cited  # the recording's answer does cite
    for block in cited:
        assert block["text"] in result.output
    # the history holds every cited block verbatim (what is rendered back to Anthropic)
    stored = [b for m in result.messages if m["role"] == "assistant" for b in m["content"]]
    for block in cited:
        assert block in stored


async def test_a_server_side_compaction_step_is_billed_once_with_its_cache_reads() -> None:
    # top level: 181 input / 8 output; iterations: compaction 100 in + 55,096 cache reads /
    # 83 out, message 181 / 8
    _, result = await _run("test_anthropic_compaction_usage_with_cache_streaming.yaml")
    assert (result.input_tokens, result.output_tokens) == (55_377, 91)
    assert result.cached_input_tokens == 55_096
    (record,) = result.request_cost_records
    billed = Usage(input_tokens=55_377, output_tokens=91, cached_input_tokens=55_096)
    expected = price_request(billed, default_registry().row("claude-opus-4-8")).cost
    assert record["cost"] == pytest.approx(expected)
    assert result.cost == pytest.approx(expected)
