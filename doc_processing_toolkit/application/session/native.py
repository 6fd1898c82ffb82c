"""A session's provider-native history, read and cut through the provider's codec.

The session stores what the provider's `HistoryCodec` renders (the spec's
``session.messages``); a provider without a codec stores the neutral IR's JSON form. The
legal cut points of a history — where no tool round is open and no result is orphaned —
are found on the IR and mapped back to native indices, so truncation never rewrites what
it keeps.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from doc_processing_toolkit.domain import messages as _ir
from doc_processing_toolkit.domain.messages import (
    Message,
    ToolCallPart,
    ToolResultPart,
)
from doc_processing_toolkit.domain.session import MalformedEnvelopeError
from doc_processing_toolkit.ports.dialect import HistoryCodec

__all__ = ["NativeHistory", "check_native_messages", "copy_tree", "legal_cut", "orphan_results"]

_T = TypeVar("_T")
_ATOMS = frozenset({str, int, float, bool, type(None)})


def copy_tree(value: _T) -> _T:
    """A deep copy of JSON-shaped data (dicts, lists and scalars), about three times
    faster than `copy.deepcopy` on a session's history. Every turn copies the
    whole history, so that cost grows with the session. Any other type, a dict or list
    subclass included, is copied by `copy.deepcopy`. The one difference is that an
    object the data holds twice comes back as two copies, not one shared copy. A
    history never relies on that."""
    return cast(_T, _copy(value))


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMS else _copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMS else _copy(v) for v in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)


@dataclass(frozen=True, slots=True)
class NativeHistory:
    """Render / parse one provider's native history (the IR's JSON without a codec)."""

    codec: HistoryCodec | None

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> native dicts (JSON-clean)."""
        if self.codec is not None:
            return copy_tree(self.codec.render(list(messages)))
        return list(_ir.MESSAGES_ADAPTER.dump_python(list(messages), mode="json"))

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Native dicts -> IR."""
        if self.codec is not None:
            return self.codec.parse(copy_tree(list(native)))
        return _ir.MESSAGES_ADAPTER.validate_python(copy_tree(list(native)))

    def spans(self, native: list[dict[str, Any]]) -> tuple[list[Message], list[int]]:
        """The IR messages and, for each, the native index it starts at (plus the end).

        A codec is lossless for its own IR, so rendering each message alone yields exactly
        the native messages it came from (one IR message may span several native ones).
        """
        parsed = self.parse(native)
        starts, total = [], 0
        for message in parsed:
            starts.append(total)
            total += len(self.render([message]))
        starts.append(total)
        if total != len(native):  # a codec grouping across messages: only the ends are sure
            return parsed, [0] * len(parsed) + [len(native)]
        return parsed, starts


def _open_after(messages: list[Message]) -> list[bool]:
    """For each prefix length k (0..n): True when a tool call in it has no result."""
    open_ids: set[str] = set()
    flags = [False]
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                open_ids.add(part.id)
            elif isinstance(part, ToolResultPart):
                open_ids.discard(part.call_id)
        flags.append(bool(open_ids))
    return flags


def legal_cut(history: NativeHistory, native: list[dict[str, Any]], count: int) -> int:
    """The largest native prefix length <= ``count`` that leaves no tool call unanswered."""
    if count <= 0:
        return 0
    parsed, starts = history.spans(native)
    flags = _open_after(parsed)
    best = 0
    for k, start in enumerate(starts):
        if start > count:
            break
        if not flags[k]:
            best = start
    return best


def orphan_results(history: NativeHistory, native: list[dict[str, Any]]) -> list[int]:
    """Native indices of tool-result messages answering no earlier call."""
    parsed, starts = history.spans(native)
    seen: set[str] = set()
    orphans: list[int] = []
    for index, message in enumerate(parsed):
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                seen.add(part.id)
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        if results and all(p.call_id not in seen for p in results):
            orphans.extend(range(starts[index], starts[index + 1]))
    return orphans


def _shape_problem(message: dict[str, Any], roles: tuple[str, ...] | None) -> str | None:
    """What makes ``message`` no message of a provider with ``roles`` (None: nothing)."""
    role = message.get("role")
    if "role" not in message:
        if roles is not None and "developer" in roles and isinstance(message.get("type"), str):
            return None
        return "it has no role" if roles is not None else None
    if not isinstance(role, str) or (roles is not None and role not in roles):
        return f"role {role!r} is not one of {list(roles or [])}"
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        return f"content must be a string or a list, got {content!r}"
    if "parts" in message and not isinstance(message["parts"], list):
        return f"parts must be a list, got {message['parts']!r}"
    if roles is not None and "model" in roles and not isinstance(message.get("parts"), list):
        return "a Gemini message needs a list of parts"
    return None


_PARSE_ERRORS = (ValueError, TypeError, KeyError, AttributeError)


def check_native_messages(
    messages: list[dict[str, Any]], provider: str, native: NativeHistory
) -> None:
    """``messages`` is a history ``provider``'s codec reads, or the first message that is
    not is named.

    Raises:
        MalformedEnvelopeError: naming ``messages.<index>`` and what is wrong with it.
    """
    # The roles the provider's codec declares (a plug-in codec without them: no role check).
    roles: tuple[str, ...] | None = getattr(native.codec, "native_roles", None)
    for index, message in enumerate(messages):
        problem = _shape_problem(message, roles)
        if problem is not None:
            raise MalformedEnvelopeError(
                f"messages.{index}", f"not a valid {provider} message: {problem}"
            )
    try:
        native.parse(messages)
        return
    except _PARSE_ERRORS as exc:
        problem = str(exc)
    index = 0
    for index, message in enumerate(messages):  # noqa: B007 - the index is the report
        try:
            native.parse([message])
        except _PARSE_ERRORS as exc:
            problem = str(exc)
            break
    raise MalformedEnvelopeError(f"messages.{index}", f"not a valid {provider} message: {problem}")
