"""HistoryCodec: a provider's native message dicts <-> the neutral IR."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from doc_processing_toolkit.domain.messages import Message

__all__ = ["HistoryCodec"]


@runtime_checkable
class HistoryCodec(Protocol):
    """Renders IR messages as the provider's native dicts and parses them back.

    ``render(parse(native)) == native`` for the codec's own provider (lossless).
    """

    provider: str

    def render(self, messages: list[Message]) -> list[dict[str, Any]]:
        """IR -> provider-native message dicts."""
        ...

    def parse(self, native: list[dict[str, Any]]) -> list[Message]:
        """Provider-native message dicts -> IR."""
        ...
