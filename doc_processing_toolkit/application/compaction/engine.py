"""One compaction: choose the strategy's steps, archive the original, summarise, splice.

Shared by Level 1 (a session's history before its first request) and Level 2 (between
tool rounds inside a run). The strategies are the pure functions of
``domain/compaction``; what needs the world — the summarisation request and the archive —
comes in through `CompactionContext`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.compaction.summary import SummaryOutcome
from doc_processing_toolkit.domain.compaction.config import CompactionConfig
from doc_processing_toolkit.domain.compaction.result import CompactionResult
from doc_processing_toolkit.domain.compaction.strategies import (
    plan_summary,
    sliding_window,
    splice_summary,
    tool_result_clearing,
)
from doc_processing_toolkit.domain.compaction.structure import estimate_chars, legality_problems
from doc_processing_toolkit.domain.errors import ProviderError
from doc_processing_toolkit.domain.messages import Message

__all__ = ["Compacted", "CompactionContext", "compact"]

COMBINED_TARGET = 0.5
"""``combined`` stops once the estimate is under this share of the threshold."""


@dataclass
class CompactionContext:
    """What one compaction needs from its caller."""

    config: CompactionConfig
    threshold: int
    """The absolute token threshold (``combined`` stops well below it)."""
    summarize: Callable[[Sequence[Message]], Awaitable[SummaryOutcome]]
    """Makes the summarisation request for the messages to fold."""
    archive: Callable[[list[Message]], str | None] | None
    """Archives the original list and returns its locator (None: archiving is off)."""
    logger: logging.Logger | Any
    system: str = ""


@dataclass
class Compacted:
    """The outcome of `compact`."""

    messages: list[Message] | None
    """The compacted list (None: nothing was changed)."""
    result: CompactionResult
    summaries: list[SummaryOutcome] = field(default_factory=list)


class _Run:
    def __init__(self, ctx: CompactionContext, original: list[Message], protect: bool) -> None:
        self.ctx = ctx
        self.original = original
        self.protect = protect
        self.archived = False
        self.archive_path: str | None = None
        self.summaries: list[SummaryOutcome] = []
        self.summary_failed = False

    def ensure_archived(self) -> str | None:
        if not self.archived and self.ctx.archive is not None:
            self.archived = True
            self.archive_path = self.ctx.archive(self.original)
        return self.archive_path

    def clearing(self, messages: list[Message]) -> list[Message] | None:
        c = self.ctx.config
        return tool_result_clearing(
            messages, c.keep_recent_tool_results, clear_tool_inputs=c.clear_tool_inputs
        )

    def window(self, messages: list[Message]) -> list[Message] | None:
        c = self.ctx.config
        return sliding_window(
            messages,
            c.keep_recent_messages,
            include_truncation_notice=c.sliding_window_include_truncation_notice,
            protect_current_turn=self.protect,
        )

    async def summary(self, messages: list[Message]) -> list[Message] | None:
        plan = plan_summary(messages, protect_current_turn=self.protect)
        if plan is None:
            return None
        ref = self.ensure_archived()
        try:
            outcome = await self.ctx.summarize(plan.head)
        except ProviderError as exc:
            self.ctx.logger.warning(
                "compaction: the summarisation request failed (%s); summarize skipped",
                type(exc).__name__,
            )
            self.summary_failed = True
            return None
        self.summaries.append(outcome)
        if not outcome.text.strip():
            self.ctx.logger.warning("compaction: the summary came back empty; summarize skipped")
            self.summary_failed = True
            return None
        shown = ref if self.ctx.config.include_archive_path_in_summary else None
        return splice_summary(plan, outcome.text, archive_ref=shown)

    async def step(self, name: str, messages: list[Message]) -> list[Message] | None:
        if name == "tool_result_clearing":
            return self.clearing(messages)
        if name == "sliding_window":
            return self.window(messages)
        return await self.summary(messages)


async def compact(
    messages: list[Message],
    ctx: CompactionContext,
    *,
    tokens_before: int,
    compaction_number: int,
    protect_current_turn: bool,
) -> Compacted:
    """Compact ``messages`` with ``ctx.config.strategy`` (the list itself is not changed).

    summarize and sliding_window fall back to tool_result_clearing when nothing before
    the current turn is left to compact (logged at INFO; ``strategy`` then says so).
    """
    run = _Run(ctx, list(messages), protect_current_turn)
    strategy = ctx.config.strategy
    new: list[Message] | None
    if strategy == "combined":
        new = None
        current = list(messages)
        before_chars = max(1, estimate_chars(messages, ctx.system))
        for name in ctx.config.combined_order:
            stepped = await run.step(name, current)
            if stepped is None:
                continue
            new = current = stepped
            estimate = tokens_before * estimate_chars(current, ctx.system) / before_chars
            if estimate < ctx.threshold * COMBINED_TARGET:
                break
    else:
        new = await run.step(strategy, list(messages))
        if new is None and strategy != "tool_result_clearing":
            ctx.logger.info(
                "compaction: %s; clearing old tool results instead",
                "the summary failed"
                if run.summary_failed
                else f"nothing before the current turn is left to {strategy}",
            )
            new = run.clearing(list(messages))
            strategy = "tool_result_clearing" if new is not None else strategy
    result = CompactionResult(tokens_before=tokens_before, compaction_number=compaction_number)
    result.summary_input_tokens = sum(s.record.input_tokens for s in run.summaries)
    result.summary_output_tokens = sum(s.record.output_tokens for s in run.summaries)
    result.summary_cost = sum(s.record.cost for s in run.summaries)
    if new is None or new == list(messages):
        return Compacted(None, result, run.summaries)
    problems = legality_problems(new)
    if problems and not legality_problems(messages):  # never send a list we made illegal
        ctx.logger.warning("compaction: result discarded as illegal: %s", "; ".join(problems))
        return Compacted(None, result, run.summaries)
    run.ensure_archived()
    after = round(
        tokens_before
        * estimate_chars(new, ctx.system)
        / max(1, estimate_chars(messages, ctx.system))
    )
    result.triggered = True
    result.strategy = strategy
    result.tokens_after = after
    result.tokens_cleared = max(0, tokens_before - after)
    result.archive_path = run.archive_path
    return Compacted(new, result, run.summaries)
