"""Property: every strategy, with every parameter, turns a legal history into a legal one.

Histories are random IR conversations (text and media prompts, rounds of parallel tool
calls with text and media results, signed reasoning, final answers) in the two shapes
compaction sees: mid tool loop (Level 2: ending on the latest round's results) and before
a session turn (Level 1: ending on the pending user turn). The compacted list must obey
the shared wire rules (no orphaned result, no call without its result, no assistant turn
first or last), render and parse with all four providers' codecs, keep the newest user
question as its last user text, and keep every thinking turn byte-identical or drop it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from doc_processing_toolkit.application.compaction.engine import CompactionContext, compact
from doc_processing_toolkit.application.compaction.summary import SummaryOutcome
from doc_processing_toolkit.application.container import build_history_codec, default_container
from doc_processing_toolkit.domain.compaction.config import resolve_compaction_config
from doc_processing_toolkit.domain.compaction.structure import (
    is_plain_user_turn,
    legality_problems,
)
from doc_processing_toolkit.domain.costs.ledger import price_request
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from doc_processing_toolkit.domain.requests import Usage

PROVIDERS = ("anthropic", "openai", "google", "fireworks")
PNG = b"\x89PNG\r\n\x1a\n"
_words = st.text("abcdefgh ", min_size=1, max_size=40).map(lambda t: t.strip() or "x")


@st.composite
def _round(draw: st.DrawFn, ids: list[int]) -> list[Message]:
    calls: list[ToolCallPart] = []
    for _ in range(draw(st.integers(1, 3))):
        ids[0] += 1
        calls.append(ToolCallPart(f"call_{ids[0]}", "read", {"page": ids[0]}))
    parts: list[Part] = []
    if draw(st.booleans()):
        parts.append(ReasoningPart(draw(_words), "anthropic", {"signature": f"sig{ids[0]}"}))
    parts.extend(calls)
    results = []
    for call in draw(st.permutations(calls)):
        content: list[Any] = [TextPart(draw(_words) * draw(st.integers(1, 30)))]
        if draw(st.booleans()):
            content.append(MediaPart("image/png", data=PNG))
        results.append(ToolResultPart(call.id, call.name, tuple(content), draw(st.booleans())))
    return [
        Message("assistant", tuple(parts), provider="anthropic"),
        Message("tool", tuple(results)),
    ]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Message], bool]:
    """(history, mid_loop): a legal conversation and which shape it has."""
    ids = [0]
    messages: list[Message] = []
    mid_loop = draw(st.booleans())
    turns = draw(st.integers(1, 6))
    for turn in range(turns):
        prompt: list[Part] = [TextPart(f"question {turn}: {draw(_words)}")]
        if draw(st.booleans()):
            prompt.append(MediaPart("application/pdf", data=b"%PDF-1.4 x", filename="c.pdf"))
        messages.append(Message("user", tuple(prompt)))
        for _ in range(draw(st.integers(0 if turn < turns - 1 or not mid_loop else 1, 3))):
            messages.extend(draw(_round(ids)))
        last = turn == turns - 1
        if last and mid_loop:
            break
        final: list[Part] = []
        if draw(st.booleans()):
            final.append(ReasoningPart(draw(_words), "anthropic", {"signature": "s"}))
        final.append(TextPart(draw(_words)))
        messages.append(Message("assistant", tuple(final), provider="anthropic"))
    if not mid_loop:
        messages.append(Message("user", (TextPart(f"newest question: {draw(_words)}"),)))
    return messages, mid_loop


_configs = st.fixed_dictionaries(
    {
        "strategy": st.sampled_from(
            ["summarize", "sliding_window", "tool_result_clearing", "combined"]
        ),
        "keep_recent_messages": st.integers(0, 8),
        "keep_recent_tool_results": st.integers(0, 4),
        "clear_tool_inputs": st.booleans(),
        "sliding_window_include_truncation_notice": st.booleans(),
        "include_archive_path_in_summary": st.booleans(),
        "combined_order": st.permutations(["tool_result_clearing", "sliding_window", "summarize"]),
    }
)


async def _summary(head: Sequence[Message]) -> SummaryOutcome:
    record = price_request(Usage(input_tokens=100, output_tokens=10), None)
    return SummaryOutcome("A recap of the work so far.", record, 1, "end_turn", 0)


def _last_user_text(messages: Sequence[Message]) -> str | None:
    plain = [m for m in messages if is_plain_user_turn(m)]
    return plain[-1].text if plain else None


@settings(max_examples=120, deadline=None)
@given(histories(), _configs, st.booleans(), st.sampled_from([0.1, 0.5, 2.0]))
def test_every_strategy_keeps_the_history_legal(
    shaped: tuple[list[Message], bool], raw: dict[str, Any], protect: bool, pressure: float
) -> None:
    messages, mid_loop = shaped
    assert not legality_problems(messages)
    config = resolve_compaction_config(raw)
    ctx = CompactionContext(
        config=config,
        threshold=int(1000 * pressure),
        summarize=_summary,
        archive=lambda original: "archive://1",
        logger=logging.getLogger("test.compaction"),
    )
    protect = protect or mid_loop is False  # Level 1 always protects the pending turn
    done = asyncio.run(
        compact(
            messages, ctx, tokens_before=1000, compaction_number=1, protect_current_turn=protect
        )
    )
    out = done.messages if done.messages is not None else messages
    assert not legality_problems(out), legality_problems(out)
    if protect or not mid_loop:
        assert _last_user_text(out) == _last_user_text(messages)
    originals = [m for m in messages if m.role == "assistant"]
    for message in out:
        if any(isinstance(p, ReasoningPart) for p in message.parts):
            assert any(message == o for o in originals), "a thinking turn was edited"
    for provider in PROVIDERS:
        codec = build_history_codec(default_container(), provider)
        assert codec is not None
        parsed = codec.parse(codec.render(out))
        assert not legality_problems(parsed), (provider, legality_problems(parsed))
