"""A whole (non-streamed) Messages response -> `ModelResponse`.

The message is replayed through `StreamAssembler` as the events a stream
of it would have sent, so a batch result and a streamed response are parsed by the same
code (blocks kept verbatim, usage, stop reason, built-in tool evidence).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.anthropic.stream import StreamAssembler
from doc_processing_toolkit.domain.requests import ModelResponse

__all__ = ["parse_message"]

_DELTA_KEYS = ("stop_reason", "stop_sequence")


def parse_message(
    message: Mapping[str, Any],
    *,
    requested_model: str,
    request_id: str | None = None,
    structured_output: bool = False,
) -> ModelResponse:
    """The `ModelResponse` of one Messages API ``message`` object (plain data)."""
    assembler = StreamAssembler(structured_output=structured_output)
    head = {k: v for k, v in message.items() if k not in ("content", *_DELTA_KEYS)}
    assembler.feed({"type": "message_start", "message": {**head, "content": []}})
    content = message.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, Mapping):
            assembler.feed(
                {"type": "content_block_start", "index": index, "content_block": dict(block)}
            )
            assembler.feed({"type": "content_block_stop", "index": index})
    assembler.feed({"type": "message_delta", "delta": {k: message.get(k) for k in _DELTA_KEYS}})
    assembler.feed({"type": "message_stop"})
    return assembler.response(requested_model=requested_model, request_id=request_id)
