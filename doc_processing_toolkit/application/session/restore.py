"""Bringing a stored history to an Agent: dialect detection and cross-provider conversion.

Reuses `doc_processing_toolkit.application.history.conversion` (the one conversion
mechanism) with the Agent's own codecs and profiles. A history of plain text turns is
provider-neutral and always crosses; anything else crosses unless
``DPT_SESSION_CROSS_PROVIDER_CONVERSION=off``, and an unconvertible one is refused with a
`SessionCompatibilityError` naming the session, the target and the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.application.history.conversion import convert_history
from doc_processing_toolkit.application.history.dialects import Dialects
from doc_processing_toolkit.application.session.native import NativeHistory
from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.media import MediaLookup
from doc_processing_toolkit.domain.messages import Message, TextPart

__all__ = [
    "CONVERSION_ENV",
    "Conversion",
    "convert_stored_history",
    "detect_dialect",
    "is_neutral",
]

CONVERSION_ENV = environment.SESSION_CONVERSION_ENV
"""``off`` refuses every provider-native history written for another provider."""


@dataclass
class Conversion:
    """What a restore or a rebind did to the history."""

    messages: list[dict[str, Any]]
    source: str | None
    """The dialect converted from (None: nothing was converted)."""
    entries: list[dict[str, Any]]
    """The conversion report's entries."""


def is_neutral(parsed: list[Message]) -> bool:
    """True for plain text turns (user and assistant text, nothing else)."""
    return all(
        m.role in ("user", "assistant") and all(isinstance(p, TextPart) for p in m.parts)
        for m in parsed
    )


def detect_dialect(
    messages: list[dict[str, Any]], candidates: Sequence[str], dialects: Dialects
) -> str | None:
    """The first candidate whose codec reads ``messages`` back byte for byte."""
    for provider in dict.fromkeys(candidates):
        codec = dialects.codec(provider)
        if codec is None:
            continue
        try:
            if codec.render(codec.parse(list(messages))) == messages:
                return provider
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
    return None


def _turn_of(messages: list[dict[str, Any]], index: int | None) -> int | None:
    if index is None:
        return None
    return sum(1 for m in messages[: index + 1] if m.get("role") == "user") or 1


def convert_stored_history(
    messages: list[dict[str, Any]],
    *,
    source: str,
    target: str,
    model: str,
    session_id: str,
    dialects: Dialects,
    input_types: Sequence[str] | None,
    media_lookup: MediaLookup | None,
) -> Conversion:
    """``messages`` (in ``source``'s dialect) written for ``target``.

    Raises:
        SessionCompatibilityError: the history cannot be converted, or conversion is off
            and the history is not plain text; nothing partial is returned.
    """
    if source == target or not messages:
        return Conversion(list(messages), None, [])
    codec = dialects.codec(source)
    neutral = False
    if codec is not None:
        try:
            neutral = is_neutral(NativeHistory(codec).parse(messages))
        except (ValueError, TypeError, KeyError, AttributeError):
            neutral = False
    if not environment.session_cross_provider_conversion() and not neutral:
        raise SessionCompatibilityError(
            f"session {session_id!r}: its history is written for {source} and cannot continue "
            f"on {target} ({model}): {CONVERSION_ENV}=off",
            source=source,
            target=target,
        )
    try:
        converted, report = convert_history(
            messages,
            source=source,
            target=target,
            dialects=dialects,
            model=model,
            input_types=input_types,
            media_lookup=media_lookup,
        )
    except SessionCompatibilityError as exc:
        turn = _turn_of(messages, exc.index)
        where = f" (turn {turn}, message {exc.index})" if turn is not None else ""
        raise SessionCompatibilityError(
            f"session {session_id!r} cannot continue on {target} ({model}){where}: {exc}",
            source=source,
            target=target,
            index=exc.index,
        ) from exc
    return Conversion(converted, source, list(report.entries))
