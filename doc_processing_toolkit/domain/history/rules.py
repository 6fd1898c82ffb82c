"""What the crossing needs to know about one dialect, as plain values and callables.

The domain knows no provider: the application fills a `DialectRules` from the
provider's profile (its id convention, the artefact name of its verbatim payloads, the
media its wire format carries, its salvage rules) and hands the source's and the target's
to `doc_processing_toolkit.domain.history.filtering.cross_provider`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from doc_processing_toolkit.domain.grounding.citations import Citation
from doc_processing_toolkit.domain.history.report import Salvage
from doc_processing_toolkit.domain.media import AcceptsMedia, no_media_in_model_turns
from doc_processing_toolkit.domain.messages import ProviderPart, ReasoningPart, TextPart

__all__ = ["DEFAULT_RULES", "DialectRules", "Salvager", "reasoning_drop"]

Salvager: TypeAlias = Callable[[ProviderPart | ReasoningPart], Salvage | None]
"""Reads a ProviderPart or ReasoningPart of its dialect for another one: a ProviderPart's
neutral content and named drops (None: drop it whole); a ReasoningPart's drop names."""


@dataclass(frozen=True, slots=True)
class DialectRules:
    """One dialect's facts for a crossing; the defaults assume nothing about it."""

    call_id_prefix: str | None = None
    """The tool-call id convention ids are re-keyed to when this is the target (None: any
    id is kept, except an empty or duplicate one)."""
    payload_artefact: str = "unknown_part"
    """The artefact name of a verbatim payload of this dialect that is dropped whole."""
    accepts_media: AcceptsMedia = no_media_in_model_turns
    """Which media this dialect's wire format carries at each position (as the target)."""
    salvage: Salvager | None = None
    """Reads this dialect's verbatim payloads and names its reasoning (as the source)."""
    text_citations: Callable[[TextPart], Sequence[Citation]] | None = None
    """Reads the citations riding on a text part of this dialect (as the source): they
    cross as a text source list at the end of their message."""


DEFAULT_RULES = DialectRules()
"""The rules of a dialect nothing is known about, and of the neutral form of turns."""


def reasoning_drop(part: ReasoningPart) -> tuple[str, str]:
    """``(artefact, detail)`` of reasoning whose dialect names it no better."""
    return "reasoning", f"reasoning of {part.provider!r} ({len(part.text)} chars)"
