"""The compaction strategies as pure functions on the IR.

Each returns a new list (or None when it has nothing to remove) and never edits a message
that carries reasoning or signed provider data: such a turn is kept whole or dropped
whole. Every result passes `legality_problems`:

* `sliding_window` keeps the newest messages, opening the window on a user turn
  (never inside a tool round) and, when protecting the current turn, never after the
  turn's own question;
* `tool_result_clearing` replaces old tool results (and optionally their calls'
  arguments) with a short marker;
* `plan_summary` chooses what ``summarize`` folds into a recap and what it keeps
  verbatim; `splice_summary` puts the recap in front of what is kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from doc_processing_toolkit.domain.compaction.structure import (
    COMPACTION_CONTINUATION_TEXT,
    SUMMARY_MARKER,
    TRUNCATION_NOTICE_TEXT,
    current_turn_start,
    is_compaction_output,
    is_plain_user_turn,
    is_signed,
    latest_tool_round,
)
from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    user_text,
)

__all__ = [
    "CLEARED_RESULT_PREFIX",
    "SummaryPlan",
    "finish",
    "plan_summary",
    "sliding_window",
    "splice_summary",
    "tool_result_clearing",
    "transcript",
]

CLEARED_RESULT_PREFIX = "[tool result cleared by compaction"
"""How a cleared tool result begins."""


def finish(messages: list[Message]) -> list[Message]:
    """Append the synthetic continuation when the list would end on an assistant turn (a
    prefill) or on a compaction's own output."""
    if messages and (messages[-1].role == "assistant" or is_compaction_output(messages[-1])):
        return [*messages, user_text(COMPACTION_CONTINUATION_TEXT)]
    return messages


def _nothing_to_drop(dropped: Sequence[Message]) -> bool:
    return all(is_compaction_output(m) for m in dropped)


def sliding_window(
    messages: Sequence[Message],
    keep_recent_messages: int,
    *,
    include_truncation_notice: bool = True,
    protect_current_turn: bool = True,
) -> list[Message] | None:
    """The newest ``keep_recent_messages`` messages (or a few more), or None.

    The window opens on a user-side message, so no tool result loses its call; when
    ``protect_current_turn`` it opens at the latest on the current turn's question.
    """
    if not messages:
        return None
    start = min(len(messages) - 1, max(0, len(messages) - keep_recent_messages))
    while start > 0 and not _opens_window(messages[start]):
        start -= 1
    if protect_current_turn:
        turn = current_turn_start(messages)
        if turn is not None and start > turn:
            start = turn
    if start == 0 or _nothing_to_drop(messages[:start]):
        return None
    kept = list(messages[start:])
    if include_truncation_notice:
        kept.insert(0, user_text(TRUNCATION_NOTICE_TEXT))
    return finish(kept)


def _opens_window(message: Message) -> bool:
    return message.role == "user" and not any(isinstance(p, ToolResultPart) for p in message.parts)


def _cleared(result: ToolResultPart) -> ToolResultPart:
    chars = sum(len(p.text) if isinstance(p, TextPart) else 0 for p in result.content)
    media = sum(1 for p in result.content if isinstance(p, MediaPart))
    extra = f", {media} media item(s)" if media else ""
    text = f"{CLEARED_RESULT_PREFIX}: {chars} chars{extra} removed]"
    return replace(result, content=(TextPart(text),))


def _is_cleared(result: ToolResultPart) -> bool:
    return len(result.content) == 1 and result.text.startswith(CLEARED_RESULT_PREFIX)


def tool_result_clearing(
    messages: Sequence[Message],
    keep_recent_tool_results: int,
    *,
    clear_tool_inputs: bool = False,
) -> list[Message] | None:
    """Old tool results replaced by a marker (the newest ``keep_recent_tool_results``
    kept), or None when there is nothing left to clear.

    With ``clear_tool_inputs`` the arguments of the cleared results' calls are emptied too,
    except in a signed turn and in the latest tool round (never rewritten while its
    results are outstanding).
    """
    positions = [
        (mi, pi)
        for mi, message in enumerate(messages)
        for pi, part in enumerate(message.parts)
        if isinstance(part, ToolResultPart) and not _is_cleared(part)
    ]
    doomed = positions[: max(0, len(positions) - keep_recent_tool_results)]
    if not doomed:
        return None
    out = list(messages)
    cleared_ids: set[str] = set()
    for mi, pi in doomed:
        parts = list(out[mi].parts)
        part = parts[pi]
        assert isinstance(part, ToolResultPart)
        parts[pi] = _cleared(part)
        cleared_ids.add(part.call_id)
        out[mi] = replace(out[mi], parts=tuple(parts))
    if clear_tool_inputs:
        protected = latest_tool_round(messages)
        for mi, message in enumerate(out):
            if message.role != "assistant" or mi == protected or is_signed(message):
                continue
            if any(c.id in cleared_ids and c.arguments for c in message.tool_calls):
                out[mi] = replace(
                    message,
                    parts=tuple(
                        replace(p, arguments={})
                        if isinstance(p, ToolCallPart) and p.id in cleared_ids
                        else p
                        for p in message.parts
                    ),
                )
    return out


@dataclass(frozen=True, slots=True)
class SummaryPlan:
    """What ``summarize`` folds into the recap and what it keeps verbatim after it."""

    head: tuple[Message, ...]
    """The messages the recap replaces."""
    tail: tuple[Message, ...]
    """The messages kept verbatim after the recap."""


def plan_summary(
    messages: Sequence[Message], *, protect_current_turn: bool = True
) -> SummaryPlan | None:
    """Choose what to summarise (None: nothing before the turn is left to compact).

    Protecting the current turn, everything before the last plain user turn is folded
    and that turn (question, draft, open tool round) kept. Otherwise the whole list is
    folded except a trailing plain user turn (re-appended) or the latest tool round
    (restored verbatim: it may not change while its results are outstanding).
    """
    if not messages:
        return None
    if protect_current_turn:
        turn = current_turn_start(messages)
        if turn is None:
            return None
        cut = turn
    elif is_plain_user_turn(messages[-1]):
        cut = len(messages) - 1
    else:
        latest = latest_tool_round(messages)
        cut = latest if latest is not None else len(messages)
    head, tail = tuple(messages[:cut]), tuple(messages[cut:])
    if not head or _nothing_to_drop(head):
        return None
    return SummaryPlan(head=head, tail=tail)


def splice_summary(
    plan: SummaryPlan, summary: str, *, archive_ref: str | None = None
) -> list[Message]:
    """The recap (one user-role message) followed by the kept tail."""
    text = f"{SUMMARY_MARKER}\n\n{summary.strip()}"
    if archive_ref:
        text += f"\n\nThe full earlier conversation is archived at: {archive_ref}"
    return finish([user_text(text), *plan.tail])


def transcript(messages: Sequence[Message], *, max_result_chars: int = 4000) -> str:
    """A plain-text transcript of ``messages`` for the summarisation call."""
    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart) and part.text.strip():
                lines.append(f"{message.role.upper()}: {part.text}")
            elif isinstance(part, MediaPart):
                name = f" {part.filename}" if part.filename else ""
                lines.append(f"{message.role.upper()}: [attachment{name} ({part.mime_type})]")
            elif isinstance(part, ToolCallPart):
                args = json.dumps(part.arguments, default=str)[:max_result_chars]
                lines.append(f"TOOL CALL {part.name}: {args}")
            elif isinstance(part, ToolResultPart):
                status = " (error)" if part.is_error else ""
                lines.append(f"TOOL RESULT {part.name}{status}: {part.text[:max_result_chars]}")
    return "\n".join(lines)
