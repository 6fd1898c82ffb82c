"""Fireworks chat-completions history <-> the neutral IR (`FireworksHistoryCodec`).

Fireworks serves the OpenAI chat-completions message list; the codec is the shared
`ChatCompletionsCodec` (``openai_compatible/codec.py``, which documents the native shape
and the canonical rendering) under Fireworks' name: its parts carry ``provider
"fireworks"``, replay details sit under ``provider_details["fireworks"]``, and drop
reasons name Fireworks. Fireworks takes images only.
"""

from __future__ import annotations

from doc_processing_toolkit.adapters.providers.openai_compatible.codec import (
    ChatCompletionsCodec,
    DroppedPart,
    arguments_object,
    decode_arguments,
)

__all__ = [
    "PROVIDER",
    "DroppedPart",
    "FireworksHistoryCodec",
    "arguments_object",
    "decode_arguments",
]

PROVIDER = "fireworks"
LABEL = "Fireworks"
"""How messages name the vendor."""


class FireworksHistoryCodec(ChatCompletionsCodec):
    """Renders IR messages as Fireworks chat-completions dicts and parses them back."""

    provider: str = PROVIDER
    label: str = LABEL
