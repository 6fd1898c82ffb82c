"""Issue 11 acceptance: a 40-turn tool-heavy session under each strategy, on each dialect.

Each turn reads a long "page" through a tool (one tool round) and answers. The emulator is
a dynamic model (``ProviderEmulator.responder``): it reports the request's real size as
its input tokens (JSON chars / 4, a tokenizer stand-in), answers summarisation requests
with a recap, and otherwise calls the tool once per turn and then answers. Every request
must stay under the threshold, be legal for its dialect (no orphaned result, no call
without its result, never ending on an assistant turn), and whatever compaction removed
must be in an archive.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from doc_processing_toolkit import Agent, tool
from doc_processing_toolkit.application.container import default_deps, registry
from doc_processing_toolkit.domain.compaction.structure import legality_problems
from doc_processing_toolkit.testing import ProviderEmulator
from doc_processing_toolkit.testing.script import Reply, ScriptStep, reply, tool_call

TURNS = int(os.environ.get("DPT_COMPACTION_E2E_TURNS", "40"))
"""40 turns (the acceptance); a smaller number makes a quick local check."""
THRESHOLD = 20_000
PAGE_CHARS = 8_000


@tool
def read_page(page: int) -> str:
    """Read one page of the contract."""
    return f"PAGE-{page:03d} " + ("clause text " * (PAGE_CHARS // 12))


MODELS = [
    ("claude-sonnet-5-5", "anthropic"),
    ("gpt-4o", "openai"),
    ("gemini-2.5-flash", "google"),
    ("kimi-k2p6", "fireworks"),
]
STRATEGIES = ["summarize", "sliding_window", "tool_result_clearing", "combined"]


@pytest.fixture(scope="module")
def emulator() -> Iterator[ProviderEmulator]:
    with ProviderEmulator() as emu:
        yield emu


def _tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body)) // 4


def _is_summary(body: dict[str, Any]) -> bool:
    return "Summarise this conversation transcript" in json.dumps(body)


class _Model:
    """One tool call per turn, then an answer; a recap for a summarisation request."""

    def __init__(self) -> None:
        self.page = 0
        self.turn_requests = 0

    def __call__(self, body: dict[str, Any]) -> ScriptStep:
        size = _tokens(body)
        if _is_summary(body):
            return Reply("Recap: pages were read and noted.", input_tokens=size, output_tokens=20)
        self.turn_requests += 1
        if self.turn_requests == 1:
            step = tool_call("read_page", {"page": self.page})
            return Reply(tool_calls=step.tool_calls, input_tokens=size, output_tokens=15)
        return reply(f"Noted page {self.page}.", input_tokens=size, output_tokens=8)


def _wire_messages(provider: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    key = {"anthropic": "messages", "openai": "input", "google": "contents"}.get(
        provider, "messages"
    )
    items = body[key]
    if provider == "fireworks":
        items = [m for m in items if m.get("role") != "system"]
    return list(items)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("model", "provider"), MODELS)
def test_forty_turn_tool_heavy_session_stays_under_threshold_and_legal(
    model: str, provider: str, strategy: str, emulator: ProviderEmulator, tmp_path: Path
) -> None:
    emulator.reset([])
    fake = _Model()
    emulator.responder = fake
    archive_dir = tmp_path / "archives"
    try:
        agent = Agent(
            model=model,
            instructions="You review a long contract, one page per turn.",
            tools=[read_page],
            api_key="offline-test-key",
            base_url=getattr(emulator, f"{provider}_base_url"),
            compaction=True,
            compaction_config={
                "strategy": strategy,
                "trigger_threshold": THRESHOLD,
                "keep_recent_messages": 6,
                "keep_recent_tool_results": 1,
                "archive_dir": str(archive_dir),
            },
            log_to_file=False,
        )
        session = agent.session(session_id=f"contract-{provider}-{strategy}")

        async def conversation() -> list[Any]:
            done = []
            for turn in range(TURNS):
                fake.page, fake.turn_requests = turn, 0
                done.append(await session.run(f"Read page {turn} and note it."))
            await agent.close()
            return done

        results = asyncio.run(conversation())
    finally:
        emulator.responder = None

    codec = default_deps().history_codecs(provider)
    assert codec is not None
    requests = [r for r in emulator.requests if r.body.get("model") or r.path]
    assert len(requests) >= 2 * TURNS
    for index, recorded in enumerate(requests):
        size = _tokens(recorded.body)
        assert size < THRESHOLD, f"request {index} is {size} tokens"
        if _is_summary(recorded.body):
            continue
        problems = legality_problems(codec.parse(_wire_messages(provider, recorded.body)))
        assert not problems, f"request {index}: {problems}"

    count = session.metadata["compaction_count"]
    assert count >= (2 if TURNS >= 20 else 0)
    assert count == sum(r.compaction_count for r in results)
    archives = session.metadata["compaction_archives"]
    assert len(archives) == count and all(Path(p).is_file() for p in archives)
    archived = "".join(Path(p).read_text() for p in archives)
    final = json.dumps(requests[-1].body)
    for page in range(TURNS):
        marker = f"PAGE-{page:03d}"
        assert marker in final or marker in archived, f"{marker} was removed and not archived"

    for result in results:
        records = result.request_cost_records
        assert result.cost == pytest.approx(sum(r["cost"] for r in records), abs=1e-9)
        summaries = [r for r in records if r["purpose"] == "compaction_summary"]
        if strategy in ("summarize", "combined") and result.compaction_count:
            assert result.compaction_cost == pytest.approx(sum(r["cost"] for r in summaries))
    if strategy == "summarize":
        assert any(r.compaction_input_tokens > 0 for r in results)
    row = registry().row(model)
    assert row is not None
