"""The pure strategies and the documented invariants of compaction, one test each."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from doc_processing_toolkit.application.compaction.engine import CompactionContext, compact
from doc_processing_toolkit.application.compaction.summary import SummaryOutcome
from doc_processing_toolkit.domain.compaction.config import (
    CompactionConfig,
    resolve_compaction_config,
    resolve_threshold,
)
from doc_processing_toolkit.domain.compaction.strategies import (
    CLEARED_RESULT_PREFIX,
    plan_summary,
    sliding_window,
    tool_result_clearing,
)
from doc_processing_toolkit.domain.compaction.structure import (
    COMPACTION_CONTINUATION_TEXT,
    SUMMARY_MARKER,
    TRUNCATION_NOTICE_TEXT,
    legality_problems,
)
from doc_processing_toolkit.domain.costs.ledger import price_request
from doc_processing_toolkit.domain.errors import ConfigurationError, DocProcessingToolkitError
from doc_processing_toolkit.domain.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    assistant_text,
    user_text,
)
from doc_processing_toolkit.domain.requests import Usage


def _round(n: int, thinking: bool = False) -> list[Message]:
    parts: list[object] = []
    if thinking:
        parts.append(ReasoningPart(f"think {n}", "anthropic", {"signature": f"sig-{n}"}))
    parts.append(ToolCallPart(f"call_{n}", "read", {"page": n}))
    call = Message("assistant", tuple(parts), provider="anthropic")  # type: ignore[arg-type]
    result = Message("tool", (ToolResultPart(f"call_{n}", "read", (TextPart(f"page {n} " * 50),)),))
    return [call, result]


def _history(turns: int = 3, rounds: int = 2, *, thinking: bool = False) -> list[Message]:
    """``turns`` finished turns, then a current turn mid tool loop (ends on results)."""
    out: list[Message] = []
    n = 0
    for t in range(turns):
        out.append(user_text(f"question {t}"))
        for _ in range(rounds):
            n += 1
            out.extend(_round(n, thinking))
        out.append(assistant_text(f"answer {t}"))
    out.append(user_text("current question"))
    n += 1
    out.extend(_round(n, thinking))
    return out


class _Summaries:
    def __init__(self, text: str = "recap text") -> None:
        self.text = text
        self.heads: list[list[Message]] = []

    async def __call__(self, head: Sequence[Message]) -> SummaryOutcome:
        self.heads.append(list(head))
        record = price_request(Usage(input_tokens=500, output_tokens=50), None)
        return SummaryOutcome(self.text, record, 1, "end_turn", 0)


def _compact(
    messages: list[Message],
    strategy: str,
    *,
    protect: bool = True,
    summaries: _Summaries | None = None,
    archive: str | None = "archive-1.json",
    **raw: object,
) -> tuple[list[Message] | None, str | None, _Summaries]:
    summaries = summaries or _Summaries()
    ctx = CompactionContext(
        config=resolve_compaction_config({"strategy": strategy, **raw}),
        threshold=1000,
        summarize=summaries,
        archive=(lambda _: archive) if archive is not None else None,
        logger=logging.getLogger("test.compaction"),
    )
    done = asyncio.run(
        compact(
            messages, ctx, tokens_before=5000, compaction_number=1, protect_current_turn=protect
        )
    )
    return done.messages, done.result.strategy, summaries


# ------------------------------------------------------------------ configuration
@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"strategy": "shred"}, "strategy"),
        ({"trigger_threshold": 0}, "trigger_threshold"),
        ({"trigger_threshold": -0.5}, "trigger_threshold"),
        ({"summary_max_tokens": 0}, "summary_max_tokens"),
        ({"keep_recent_tool_results": -1}, "keep_recent_tool_results"),
        ({"combined_order": ["summarize", "shred"]}, "combined_order"),
        ({"archive_sink": "not callable"}, "archive_sink"),
        ({"max_compactions_per_session": 0}, "max_compactions_per_session"),
    ],
)
def test_bad_configuration_names_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigurationError, match=key) as caught:
        resolve_compaction_config(raw)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, DocProcessingToolkitError)


def test_defaults_and_unknown_keys() -> None:
    config = resolve_compaction_config({"not_a_key": 1})
    assert config == CompactionConfig()
    assert config.combined_order == ["tool_result_clearing", "sliding_window", "summarize"]
    assert config.summary_max_tokens == 4096 and config.trigger_threshold == 0.8


def test_resolve_threshold() -> None:
    assert resolve_threshold(0.8, 200_000) == 160_000
    assert resolve_threshold(1.0, 1000) == 1000
    assert resolve_threshold(50_000, 200_000) == 50_000
    assert resolve_threshold(1.5, 1000) == 1


# ------------------------------------------------------------------ pure strategies
def test_sliding_window_opens_on_a_user_turn_with_the_notice() -> None:
    history = _history()
    kept = sliding_window(history, 3, protect_current_turn=False)
    assert kept is not None
    assert kept[0].text == TRUNCATION_NOTICE_TEXT
    assert kept[1].role == "user" and not legality_problems(kept)
    assert kept[-2:] == history[-2:]
    without = sliding_window(
        history, 3, include_truncation_notice=False, protect_current_turn=False
    )
    assert (
        without is not None
        and without[0].role == "user"
        and without[0].text != TRUNCATION_NOTICE_TEXT
    )


def test_sliding_window_protecting_the_turn_opens_on_its_question() -> None:
    history = _history(turns=1, rounds=1)
    history[-1:-1] = []
    current = history.index(next(m for m in history if m.text == "current question"))
    for _ in range(4):  # a long current turn: more rounds after its question
        history.extend(_round(100 + len(history)))
    kept = sliding_window(history, 2)
    assert kept is not None and kept[1] == history[current]
    assert kept[2:] == history[current + 1 :]


def test_tool_result_clearing_keeps_the_newest_and_never_edits_thinking() -> None:
    history = _history(thinking=True)
    cleared = tool_result_clearing(history, 2, clear_tool_inputs=True)
    assert cleared is not None and not legality_problems(cleared)
    results = [p for m in cleared for p in m.parts if isinstance(p, ToolResultPart)]
    assert [r.text.startswith(CLEARED_RESULT_PREFIX) for r in results] == [True] * 5 + [False] * 2
    thinking = [m for m in history if m.reasoning]
    assert all(m in history for m in cleared if m.reasoning)  # whole, unedited
    assert len([m for m in cleared if m.reasoning]) == len(thinking)
    assert tool_result_clearing(cleared, 2) is None  # nothing left to clear


def test_clear_tool_inputs_spares_the_latest_round() -> None:
    history = _history(turns=1, rounds=3)
    cleared = tool_result_clearing(history, 0, clear_tool_inputs=True)
    assert cleared is not None
    assert cleared[-2] == history[-2]  # the latest assistant message: verbatim
    assert cleared[1].tool_calls[0].arguments == {}
    assert history[1].tool_calls[0].arguments == {"page": 1}


# ------------------------------------------------------------------ invariants
def test_the_current_turn_is_protected() -> None:
    history = _history()
    turn = max(i for i, m in enumerate(history) if m.text == "current question")
    out, strategy, summaries = _compact(history, "summarize")
    assert strategy == "summarize" and out is not None
    assert out[0].text.startswith(SUMMARY_MARKER)
    assert out[1:] == history[turn:]  # question, draft and open round verbatim
    assert summaries.heads == [history[:turn]]
    assert "archive-1.json" in out[0].text


def test_protect_off_folds_the_turn_and_restores_the_latest_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history = _history()
    out, _, summaries = _compact(history, "summarize", protect=False)
    assert out is not None
    assert out[1:] == history[-2:]  # the latest tool round, restored verbatim
    assert summaries.heads == [history[:-2]]  # the current question was folded
    assert not legality_problems(out)


def test_the_pending_plain_user_turn_is_re_appended_and_only_it() -> None:
    pending = [*_history()[:-2], assistant_text("done"), user_text("next question")]
    out, _, _ = _compact(pending, "summarize", protect=False)
    assert out is not None and out[-1] is pending[-1] and len(out) == 2
    # A trailing tool-result message is never re-appended as a user turn.
    history = _history()
    folded, _, _ = _compact(history, "summarize", protect=False)
    assert folded is not None
    assert [m for m in folded if m.role == "user" and not m.text.startswith(SUMMARY_MARKER)] == []


def test_the_synthetic_continuation_when_the_list_would_end_on_an_assistant_turn() -> None:
    history = [*_history()[:-2], assistant_text("final answer")]
    out, _, _ = _compact(history, "summarize", protect=False)
    assert out is not None and out[-1].text == COMPACTION_CONTINUATION_TEXT
    assert out[-1].role == "user" and not legality_problems(out)
    window = sliding_window(history, 2, protect_current_turn=False)
    assert window is not None and window[-1].text == COMPACTION_CONTINUATION_TEXT


def test_falls_back_to_clearing_when_nothing_precedes_the_turn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    history = [user_text("only question")]
    for n in range(6):
        history.extend(_round(n))
    with caplog.at_level(logging.INFO, logger="test.compaction"):
        out, strategy, summaries = _compact(history, "summarize")
    assert strategy == "tool_result_clearing" and out is not None and not summaries.heads
    assert "nothing before the current turn" in caplog.text
    assert plan_summary(history) is None
    recap_only = [user_text(f"{SUMMARY_MARKER}\n\nold"), *history]
    assert plan_summary(recap_only) is None  # an earlier compaction's output is not re-folded


def test_thinking_turns_are_kept_whole_or_dropped_whole() -> None:
    history = _history(thinking=True)
    for strategy in ("summarize", "sliding_window", "tool_result_clearing", "combined"):
        out, _, _ = _compact(history, strategy, keep_recent_messages=4, clear_tool_inputs=True)
        assert out is not None
        for message in out:
            if message.reasoning:
                assert message in history, strategy


def test_combined_runs_its_steps_in_order_and_stops_when_small_enough() -> None:
    history = _history()
    out, strategy, _summaries = _compact(
        history, "combined", combined_order=["sliding_window", "summarize"], keep_recent_messages=3
    )
    assert strategy == "combined" and out is not None and not legality_problems(out)
    assert out[0].text == TRUNCATION_NOTICE_TEXT or out[0].text.startswith(SUMMARY_MARKER)


def test_include_archive_path_in_summary_off() -> None:
    out, _, _ = _compact(_history(), "summarize", include_archive_path_in_summary=False)
    assert out is not None and "archive-1.json" not in out[0].text
