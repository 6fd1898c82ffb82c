"""NativeMediaShapes: how media sits in a provider-native stored history.

A saved session keeps its messages in the dialect of the provider that produced them.
The media policy (externalise, strip, re-inline) walks those messages; what a media part
looks like in each dialect, how its payload is rewritten and what text stands in for it
are provider facts, so the adapters supply them through this port.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit.domain.media import MediaSlot

__all__ = ["NativeMediaShapes"]


@runtime_checkable
class NativeMediaShapes(Protocol):
    """Recognises and rewrites media parts of stored provider-native messages (pure)."""

    def classify(self, part: Any, message_index: int = 0, role: Any = None) -> MediaSlot | None:
        """``part`` as a `MediaSlot` (None when it carries no media)."""
        ...

    def with_payload(self, slot: MediaSlot, payload: str) -> dict[str, Any]:
        """A copy of ``slot``'s part with its inline payload set to ``payload`` (bytes as
        base64 in the slot's own form, or a ``$media:`` marker)."""
        ...

    def placeholder(self, slot: MediaSlot, label: str) -> dict[str, Any]:
        """The text part, in ``slot``'s dialect, that stands where the media was."""
        ...
