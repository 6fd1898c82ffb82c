"""The tool-result size cap and the event preview.

Every result the toolkit executes is capped where it is fed back to the model. The text
items of a result are counted together; the item that crosses the cap keeps its text up
to the cap and ends with a marker the model can read, later text items are dropped, and
media items pass through untouched and in order. The marker is built by a function so
the ``read_truncated_result`` form can replace the default one. The event preview is a
separate, independent cut of the result's text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from doc_processing_toolkit.domain.errors import ConfigurationError, InvalidArgumentTypeError
from doc_processing_toolkit.domain.messages import ContentPart, TextPart

__all__ = [
    "DEFAULT_TOOL_RESULT_PREVIEW_CHARS",
    "TOOL_RESULT_CAP_CHARS_PER_TOKEN",
    "TOOL_RESULT_CAP_CONTEXT_FRACTION",
    "TOOL_RESULT_CAP_FLOOR_CHARS",
    "CapOutcome",
    "TruncationMarker",
    "cap_tool_result",
    "default_cap",
    "preview",
    "resolve_cap",
    "truncation_marker",
]

TOOL_RESULT_CAP_CHARS_PER_TOKEN = 4
"""Characters per token assumed when deriving the cap from a context window."""
TOOL_RESULT_CAP_CONTEXT_FRACTION = 0.25
"""The share of the context window one tool result may fill."""
TOOL_RESULT_CAP_FLOOR_CHARS = 128_000
"""The cap for a model whose registry row gives no context window."""
DEFAULT_TOOL_RESULT_PREVIEW_CHARS = 500
"""How much of a result the ``tool_call_result`` events carry by default."""

TruncationMarker = Callable[[int, int], str]
"""Builds the marker from (characters shown, characters in total)."""


def truncation_marker(shown: int, total: int) -> str:
    """The default marker: ``… [truncated: N of M characters shown; raise ...]``."""
    return (
        f"… [truncated: {shown} of {total} characters shown; "
        "raise max_tool_result_chars to keep more]"
    )


def default_cap(context_window_tokens: int | None) -> int:
    """The cap derived from a model's context window (window x 4 x 0.25 characters).

    A row without a window (None or not positive) gets `TOOL_RESULT_CAP_FLOOR_CHARS`.
    """
    if context_window_tokens is None or context_window_tokens <= 0:
        return TOOL_RESULT_CAP_FLOOR_CHARS
    return int(
        context_window_tokens * TOOL_RESULT_CAP_CHARS_PER_TOKEN * TOOL_RESULT_CAP_CONTEXT_FRACTION
    )


def resolve_cap(max_tool_result_chars: int | None, context_window_tokens: int | None) -> int:
    """The cap in effect: None -> `default_cap`, 0 -> 0 (off), positive -> itself.

    Raises:
        TypeError: the value is not an integer (a bool is refused too).
        ValueError: the value is negative.
    """
    if max_tool_result_chars is None:
        return default_cap(context_window_tokens)
    if isinstance(max_tool_result_chars, bool) or not isinstance(max_tool_result_chars, int):
        raise InvalidArgumentTypeError(
            "max_tool_result_chars must be a non-negative integer or None, "
            f"got {max_tool_result_chars!r}"
        )
    if max_tool_result_chars < 0:
        raise ConfigurationError(
            "max_tool_result_chars must be a non-negative integer or None (0 turns the cap off), "
            f"got {max_tool_result_chars}"
        )
    return max_tool_result_chars


@dataclass(frozen=True, slots=True)
class CapOutcome:
    """A result after the cap, with what the WARNING line and the read-back store need."""

    content: tuple[ContentPart, ...]
    """What the model is shown (the input itself when nothing was cut)."""
    truncated: bool = False
    """True when text was cut (log one WARNING)."""
    shown_chars: int = 0
    """N: characters of the original text shown (the marker not included)."""
    total_chars: int = 0
    """M: characters in all text items together."""
    cap: int = 0
    """The cap applied (0 = off)."""
    dropped_items: int = 0
    """Text items after the crossing one that were dropped entirely."""
    full_text: str = ""
    """When truncated: every text item, one per line, for a later read-back ("" otherwise)."""
    resume_offset: int = 0
    """When truncated: the offset in `full_text` where the shown text stops."""


def cap_tool_result(
    content: tuple[ContentPart, ...], cap: int, *, marker: TruncationMarker | None = None
) -> CapOutcome:
    """Cap the text of one tool result at ``cap`` characters (0 = no change).

    Args:
        content: The result's items, in order.
        cap: The cap from `resolve_cap`.
        marker: Builds the marker appended to the crossing item from (shown, total);
            defaults to `truncation_marker`.
    """
    texts: list[str] = []
    total = 0
    for part in content:  # docs/performance.md: loops
        if isinstance(part, TextPart):
            texts.append(part.text)
            total += len(part.text)
    if cap <= 0 or total <= cap:
        return CapOutcome(content=content, shown_chars=total, total_chars=total, cap=cap)
    build = marker or truncation_marker
    kept: list[ContentPart] = []
    used = 0
    items_before_cut = 0
    cut = False
    dropped = 0
    for part in content:
        if not isinstance(part, TextPart):
            kept.append(part)
        elif cut:
            dropped += 1
        elif used + len(part.text) <= cap:
            kept.append(part)
            used += len(part.text)
            items_before_cut += 1
        else:
            kept.append(TextPart(part.text[: cap - used] + build(cap, total)))
            cut = True
    return CapOutcome(
        content=tuple(kept),
        truncated=True,
        shown_chars=cap,
        total_chars=total,
        cap=cap,
        dropped_items=dropped,
        full_text="\n".join(texts),
        resume_offset=cap + items_before_cut,
    )


def preview(text: str, preview_chars: int) -> tuple[str, bool]:
    """The events' copy of a result: its first ``preview_chars`` characters (0 = all).

    Returns:
        ``(preview, result_truncated)``: result_truncated is True when the preview is
        shorter than the whole text.

    Raises:
        ValueError: ``preview_chars`` is negative.
    """
    if preview_chars < 0:
        raise ConfigurationError(
            f"tool_result_preview_chars must be non-negative, got {preview_chars}"
        )
    if preview_chars == 0 or len(text) <= preview_chars:
        return text, False
    return text[:preview_chars], True
