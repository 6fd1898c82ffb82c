"""A whole (non-streamed) GenerateContentResponse -> `ModelResponse`.

The response is fed to `StreamAssembler` as one chunk (in the SDK's JSON
form: ``model_dump(mode="json", exclude_none=True)``), so a batch result and a streamed
response are parsed by the same code (parts kept verbatim, call ids, usage, stop reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.adapters.providers.google.stream import StreamAssembler
from doc_processing_toolkit.domain.requests import ModelResponse

__all__ = ["parse_response"]


def parse_response(
    body: Mapping[str, Any],
    *,
    requested_model: str,
    structured_output: bool = False,
    requested_tier: str | None = None,
) -> ModelResponse:
    """The `ModelResponse` of one ``GenerateContentResponse`` (plain data)."""
    assembler = StreamAssembler(structured_output=structured_output, requested_tier=requested_tier)
    assembler.feed(body)
    return assembler.response(requested_model=requested_model)
