"""What the strategies need to know about a conversation's shape, and its legality.

A history is *legal* to send when every tool message answers exactly the calls of the
assistant message right before it, every call is answered there, the first message is on
the user side and the last one is not an assistant turn. Those are the rules the four
wire formats share (tool_result blocks right after their tool_use, function_call_output
after its function_call, one function_response per function_call, no assistant prefill);
`legality_problems` names each breach.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from doc_processing_toolkit.domain.messages import (
    MediaPart,
    Message,
    ProviderPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = [
    "COMPACTION_CONTINUATION_TEXT",
    "SUMMARY_MARKER",
    "TRUNCATION_NOTICE_TEXT",
    "current_turn_start",
    "estimate_chars",
    "estimate_tokens",
    "is_compaction_output",
    "is_plain_user_turn",
    "is_signed",
    "latest_tool_round",
    "legality_problems",
]

SUMMARY_MARKER = "[Summary of the earlier conversation, written by compaction]"
"""The first line of every compaction recap (a user-role message)."""

TRUNCATION_NOTICE_TEXT = (
    "[Earlier messages of this conversation were removed to stay within the context "
    "window. Some prior context may be missing.]"
)
"""The synthetic user message sliding_window prepends (when the notice is on)."""

COMPACTION_CONTINUATION_TEXT = (
    "[The conversation above was compacted. Continue the task from where it left off.]"
)
"""The synthetic user turn appended when a compacted list would end on an assistant turn
(an assistant prefill) or on the recap itself."""

_MEDIA_CHARS = 6000
"""What one media item counts for in the size estimate (~1,500 tokens)."""


def is_plain_user_turn(message: Message) -> bool:
    """A user message with content and no tool results (the question of a turn), not a
    compaction's own output."""
    return (
        message.role == "user"
        and bool(message.parts)
        and not any(isinstance(p, ToolResultPart) for p in message.parts)
        and not is_compaction_output(message)
    )


def is_compaction_output(message: Message) -> bool:
    """A recap, truncation notice or continuation a compaction wrote."""
    if message.role != "user":
        return False
    text = message.text
    return (
        text.startswith(SUMMARY_MARKER)
        or text == TRUNCATION_NOTICE_TEXT
        or text == COMPACTION_CONTINUATION_TEXT
    )


def is_signed(message: Message) -> bool:
    """True when the message carries reasoning or signed provider data that must never be
    edited (only kept whole or dropped whole)."""
    return any(
        isinstance(p, ReasoningPart | ProviderPart)
        or (isinstance(p, ToolCallPart) and p.provider_details)
        for p in message.parts
    )


def current_turn_start(messages: Sequence[Message]) -> int | None:
    """Index of the current turn's user message (the last plain-text user turn)."""
    for index in range(len(messages) - 1, -1, -1):
        if is_plain_user_turn(messages[index]):
            return index
    return None


def latest_tool_round(messages: Sequence[Message]) -> int | None:
    """Index of the assistant message whose results the list ends on (None: it does not
    end on tool results)."""
    if len(messages) < 2 or messages[-1].role != "tool":
        return None
    index = len(messages) - 2
    return index if messages[index].role == "assistant" and messages[index].tool_calls else None


def _part_chars(part: object) -> int:
    if isinstance(part, TextPart | ReasoningPart):
        return len(part.text)
    if isinstance(part, MediaPart):
        return _MEDIA_CHARS
    if isinstance(part, ToolCallPart):
        return len(part.name) + len(json.dumps(part.arguments, default=str))
    if isinstance(part, ToolResultPart):
        return sum(_part_chars(c) for c in part.content) + len(part.name)
    if isinstance(part, ProviderPart):
        return len(json.dumps(part.payload, default=str))
    return 0


def estimate_chars(messages: Sequence[Message], system: str = "") -> int:
    """A size estimate of a conversation in characters (media counts a fixed amount)."""
    return len(system) + sum(16 + sum(_part_chars(p) for p in m.parts) for m in messages)


def estimate_tokens(messages: Sequence[Message], system: str = "") -> int:
    """~4 characters per token (the estimate the compaction entry points use)."""
    return estimate_chars(messages, system) // 4


def legality_problems(messages: Sequence[Message]) -> list[str]:
    """Every breach of the shared wire rules, as sentences ([] when legal)."""
    problems: list[str] = []
    if not messages:
        return ["the history is empty"]
    if messages[0].role == "assistant":
        problems.append("the history starts on an assistant turn")
    if messages[-1].role == "assistant":
        problems.append("the history ends on an assistant turn")
    for index, message in enumerate(messages):
        if not message.parts:
            problems.append(f"message {index} has no parts")
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        if message.role == "tool" or results:
            previous = messages[index - 1] if index else None
            calls = {c.id for c in previous.tool_calls} if previous is not None else set()
            if previous is None or previous.role != "assistant":
                problems.append(f"message {index} holds tool results after no tool call")
            answered = {r.call_id for r in results}
            if answered - calls:
                problems.append(
                    f"message {index} holds orphaned results {sorted(answered - calls)}"
                )
            if calls - answered:
                problems.append(
                    f"message {index - 1} has calls without results {sorted(calls - answered)}"
                )
        elif message.role == "assistant" and message.tool_calls:
            following = messages[index + 1] if index + 1 < len(messages) else None
            if following is None or following.role != "tool":
                ids = sorted(c.id for c in message.tool_calls)
                problems.append(f"message {index} has calls without results {ids}")
    return problems
