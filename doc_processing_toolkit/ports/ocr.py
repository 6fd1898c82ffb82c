"""OcrEngine: reads the text of a page image (a scanned page with no text layer)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["OcrEngine"]


@runtime_checkable
class OcrEngine(Protocol):
    """Reads text from one image. ``name`` names the engine in reports
    (``AgentResult.converted_parts`` says which engine read which page). ``read`` raises
    ``DocumentError`` naming ``name`` and the problem when the engine fails."""

    name: str

    def read(self, image: bytes, mime_type: str, name: str) -> str:
        """The text in ``image`` (lines in reading order, joined with newlines)."""
        ...
