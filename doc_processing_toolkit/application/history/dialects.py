"""The dialects a conversion reads and writes: codecs and profiles, handed in.

The history room never looks a codec or a profile up itself: whoever calls it (the
documented ``agent.history_conversion`` binds the process container) passes a
`Dialects`. What the pure crossing needs of a profile is turned into a
`DialectRules` by `rules_of`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from doc_processing_toolkit.domain.history.rules import DialectRules
from doc_processing_toolkit.domain.media import MediaLookup
from doc_processing_toolkit.domain.messages import MediaPart
from doc_processing_toolkit.ports.dialect import HistoryCodec
from doc_processing_toolkit.ports.provider_profile import ProviderProfile

__all__ = ["Dialects", "ResolvesFileReferences", "rules_of"]


@dataclass(frozen=True, slots=True)
class Dialects:
    """Where a conversion gets each provider's codec and profile."""

    codec: Callable[[str], HistoryCodec | None]
    """The provider's HistoryCodec (None: not a known dialect)."""
    profile: Callable[[str], ProviderProfile]
    """The provider's profile (a plug-in without one gets the defaults)."""


@runtime_checkable
class ResolvesFileReferences(Protocol):
    """A profile that can make its provider's file references sendable elsewhere.

    The source profile is asked for every media part of a history before it crosses
    (e.g. a Files API URI turned into bytes through a session's media table); a profile
    without the hook leaves file references as they are.
    """

    def resolve_file_reference(self, part: MediaPart, lookup: MediaLookup | None) -> MediaPart:
        """``part`` as bytes or a URL when the provider can tell how, else as it is."""
        ...


def rules_of(profile: ProviderProfile) -> DialectRules:
    """What the crossing needs of a provider's profile."""
    return DialectRules(
        call_id_prefix=profile.call_id_prefix,
        payload_artefact=profile.payload_artefact,
        accepts_media=profile.accepts_media,
        salvage=profile.salvage,
        text_citations=getattr(profile, "text_citations", None),
    )
