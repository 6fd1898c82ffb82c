"""Letting the model read past the cut: the kept text of truncated tool results.

With ``Agent(truncated_result_read_chars=N)`` a result that ``max_tool_result_chars``
cuts is kept here in full, under a unique id, and its marker tells the model how to
read on with the built-in ``read_truncated_result(tool_call_id, offset)`` tool. Every
character a read returns counts against the result's allowance (``N``), a part read
twice included. The store lives for one run, or for an AgentSession's lifetime; it is
never exported. Released and restored ids stay *retired*: a read of one answers that
the result is no longer available, and the id is never given to a newer result.

Pure: the run loop fills the store (`cap_with_read_back`), the
``truncated-results`` session reads it (`TruncatedResultStore.read`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.domain.messages import ContentPart, TextPart
from doc_processing_toolkit.domain.tools.results import CapOutcome, cap_tool_result

__all__ = [
    "READ_TRUNCATED_RESULT_TOOL",
    "TRUNCATED_RESULTS_SERVER",
    "ReadResult",
    "TruncatedResultStore",
    "cap_with_read_back",
    "marker_ids",
    "read_back_marker",
]

READ_TRUNCATED_RESULT_TOOL = "read_truncated_result"
"""The built-in tool's name."""
TRUNCATED_RESULTS_SERVER = "truncated-results"
"""The server name the built-in tool is listed under."""

_MARKER_ID = re.compile(r'read_truncated_result\(tool_call_id="([^"]+)"')


@dataclass(slots=True)
class _Kept:
    text: str
    allowance: int
    slice_chars: int
    used: int = 0


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What one ``read_truncated_result`` call answers."""

    text: str
    """The slice with its closing note, or a refusal the model can read."""
    is_error: bool = False
    """True for a refusal (unknown id, bad offset, allowance used up)."""
    chars: int = 0
    """Characters of the kept result returned (0 for a refusal)."""


def read_back_marker(result_id: str, shown: int, total: int, offset: int, more: int) -> str:
    """The marker of a cut result when the model may read on."""
    return (
        f"… [truncated: {shown} of {total} characters shown. Call read_truncated_result("
        f'tool_call_id="{result_id}", offset={offset}) to read up to {more} more.]'
    )


def marker_ids(text: str) -> list[str]:
    """The result ids named by read-back markers in ``text`` (for a restored session)."""
    return _MARKER_ID.findall(text)


class TruncatedResultStore:
    """Truncated tool results kept in full, in memory, with their read allowances."""

    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}
        self._retired: set[str] = set()
        self._anonymous = 0

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, result_id: object) -> bool:
        return result_id in self._kept

    def __repr__(self) -> str:
        return f"TruncatedResultStore(kept={len(self._kept)}, retired={len(self._retired)})"

    @property
    def ids(self) -> list[str]:
        """The ids of the results kept now, oldest first."""
        return list(self._kept)

    def assign_id(self, provider_id: str | None) -> str:
        """A new unique id for a result: the provider's call id, with ``-2``, ``-3``…
        appended when it was used before, or ``result-N`` when the provider gave none."""
        taken = self._kept.keys() | self._retired
        if not provider_id:
            while True:
                self._anonymous += 1
                candidate = f"result-{self._anonymous}"
                if candidate not in taken:
                    return candidate
        if provider_id not in taken:
            return provider_id
        suffix = 2
        while f"{provider_id}-{suffix}" in taken:
            suffix += 1
        return f"{provider_id}-{suffix}"

    def keep(self, result_id: str, text: str, *, allowance: int, slice_chars: int) -> None:
        """Keep ``text`` under ``result_id`` (from `assign_id`).

        Args:
            allowance: Characters the model may read back (``truncated_result_read_chars``).
            slice_chars: The most one read returns (``max_tool_result_chars``; 0 = no limit).
        """
        self._kept[result_id] = _Kept(text, max(0, allowance), max(0, slice_chars))

    def remaining(self, result_id: str) -> int:
        """Characters of allowance left for ``result_id`` (0 when unknown)."""
        kept = self._kept.get(result_id)
        return 0 if kept is None else max(0, kept.allowance - kept.used)

    def retire(self, ids: Iterable[str]) -> None:
        """Mark ``ids`` as no longer available (a restored session's old results)."""
        for result_id in ids:
            self._kept.pop(result_id, None)
            self._retired.add(result_id)

    def clear(self) -> None:
        """Release every kept text; the ids stay retired and are never reused."""
        self.retire(list(self._kept))

    def read(self, result_id: Any, offset: Any) -> ReadResult:
        """The next slice of a kept result from ``offset``, or a refusal."""
        if not isinstance(result_id, str) or not result_id:
            return ReadResult(
                "tool_call_id must be the id named in a [truncated: …] marker.", is_error=True
            )
        if result_id in self._retired:
            return ReadResult(
                f'The result of tool_call_id "{result_id}" is no longer available: truncated '
                "results are kept in memory only, for the run or session that produced them.",
                is_error=True,
            )
        kept = self._kept.get(result_id)
        if kept is None:
            return ReadResult(
                f'This result was not truncated: tool_call_id "{result_id}" names no truncated '
                "result, so there is nothing more to read.",
                is_error=True,
            )
        total = len(kept.text)
        start = _as_offset(offset)
        if start is None or not 0 <= start < total:
            return ReadResult(
                f'Invalid offset {offset!r}: the result of tool_call_id "{result_id}" has '
                f"{total} characters, so offset must be an integer from 0 to {total - 1}.",
                is_error=True,
            )
        left = kept.allowance - kept.used
        if left <= 0:
            return ReadResult(
                f'The read allowance for tool_call_id "{result_id}" is used up: {kept.used} '
                "characters were read back, the most truncated_result_read_chars allows. "
                "Answer with what you have.",
                is_error=True,
            )
        size = min(left, total - start)
        if kept.slice_chars > 0:
            size = min(size, kept.slice_chars)
        end = start + size
        kept.used += size
        left -= size
        if end >= total:
            note = f"… [characters {start} to {end} of {total}: the end of the result.]"
        elif left > 0:
            note = (
                f"… [characters {start} to {end} of {total}. Call read_truncated_result("
                f'tool_call_id="{result_id}", offset={end}) to read up to '
                f"{min(left, total - end)} more.]"
            )
        else:
            note = (
                f"… [characters {start} to {end} of {total}. The read allowance for this "
                "result is used up.]"
            )
        return ReadResult(kept.text[start:end] + note, chars=size)


def _as_offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _resume_offset(texts: list[str], cap: int) -> int:
    """Where the shown text stops in the kept text (items joined one per line)."""
    used = 0
    whole_items = 0
    for text in texts:
        if used + len(text) > cap:
            break
        used += len(text)
        whole_items += 1
    return cap + whole_items


def cap_with_read_back(
    content: tuple[ContentPart, ...],
    cap: int,
    *,
    store: TruncatedResultStore,
    call_id: str | None,
    allowance: int,
) -> tuple[CapOutcome, str | None]:
    """Cap a result as `cap_tool_result` does, keeping a cut result for read-back.

    Returns:
        The capped result and the id it is kept under (None when nothing was cut).
    """
    texts = [part.text for part in content if isinstance(part, TextPart)]
    total = sum(len(text) for text in texts)
    if cap <= 0 or total <= cap:
        return cap_tool_result(content, cap), None
    result_id = store.assign_id(call_id)
    full_length = total + len(texts) - 1
    offset = _resume_offset(texts, cap)
    more = min(allowance, full_length - offset)

    def marker(shown: int, whole: int) -> str:
        return read_back_marker(result_id, shown, whole, offset, more)

    capped = cap_tool_result(content, cap, marker=marker)
    store.keep(result_id, capped.full_text, allowance=allowance, slice_chars=cap)
    return capped, result_id
