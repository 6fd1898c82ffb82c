"""A whole (non-streamed) Responses object -> `ModelResponse`.

The object is fed to `StreamAssembler` as the terminal event a stream of
it ends with, so a batch result and a streamed response are parsed by the same code
(output items kept verbatim, usage, stop reason, served tier, built-in tool evidence).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.openai.stream import StreamAssembler
from doc_processing_toolkit.domain.requests import ModelResponse

__all__ = ["parse_response"]


def parse_response(
    body: Mapping[str, Any],
    *,
    requested_model: str,
    request_id: str | None = None,
    structured_output: bool = False,
) -> ModelResponse:
    """The `ModelResponse` of one Responses API ``response`` object (plain data)."""
    assembler = StreamAssembler(structured_output=structured_output)
    assembler.feed({"type": "response.completed", "response": dict(body)})
    return assembler.response(requested_model=requested_model, request_id=request_id)
