"""Fireworks chat-completion chunks -> domain deltas and the final assistant message.

The shared chat-completions assembler (``openai_compatible/stream.py``: reasoning as
``reasoning_content`` or ``<think>`` tags, tool calls by index, the final message parsed
by the codec so it replays byte-identical) with Fireworks' codec.

Citations: none. The chat-completions dialect carries no citations or grounding, so a
Fireworks response's ``citations`` is empty (``AgentResult.citations == []``), and
``citations=True`` on a run that sends documents logs the one WARNING of a provider that
cannot cite them.
"""

from __future__ import annotations

from doc_processing_toolkit.adapters.providers.fireworks.dialect import FireworksHistoryCodec
from doc_processing_toolkit.adapters.providers.openai_compatible import stream as _chat
from doc_processing_toolkit.adapters.providers.openai_compatible.stream import (
    CLOSE_TAG,
    OPEN_TAG,
    Segment,
    ThinkTagSplitter,
)

__all__ = ["CLOSE_TAG", "OPEN_TAG", "ChunkAssembler", "Segment", "ThinkTagSplitter"]

_CODEC = FireworksHistoryCodec()


class ChunkAssembler(_chat.ChunkAssembler):
    """Accumulates one Fireworks chat-completions stream; `feed` returns each chunk's deltas."""

    def __init__(self, *, structured_output: bool = False) -> None:
        super().__init__(_CODEC, structured_output=structured_output)
